//! # acc-pass: passes and the pass manager
//!
//! A pass is registered as a [`PassInfo`]: its command-line name, a summary, the op it
//! runs on (its *anchor*: an op name such as `func.func`, or any op), its options, and a
//! constructor that makes a [`Pass`] from option values. A [`pipeline::Pipeline`] nests
//! passes under the ops they run on, as MLIR's
//! `builtin.module(func.func(canonicalize,cse))`; the [`manager`] runs it, verifying
//! after each pass, printing IR and timing when asked, and running a nested pipeline on
//! several isolated ops (functions) at once.
//!
//! Writing a pass: implement [`Pass::run`], which gets a [`PassTarget`] (the context,
//! the IR, the op the pass runs on and the compilation's targets), and register a `PassInfo` (see
//! `docs/writing-a-pass.md`).

#![deny(missing_docs)]

pub mod manager;
pub mod pipeline;
pub mod timing;

use std::sync::Arc;

use acc_ir::context::Context;
use acc_ir::diag::Diagnostic;
use acc_ir::ir::{BodyId, Ir, OpId, OpRef, RegionId};
use acc_target::{Target, Targets};

/// A pass, made by its [`PassInfo`] from option values.
pub trait Pass: Send + Sync {
    /// Runs on the target op. An error stops the pipeline; diagnostics pushed on the
    /// target (remarks, warnings) are reported and do not.
    fn run(&self, target: &mut PassTarget<'_>) -> Result<(), Diagnostic>;

    /// Whether the pass is meant to change what the IR computes (quantizing a float
    /// model by calibration): `--check-semantics` then compares the passes after it
    /// with its output instead of with its input.
    fn approximates(&self) -> bool {
        false
    }

    /// How many frames the functions the pass changes take after it (their arguments
    /// that many times over, their results likewise), each frame computed as before:
    /// a pipelined entry. `--check-semantics` then runs such a function as it was
    /// before the pass on each frame's inputs.
    fn frames(&self) -> usize {
        1
    }
}

/// The kind of value an option takes, for checking and `--list-passes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `true` or `false`.
    Bool,
    /// An integer.
    Int,
    /// Any text.
    String,
    /// One of these words.
    OneOf(&'static [&'static str]),
}

/// A declared pass option.
#[derive(Clone, Debug)]
pub struct PassOption {
    /// Its name, as in `canonicalize{max-iterations=3}`.
    pub name: &'static str,
    /// What it does.
    pub description: &'static str,
    /// Its kind.
    pub kind: OptionKind,
    /// The value when not given.
    pub default: &'static str,
}

/// Option values of one pass instance: every declared option, in declaration order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassOptions {
    values: Vec<(String, String)>,
}

impl PassOptions {
    /// Checks `given` (name and value pairs) against `declared` and fills in defaults.
    pub fn resolve(
        declared: &[PassOption],
        given: &[(String, Option<String>)],
    ) -> Result<PassOptions, String> {
        let mut values: Vec<(String, String)> = declared
            .iter()
            .map(|o| (o.name.to_string(), o.default.to_string()))
            .collect();
        for (name, value) in given {
            let Some(decl) = declared.iter().find(|o| o.name == name) else {
                let names: Vec<&str> = declared.iter().map(|o| o.name).collect();
                return Err(if names.is_empty() {
                    format!("unknown option '{name}': the pass takes no options")
                } else {
                    format!(
                        "unknown option '{name}'{}: expected one of {}",
                        acc_ir::suggest::did_you_mean(name, names.iter().copied()),
                        names.join(", ")
                    )
                });
            };
            let value = match (value, decl.kind) {
                (None, OptionKind::Bool) => "true".to_string(),
                (None, _) => return Err(format!("option '{name}' needs a value")),
                (Some(v), kind) => {
                    check_value(kind, v).map_err(|why| format!("option '{name}': {why}"))?;
                    v.clone()
                }
            };
            if let Some(slot) = values.iter_mut().find(|(n, _)| n == name) {
                slot.1 = value;
            }
        }
        Ok(PassOptions { values })
    }

    /// The value of option `name` (its default when not given).
    pub fn get(&self, name: &str) -> &str {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v.as_str())
    }

    /// An integer option.
    pub fn int(&self, name: &str) -> i64 {
        self.get(name).parse().unwrap_or(0)
    }

    /// A boolean option.
    pub fn flag(&self, name: &str) -> bool {
        self.get(name) == "true"
    }

    /// Every option and its value, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }
}

fn check_value(kind: OptionKind, v: &str) -> Result<(), String> {
    match kind {
        OptionKind::Bool if v == "true" || v == "false" => Ok(()),
        OptionKind::Bool => Err(format!("expected true or false, found '{v}'")),
        OptionKind::Int if v.parse::<i64>().is_ok() => Ok(()),
        OptionKind::Int => Err(format!("expected an integer, found '{v}'")),
        OptionKind::String => Ok(()),
        OptionKind::OneOf(words) if words.contains(&v) => Ok(()),
        OptionKind::OneOf(words) => {
            Err(format!("expected one of {}, found '{v}'", words.join(", ")))
        }
    }
}

