//! A REPL session: the context, the source texts diagnostics point into, the passes,
//! and the timeline of modules. [`Session::execute`] runs one entry (a command or
//! pasted IR) and returns what to print.
//!
//! Invariant: every module in the timeline was verified (on load, and after each pass
//! by the pass manager); a failed command leaves the timeline as it was.

use acc_ir::printer::{PrintOptions, print_ir};
use acc_ir::{Context, Diagnostic, Ir, SourceMap, parser, verifier};
use acc_pass::PassRegistry;
use acc_target::Targets;

use super::apply::{self, Spelling};
use super::brackets::is_blank_or_comment;
use super::command::{self, Command};
use super::diff;
use super::listing;
use super::timeline::{Step, StepKind, Timeline};

/// What an entry printed, and how it ended.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Reply {
    /// For standard output.
    pub out: String,
    /// For standard error: diagnostics and error messages.
    pub err: String,
    /// The entry failed (in a script, the exit status is then non-zero).
    pub failed: bool,
    /// The session should end.
    pub quit: bool,
}

impl Reply {
    fn ok(out: impl Into<String>) -> Reply {
        Reply {
            out: out.into(),
            ..Reply::default()
        }
    }

    fn error(err: impl Into<String>) -> Reply {
        let mut err = err.into();
        if !err.ends_with('\n') {
            err.push('\n');
        }
        Reply {
            err,
            failed: true,
            ..Reply::default()
        }
    }
}

const NO_MODULE: &str = "error: no module yet: load one with :load FILE, or paste IR";

/// The state of a session.
pub struct Session {
    ctx: Context,
    sources: SourceMap,
    passes: PassRegistry,
    /// The targets passes lower for (`--target FILE`).
    targets: Targets,
    timeline: Timeline,
    /// Pasted entries so far, to name each `<input-N>`.
    pasted: usize,
    /// Threads for passes on functions.
    threads: usize,
}

