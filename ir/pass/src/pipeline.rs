//! Pass pipelines: the tree of passes nested under the ops they run on, read from
//! MLIR's textual syntax (`builtin.module(func.func(canonicalize,cse))`, parsed with
//! pest, `pipeline.pest`) or from a plain pass list (`canonicalize,cse{...}`, nested by
//! each pass's anchor), and printed back in MLIR's syntax with every option spelled
//! out, so that printing then parsing gives the same pipeline.

use std::sync::Arc;

use pest::Parser as _;
use pest::iterators::Pair;

use crate::{Pass, PassInfo, PassOptions, PassRegistry};

/// The pest grammar, in a private module (its generated `Rule` enum is not API).
mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "pipeline.pest"]
    pub(super) struct PipelineGrammar;
}
use grammar::{PipelineGrammar, Rule};

/// One pass of a pipeline, with its options.
#[derive(Clone)]
pub struct PassInstance {
    /// What it is.
    pub info: Arc<PassInfo>,
    /// Its option values.
    pub options: PassOptions,
    /// The pass itself.
    pub pass: Arc<dyn Pass>,
}

/// A step of a pipeline.
#[derive(Clone)]
pub enum Element {
    /// Run this pass on the pipeline's op.
    Pass(PassInstance),
    /// Run this pipeline on each op nested (one level down) in the pipeline's op whose
    /// name is its anchor.
    Nested(Pipeline),
}

/// Passes to run on ops named `anchor` (`any` for every op).
#[derive(Clone)]
pub struct Pipeline {
    /// The op name, or `any`.
    pub anchor: String,
    /// The steps, in order.
    pub elements: Vec<Element>,
}

/// A pipeline mistake: the message and the byte range in the pipeline text.
pub type PipelineError = (String, std::ops::Range<usize>);

impl Pipeline {
    /// Reads `builtin.module(func.func(canonicalize,cse))`.
    pub fn parse(text: &str, registry: &PassRegistry) -> Result<Pipeline, PipelineError> {
        let mut pairs = PipelineGrammar::parse(Rule::pipeline, text).map_err(syntax_error)?;
        let root = pairs
            .next()
            .and_then(|p| p.into_inner().next())
            .ok_or_else(|| ("empty pipeline".to_string(), 0..0))?;
        let p = op_pipeline(root, registry)?;
        p.check_anchors()?;
        Ok(p)
    }

    /// Reads a pass list, `canonicalize,cse{...}`, and nests it under
    /// `builtin.module`: passes that run on `builtin.module` at the top, the others in
    /// `func.func(...)` groups (passes that run on any op included, so that they run
    /// once per function, in parallel), or in a group of their own anchor. A
    /// registered pipeline's name stands for the passes it expands to.
    pub fn from_pass_list(text: &str, registry: &PassRegistry) -> Result<Pipeline, PipelineError> {
        let passes = flat_pass_list(text, registry, 0)?;
        Ok(Pipeline {
            anchor: "builtin.module".to_string(),
            elements: nest_in_module(passes),
        })
    }

    /// The pipeline as one-pass pipelines, each nested as its pass is here, in the
    /// order the passes run. Running them one after another gives the same IR as
    /// running the whole pipeline, since a pass changes only the op it runs on.
    pub fn steps(&self) -> Vec<Pipeline> {
        let mut out = Vec::new();
        for e in &self.elements {
            match e {
                Element::Pass(p) => out.push(Pipeline {
                    anchor: self.anchor.clone(),
                    elements: vec![Element::Pass(p.clone())],
                }),
                Element::Nested(n) => out.extend(n.steps().into_iter().map(|s| Pipeline {
                    anchor: self.anchor.clone(),
                    elements: vec![Element::Nested(s)],
                })),
            }
        }
        out
    }

    /// The name of the first pass of the pipeline, if any.
    pub fn first_pass_name(&self) -> Option<&'static str> {
        self.elements.iter().find_map(|e| match e {
            Element::Pass(p) => Some(p.info.name),
            Element::Nested(n) => n.first_pass_name(),
        })
    }

    /// Checks that each pass runs on its pipeline's op.
    fn check_anchors(&self) -> Result<(), PipelineError> {
        for e in &self.elements {
            match e {
                Element::Pass(p) => {
                    if let Some(a) = p.info.anchor
                        && a != self.anchor
                    {
                        return Err((
                            format!(
                                "pass '{}' runs on '{a}', but is nested under '{}'",
                                p.info.name, self.anchor
                            ),
                            0..0,
                        ));
                    }
                }
                Element::Nested(n) => n.check_anchors()?,
            }
        }
        Ok(())
    }

    /// MLIR's textual form, every option spelled out.
    pub fn to_text(&self) -> String {
        let mut out = format!("{}(", self.anchor);
        for (i, e) in self.elements.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match e {
                Element::Pass(p) => {
                    out.push_str(p.info.name);
                    let opts: Vec<String> = p
                        .options
                        .iter()
                        .map(|(n, v)| format!("{n}={}", option_text(v)))
                        .collect();
                    if !opts.is_empty() {
                        out.push('{');
                        out.push_str(&opts.join(" "));
                        out.push('}');
                    }
                }
                Element::Nested(n) => out.push_str(&n.to_text()),
            }
        }
        out.push(')');
        out
    }

    /// The passes of the pipeline, depth first.
    pub fn passes(&self) -> Vec<&PassInstance> {
        let mut out = Vec::new();
        for e in &self.elements {
            match e {
                Element::Pass(p) => out.push(p),
                Element::Nested(n) => out.extend(n.passes()),
            }
        }
        out
    }
}