/// Makes a pass from checked option values.
pub type PassConstructor = fn(&PassOptions) -> Result<Box<dyn Pass>, String>;

/// A registered pass.
#[derive(Clone)]
pub struct PassInfo {
    /// Its command-line name (`canonicalize`).
    pub name: &'static str,
    /// Its name in reports (`Canonicalizer`).
    pub title: &'static str,
    /// One line for `--list-passes`.
    pub summary: &'static str,
    /// The op it runs on, or `None` for any op.
    pub anchor: Option<&'static str>,
    /// Its options.
    pub options: Vec<PassOption>,
    /// Its constructor.
    pub create: PassConstructor,
}

/// Makes a registered pipeline's pass list from its checked option values.
pub type PipelineExpansion = fn(&PassOptions) -> String;

/// A pipeline registered by name (MLIR's `PassPipelineRegistration`): its name
/// stands for a pass list wherever a pass name may be written (`--pass NAME`,
/// `--pipeline NAME`, inside `--pass-pipeline=...`, and in other pipelines), with
/// options that the expansion reads.
#[derive(Clone)]
pub struct PipelineInfo {
    /// Its name (`host-pipeline`), which no pass has.
    pub name: &'static str,
    /// One line for `--list-pipelines`.
    pub summary: &'static str,
    /// Its options.
    pub options: Vec<PassOption>,
    /// The pass list it stands for, given its option values.
    pub expand: PipelineExpansion,
}

impl PipelineInfo {
    /// The pass list for `options` (resolved against [`PipelineInfo::options`]).
    pub fn expansion(&self, options: &PassOptions) -> String {
        (self.expand)(options)
    }

    /// The pass list with every option at its default.
    pub fn default_expansion(&self) -> String {
        let defaults = PassOptions::resolve(&self.options, &[]).unwrap_or_default();
        self.expansion(&defaults)
    }
}

/// The passes and named pipelines a tool knows, by name.
#[derive(Clone, Default)]
pub struct PassRegistry {
    passes: Vec<Arc<PassInfo>>,
    pipelines: Vec<Arc<PipelineInfo>>,
}

impl PassRegistry {
    /// Registers a pass (replacing one of the same name; a named pipeline of that
    /// name is a programming error, see [`PassRegistry::register_pipeline`]).
    pub fn register(&mut self, info: PassInfo) {
        debug_assert!(
            self.pipeline(info.name).is_none(),
            "pass '{}' has the name of a pipeline",
            info.name
        );
        self.passes.retain(|p| p.name != info.name);
        self.passes.push(Arc::new(info));
        self.passes.sort_by_key(|p| p.name);
    }

    /// Registers a named pipeline (replacing one of the same name). Passes and
    /// pipelines share one namespace (pipeline text resolves a pipeline's name first,
    /// so it would hide a pass of that name): registering both is a programming error.
    pub fn register_pipeline(&mut self, info: PipelineInfo) {
        debug_assert!(
            self.get(info.name).is_none(),
            "pipeline '{}' has the name of a pass",
            info.name
        );
        self.pipelines.retain(|p| p.name != info.name);
        self.pipelines.push(Arc::new(info));
        self.pipelines.sort_by_key(|p| p.name);
    }

    /// The named pipeline `name`.
    pub fn pipeline(&self, name: &str) -> Option<&Arc<PipelineInfo>> {
        self.pipelines.iter().find(|p| p.name == name)
    }

    /// Every named pipeline, by name.
    pub fn pipelines(&self) -> impl Iterator<Item = &Arc<PipelineInfo>> {
        self.pipelines.iter()
    }

    /// The names of the passes, then of the named pipelines.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.passes
            .iter()
            .map(|p| p.name)
            .chain(self.pipelines.iter().map(|p| p.name))
    }

    /// Whether `name` is a pass or a named pipeline.
    pub fn knows(&self, name: &str) -> bool {
        self.get(name).is_some() || self.pipeline(name).is_some()
    }
    /// The pass named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<PassInfo>> {
        self.passes.iter().find(|p| p.name == name)
    }
    /// Every pass, by name.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<PassInfo>> {
        self.passes.iter()
    }

    /// The `--list-passes` text: each pass, its anchor, summary and options, then
    /// the named pipelines ([`PassRegistry::describe_pipelines`]).
    pub fn describe(&self) -> String {
        let mut out = String::from("Passes:\n");
        for p in &self.passes {
            let anchor = p.anchor.unwrap_or("any op");
            out.push_str(&format!(
                "  {:<24} {} (runs on {anchor})\n",
                p.name, p.summary
            ));
            describe_options(&p.options, &mut out);
        }
        if !self.pipelines.is_empty() {
            out.push_str(&self.describe_pipelines());
        }
        out
    }

    /// The `--list-pipelines` text: each named pipeline, its summary, its options and
    /// the pass list it expands to with them at their defaults.
    pub fn describe_pipelines(&self) -> String {
        let mut out = String::from("Pipelines:\n");
        for p in &self.pipelines {
            out.push_str(&format!("  {:<24} {}\n", p.name, p.summary));
            describe_options(&p.options, &mut out);
            out.push_str(&format!("      = {}\n", p.default_expansion()));
        }
        out
    }
}