impl Session {
    /// A session with acc's dialects (in `ctx`) and the passes of `passes`.
    pub fn new(ctx: Context, passes: PassRegistry) -> Session {
        Session {
            ctx,
            sources: SourceMap::new(),
            passes,
            targets: Targets::new(),
            timeline: Timeline::default(),
            pasted: 0,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// The context (for completion: its registered ops).
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The passes (for completion: their names).
    pub fn passes(&self) -> &PassRegistry {
        &self.passes
    }

    /// Loads the dialects defined in the file at `path` (`--dialect`); the error is
    /// the message or diagnostics to print.
    pub fn load_dialect(&mut self, path: &std::path::Path) -> Result<(), String> {
        let bytes = acc_ir::budget::read_file(path).map_err(|e| {
            format!(
                "error: cannot read dialect file '{}': {e}\n",
                path.display()
            )
        })?;
        let (file, not_utf8) = self.sources.add_bytes(&path.display().to_string(), bytes);
        if let Some(d) = not_utf8 {
            return Err(self.render(&[d]));
        }
        acc_dialects::lang::load_file(&mut self.ctx, &self.sources, file)
            .map(|_| ())
            .map_err(|diags| self.render(&diags))
    }

    /// Loads the target file at `path` (`--target`): its target joins the ones passes
    /// lower for; the error is the message or diagnostics to print.
    pub fn load_target(&mut self, path: &std::path::Path) -> Result<(), String> {
        let bytes = acc_ir::budget::read_file(path)
            .map_err(|e| format!("error: cannot read target file '{}': {e}\n", path.display()))?;
        let (file, not_utf8) = self.sources.add_bytes(&path.display().to_string(), bytes);
        if let Some(d) = not_utf8 {
            return Err(self.render(&[d]));
        }
        crate::target_file::load_target(
            &mut self.ctx,
            &self.sources,
            file,
            &mut self.targets,
            &self.passes,
        )
        .map_err(|diags| self.render(&diags))
    }

    /// Runs one entry: a `:` command, or IR that replaces the current module. Blank and
    /// comment-only entries do nothing.
    pub fn execute(&mut self, entry: &str) -> Reply {
        let trimmed = entry.trim_start();
        if trimmed.starts_with(':') {
            match command::parse(trimmed) {
                Ok(c) => self.run_command(c),
                Err(e) => Reply::error(format!("error: {e}")),
            }
        } else if is_blank_or_comment(entry) {
            Reply::default()
        } else {
            self.pasted += 1;
            let name = format!("<input-{}>", self.pasted);
            self.load_text(&name, entry.as_bytes().to_vec())
        }
    }

    fn run_command(&mut self, c: Command<'_>) -> Reply {
        match c {
            Command::Load(path) => {
                // File-name completion escapes spaces: `my\ file.mlir`.
                let path = path.replace("\\ ", " ");
                match acc_ir::budget::read_file(path.as_ref()) {
                    Ok(bytes) => self.load_text(&path, bytes),
                    Err(e) => Reply::error(format!("error: cannot read '{path}': {e}")),
                }
            }
            Command::Print { generic } => self.print(generic),
            Command::Pass(list) => self.transform(Spelling::PassList(list)),
            Command::Pipeline(text) => self.transform(Spelling::Pipeline(text)),
            Command::Undo => match self.timeline.undo() {
                Some(s) => Reply::ok(format!("undid {}\n", describe(s))),
                None => Reply::error("error: nothing to undo"),
            },
            Command::Redo => match self.timeline.redo() {
                Some(s) => Reply::ok(format!("redid {}\n", describe(s))),
                None => Reply::error("error: nothing to redo"),
            },
            Command::Diff => self.diff(),
            Command::Verify => self.verify(),
            Command::Passes => Reply::ok(self.passes.describe()),
            Command::Ops(filter) => self.ops(filter),
            Command::Suggest => self.suggest(),
            Command::Help => Reply::ok(command::help()),
            Command::Quit => Reply {
                quit: true,
                ..Reply::default()
            },
        }
    }

    fn render(&self, diags: &[Diagnostic]) -> String {
        self.sources.render(&self.ctx, diags)
    }

    /// Parses and verifies `bytes` (named `name` in diagnostics) as the new module.
    fn load_text(&mut self, name: &str, bytes: Vec<u8>) -> Reply {
        let ir = match self.parse_and_verify(name, bytes) {
            Ok(ir) => ir,
            Err(diags) => {
                let mut r = Reply::error(self.render(&diags));
                if self.timeline.current().is_some() {
                    r.err.push_str("error: the current module is unchanged\n");
                }
                return r;
            }
        };
        self.timeline.record(Step {
            ir,
            label: name.to_string(),
            kind: StepKind::Load,
        });
        Reply::ok(format!("loaded {name}\n"))
    }

    fn parse_and_verify(&mut self, name: &str, bytes: Vec<u8>) -> Result<Ir, Vec<Diagnostic>> {
        let (file, not_utf8) = self.sources.add_bytes(name, bytes);
        if let Some(d) = not_utf8 {
            return Err(vec![d]);
        }
        let ir = parser::parse_file(&mut self.ctx, &self.sources, file).map_err(|d| vec![d])?;
        verifier::verify(&self.ctx, &ir)?;
        Ok(ir)
    }

    fn current(&self) -> Result<&Ir, Reply> {
        self.timeline
            .current()
            .map(|s| &s.ir)
            .ok_or_else(|| Reply::error(NO_MODULE))
    }

    fn print(&self, generic: bool) -> Reply {
        match self.current() {
            Ok(ir) => Reply::ok(print_ir(
                &self.ctx,
                ir,
                &PrintOptions {
                    generic,
                    ..Default::default()
                },
            )),
            Err(r) => r,
        }
    }

    fn transform(&mut self, spelling: Spelling<'_>) -> Reply {
        let ir = match self.current() {
            Ok(ir) => ir,
            Err(r) => return r,
        };
        let pipeline = match apply::build(spelling, &self.passes) {
            Ok(p) => p,
            Err(rendered) => return Reply::error(rendered),
        };
        let label = match spelling {
            Spelling::PassList(t) | Spelling::Pipeline(t) => t.to_string(),
        };
        let applied = match apply::apply(&pipeline, &self.ctx, &self.targets, ir, self.threads) {
            Ok(a) => a,
            Err(diags) => {
                let mut r = Reply::error(self.render(&diags));
                r.err.push_str(&format!(
                    "error: '{label}' failed; the module is unchanged\n"
                ));
                return r;
            }
        };
        if let Err(e) = crate::output::write_side_files(&applied.files) {
            return Reply::error(format!("error: {e}; the module is unchanged\n"));
        }
        let print = PrintOptions::default();
        let before = print_ir(&self.ctx, ir, &print);
        let after = print_ir(&self.ctx, &applied.ir, &print);
        let mut reply = if before == after {
            Reply::ok(format!("{label}: no change\n"))
        } else {
            let counts = diff::line_counts(&before, &after);
            self.timeline.record(Step {
                ir: applied.ir,
                label: label.clone(),
                kind: StepKind::Transform,
            });
            Reply::ok(format!(
                "{label}: changed the module ({counts}); :diff shows how, :undo reverts it\n"
            ))
        };
        reply.err = self.render(&applied.diagnostics);
        reply
    }

    fn diff(&self) -> Reply {
        let Some(step) = self.timeline.current() else {
            return Reply::error(NO_MODULE);
        };
        if step.kind == StepKind::Load {
            return Reply::ok(format!(
                "no pass has changed the module since {} was loaded\n",
                step.label
            ));
        }
        let Some(previous) = self.timeline.previous() else {
            return Reply::ok(format!(
                "the module before '{}' is no longer kept\n",
                step.label
            ));
        };
        let print = PrintOptions::default();
        Reply::ok(diff::unified(
            &print_ir(&self.ctx, &previous.ir, &print),
            &print_ir(&self.ctx, &step.ir, &print),
            &format!("before {}", step.label),
            &format!("after {}", step.label),
        ))
    }

    fn verify(&self) -> Reply {
        match self.current() {
            Ok(ir) => match verifier::verify(&self.ctx, ir) {
                Ok(()) => Reply::ok("the module verifies\n"),
                Err(diags) => Reply::error(self.render(&diags)),
            },
            Err(r) => r,
        }
    }

    fn ops(&self, filter: Option<&str>) -> Reply {
        match listing::ops(&self.ctx, filter) {
            Some(text) => Reply::ok(text),
            None => Reply::error(format!(
                "error: no registered op matches '{}'",
                filter.unwrap_or("")
            )),
        }
    }

    fn suggest(&self) -> Reply {
        let ir = match self.current() {
            Ok(ir) => ir,
            Err(r) => return r,
        };
        match apply::suggest(&self.passes, &self.ctx, &self.targets, ir, self.threads) {
            Ok(found) => Reply::ok(listing::suggestions(&found)),
            Err(why) => Reply::error(format!("error: :suggest {why}; the module is unchanged\n")),
        }
    }
}

/// How `:undo` and `:redo` name a step.
fn describe(step: &Step) -> String {
    match step.kind {
        StepKind::Load => format!("loading {}", step.label),
        StepKind::Transform => format!("'{}'", step.label),
    }
}