/// An option value as pipeline text: quoted when it is empty or holds what would end
/// it (whitespace, `}`), so that the printed pipeline parses back.
fn option_text(v: &str) -> String {
    if v.is_empty() || v.contains(|c: char| c.is_whitespace() || c == '}') {
        format!("\"{v}\"")
    } else {
        v.to_string()
    }
}

fn syntax_error(e: pest::error::Error<Rule>) -> PipelineError {
    let range = match e.location {
        pest::error::InputLocation::Pos(p) => p..p,
        pest::error::InputLocation::Span((a, b)) => a..b,
    };
    let expected = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } if !positives.is_empty() => {
            let names: Vec<String> = positives
                .iter()
                .map(|r| format!("{r:?}").replace('_', " "))
                .collect();
            format!(": expected {}", names.join(" or "))
        }
        _ => String::new(),
    };
    (format!("invalid pass pipeline{expected}"), range)
}

/// How deep registered pipelines may expand into one another: deeper is a pipeline
/// that names itself, directly or not.
const MAX_EXPANSION_DEPTH: usize = 16;

/// The passes of a pass list, registered pipelines expanded, in order.
fn flat_pass_list(
    text: &str,
    registry: &PassRegistry,
    depth: usize,
) -> Result<Vec<PassInstance>, PipelineError> {
    let pairs = PipelineGrammar::parse(Rule::pass_list, text).map_err(syntax_error)?;
    let mut out = Vec::new();
    for pair in pairs.flatten().filter(|p| p.as_rule() == Rule::pass) {
        out.extend(pass_or_pipeline(pair, registry, depth)?);
    }
    Ok(out)
}

/// `passes` as the elements of a `builtin.module` pipeline: module passes as they
/// are, runs of other passes in a group of their anchor (`func.func` for any op).
fn nest_in_module(passes: Vec<PassInstance>) -> Vec<Element> {
    let mut elements: Vec<Element> = Vec::new();
    for instance in passes {
        let group = match instance.info.anchor {
            Some("builtin.module") => {
                elements.push(Element::Pass(instance));
                continue;
            }
            None | Some("func.func") => "func.func",
            Some(other) => other,
        };
        match elements.last_mut() {
            Some(Element::Nested(p)) if p.anchor == group => {
                p.elements.push(Element::Pass(instance))
            }
            _ => elements.push(Element::Nested(Pipeline {
                anchor: group.to_string(),
                elements: vec![Element::Pass(instance)],
            })),
        }
    }
    elements
}

fn op_pipeline(pair: Pair<'_, Rule>, registry: &PassRegistry) -> Result<Pipeline, PipelineError> {
    let mut inner = pair.into_inner();
    let anchor = inner
        .next()
        .map(|a| a.as_str().to_string())
        .unwrap_or_default();
    let mut elements = Vec::new();
    for e in inner {
        match e.as_rule() {
            Rule::op_pipeline => elements.push(Element::Nested(op_pipeline(e, registry)?)),
            _ => {
                let is_pipeline = e
                    .clone()
                    .into_inner()
                    .next()
                    .is_some_and(|n| registry.pipeline(n.as_str()).is_some());
                let passes = pass_or_pipeline(e, registry, 0)?;
                // A pipeline named in a module's list nests as a pass list would.
                if is_pipeline && anchor == "builtin.module" {
                    elements.extend(nest_in_module(passes));
                } else {
                    elements.extend(passes.into_iter().map(Element::Pass));
                }
            }
        }
    }
    Ok(Pipeline { anchor, elements })
}

/// The option pairs written after a pass or pipeline name.
fn given_options(options: Option<Pair<'_, Rule>>) -> Vec<(String, Option<String>)> {
    let mut given = Vec::new();
    for o in options.into_iter().flat_map(|o| o.into_inner()) {
        let mut parts = o.into_inner();
        let key = parts
            .next()
            .map(|k| k.as_str().to_string())
            .unwrap_or_default();
        let value = parts
            .next()
            .map(|v| v.as_str().trim_matches('"').to_string());
        given.push((key, value));
    }
    given
}