/// Appends the `--list-passes` lines of `options`.
fn describe_options(options: &[PassOption], out: &mut String) {
    for o in options {
        let kind = match o.kind {
            OptionKind::Bool => "bool".to_string(),
            OptionKind::Int => "int".to_string(),
            OptionKind::String => "string".to_string(),
            OptionKind::OneOf(w) => w.join("|"),
        };
        out.push_str(&format!(
            "      {:<22} {} ({kind}, default {})\n",
            o.name, o.description, o.default
        ));
    }
}

/// What a pass runs on: one op of the IR, with the context.
pub struct PassTarget<'a> {
    /// The context; interning works through `&Context`.
    pub ctx: &'a Context,
    /// The IR. A pass changes the op it runs on and what is nested in it, nothing else.
    pub ir: &'a mut Ir,
    /// The body holding the op.
    pub body: BodyId,
    /// The op the pass runs on.
    pub op: OpId,
    /// The targets of the compilation (`--target FILE`, repeatable), in order.
    pub targets: &'a Targets,
    /// Remarks and warnings for the user.
    pub diagnostics: Vec<Diagnostic>,
    /// Files the pass produces beside the IR (`view-graph`'s DOT): the tool writes
    /// them, with its own output, only when the whole pipeline succeeded.
    pub files: Vec<SideFile>,
    /// The pass's counters (`--mlir-pass-statistics`), added to with [`PassTarget::count`].
    pub statistics: Vec<Statistic>,
}

/// A counter a pass keeps, reported by `--mlir-pass-statistics` as MLIR's pass
/// statistics are: summed over every run of the pass.
#[derive(Clone, Debug, PartialEq)]
pub struct Statistic {
    /// Its name (`num-cse'd`).
    pub name: &'static str,
    /// What it counts.
    pub description: &'static str,
    /// The count.
    pub value: u64,
}

/// Adds `stat` into `into`, summing the counters of the same name.
pub fn add_statistic(into: &mut Vec<Statistic>, stat: &Statistic) {
    match into.iter_mut().find(|s| s.name == stat.name) {
        Some(s) => s.value += stat.value,
        None => into.push(stat.clone()),
    }
}

/// A file a pass produces beside the IR, written by the tool when the run succeeds.
#[derive(Clone, Debug, PartialEq)]
pub struct SideFile {
    /// Where it goes, as the user named it.
    pub path: std::path::PathBuf,
    /// Its contents.
    pub bytes: Vec<u8>,
}

/// The `target` option of a pass that consults one target of the compilation: its
/// name, or empty for the first one given ([`PassTarget::target`] resolves it).
pub fn target_option() -> PassOption {
    PassOption {
        name: "target",
        description: "the target to consult, by name (empty: the compilation's first, from the first --target FILE)",
        kind: OptionKind::String,
        default: "",
    }
}

impl PassTarget<'_> {
    /// Adds `n` to the pass's counter `name` (reported by `--mlir-pass-statistics`).
    pub fn count(&mut self, name: &'static str, description: &'static str, n: u64) {
        add_statistic(
            &mut self.statistics,
            &Statistic {
                name,
                description,
                value: n,
            },
        );
    }

    /// The target named by a pass's `target` option (`name`; empty for the first
    /// one), or an error at the op saying that `what` (the pass, say) needs one.
    pub fn target(&self, name: &str, what: &str) -> Result<Arc<Target>, Diagnostic> {
        self.targets.select(name).cloned().ok_or_else(|| {
            Diagnostic::error(
                acc_ir::DiagLoc::Loc(self.op_ref().loc()),
                self.targets.missing(name, what),
            )
        })
    }

    /// A handle on the op.
    pub fn op_ref(&self) -> OpRef<'_> {
        self.ir.op(self.body, self.op)
    }

    /// The bodies to work on, for a pass that works body by body: the one holding the
    /// op's regions (with those regions), then the body of every isolated op nested in
    /// it, in pre-order (with all its regions).
    pub fn bodies(&self) -> Vec<(BodyId, Vec<RegionId>)> {
        let first = self.ir.region_body(self.body, self.op);
        let mut out = vec![(first, self.op_ref().regions().to_vec())];
        self.ir.walk_nested(self.body, self.op, &mut |b, o| {
            if let Some(nested) = self.ir.body(b).nested_body(o) {
                out.push((nested, self.ir.body(nested).top_regions().to_vec()));
            }
        });
        out
    }

    /// The ops of every block of each body's regions ([`PassTarget::bodies`]), in
    /// order: a snapshot, so a pass may erase or add ops while it visits them.
    pub fn body_ops(&self) -> Vec<(BodyId, Vec<OpId>)> {
        self.bodies()
            .into_iter()
            .map(|(body, regions)| {
                let b = self.ir.body(body);
                let ops = regions
                    .iter()
                    .flat_map(|r| b.region_blocks(*r))
                    .flat_map(|block| b.block_ops(block))
                    .collect();
                (body, ops)
            })
            .collect()
    }
}