/// A pass, or the passes a registered pipeline of that name expands to (`depth`:
/// the expansions this one is nested in).
fn pass_or_pipeline(
    pair: Pair<'_, Rule>,
    registry: &PassRegistry,
    depth: usize,
) -> Result<Vec<PassInstance>, PipelineError> {
    let span = pair.as_span().start()..pair.as_span().end();
    let mut inner = pair.into_inner();
    let name_pair = inner
        .next()
        .ok_or_else(|| ("expected a pass name".to_string(), span.clone()))?;
    let name = name_pair.as_str();
    let name_span = name_pair.as_span().start()..name_pair.as_span().end();
    let given = given_options(inner.next());
    if let Some(pipeline) = registry.pipeline(name) {
        if depth >= MAX_EXPANSION_DEPTH {
            return Err((format!("pipeline '{name}' expands into itself"), name_span));
        }
        let options = PassOptions::resolve(&pipeline.options, &given)
            .map_err(|m| (format!("pipeline '{name}': {m}"), span.clone()))?;
        let text = pipeline.expansion(&options);
        return flat_pass_list(&text, registry, depth + 1)
            .map_err(|(m, _)| (format!("pipeline '{name}' (`{text}`): {m}"), span));
    }
    let info = registry.get(name).cloned().ok_or_else(|| {
        (
            format!(
                "unknown pass '{name}'{} (see --list-passes)",
                acc_ir::suggest::did_you_mean(name, registry.names())
            ),
            name_span,
        )
    })?;
    let options = PassOptions::resolve(&info.options, &given)
        .map_err(|m| (format!("pass '{name}': {m}"), span.clone()))?;
    let pass = (info.create)(&options).map_err(|m| (format!("pass '{name}': {m}"), span))?;
    Ok(vec![PassInstance {
        info,
        options,
        pass: Arc::from(pass),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{OptionKind, PassInfo, PassOption, PassTarget, PipelineInfo};
    use acc_ir::Diagnostic;

    struct Nothing;
    impl Pass for Nothing {
        fn run(&self, _: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
            Ok(())
        }
    }

    fn pass(name: &'static str, anchor: Option<&'static str>) -> PassInfo {
        PassInfo {
            name,
            title: name,
            summary: "",
            anchor,
            options: vec![PassOption {
                name: "file",
                description: "",
                kind: OptionKind::String,
                default: "",
            }],
            create: |_| Ok(Box::new(Nothing)),
        }
    }

    fn registry() -> PassRegistry {
        let mut r = PassRegistry::default();
        r.register(pass("fn-pass", Some("func.func")));
        r.register(pass("any-pass", None));
        r.register(pass("module-pass", Some("builtin.module")));
        r.register_pipeline(PipelineInfo {
            name: "inner",
            summary: "",
            options: vec![PassOption {
                name: "with-module",
                description: "",
                kind: OptionKind::Bool,
                default: "false",
            }],
            expand: |o| {
                if o.flag("with-module") {
                    "fn-pass,module-pass".to_string()
                } else {
                    "fn-pass".to_string()
                }
            },
        });
        r.register_pipeline(PipelineInfo {
            name: "outer",
            summary: "",
            options: Vec::new(),
            expand: |_| "any-pass,inner{with-module=true},fn-pass{file=\"a b\"}".to_string(),
        });
        r.register_pipeline(PipelineInfo {
            name: "loop",
            summary: "",
            options: Vec::new(),
            expand: |_| "fn-pass,loop".to_string(),
        });
        r
    }

    #[test]
    fn named_pipelines_expand_where_passes_are_written() {
        let r = registry();
        let p = Pipeline::from_pass_list("outer", &r).expect("expands");
        assert_eq!(
            p.to_text(),
            "builtin.module(func.func(any-pass{file=\"\"},fn-pass{file=\"\"}),module-pass{file=\"\"},func.func(fn-pass{file=\"a b\"}))"
        );
        // In MLIR's syntax, under the module, a pipeline nests as a pass list would.
        let q = Pipeline::parse("builtin.module(outer)", &r).expect("expands");
        assert_eq!(q.to_text(), p.to_text());
        // Under a function, its module pass is refused.
        let err = Pipeline::parse("builtin.module(func.func(inner{with-module=true}))", &r)
            .err()
            .expect("module pass under a function");
        assert!(err.0.contains("runs on 'builtin.module'"), "{}", err.0);
    }

    #[test]
    fn printed_pipelines_parse_back_identically() {
        let r = registry();
        let p = Pipeline::from_pass_list("outer,inner", &r).expect("expands");
        let text = p.to_text();
        let again = Pipeline::parse(&text, &r).expect("printed text parses");
        assert_eq!(again.to_text(), text);
    }

    #[test]
    fn pipeline_mistakes_are_errors() {
        let r = registry();
        let (m, _) = Pipeline::from_pass_list("loop", &r)
            .err()
            .expect("recursion");
        assert!(m.contains("expands into itself"), "{m}");
        let (m, span) = Pipeline::from_pass_list("fn-pass,inner{bogus=1}", &r)
            .err()
            .expect("bad option");
        assert!(
            m.contains("pipeline 'inner': unknown option 'bogus'"),
            "{m}"
        );
        assert_eq!(span, 8..22);
    }
}
