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
    /// once per function, in parallel), or in a group of their own anchor.
    pub fn from_pass_list(text: &str, registry: &PassRegistry) -> Result<Pipeline, PipelineError> {
        let pairs = PipelineGrammar::parse(Rule::pass_list, text).map_err(syntax_error)?;
        let mut root = Pipeline {
            anchor: "builtin.module".to_string(),
            elements: Vec::new(),
        };
        for pair in pairs.flatten().filter(|p| p.as_rule() == Rule::pass) {
            let instance = pass(pair, registry)?;
            let group = match instance.info.anchor {
                Some("builtin.module") => {
                    root.elements.push(Element::Pass(instance));
                    continue;
                }
                None | Some("func.func") => "func.func",
                Some(other) => other,
            };
            match root.elements.last_mut() {
                Some(Element::Nested(p)) if p.anchor == group => {
                    p.elements.push(Element::Pass(instance))
                }
                _ => root.elements.push(Element::Nested(Pipeline {
                    anchor: group.to_string(),
                    elements: vec![Element::Pass(instance)],
                })),
            }
        }
        Ok(root)
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
                    let opts: Vec<String> =
                        p.options.iter().map(|(n, v)| format!("{n}={v}")).collect();
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

fn op_pipeline(pair: Pair<'_, Rule>, registry: &PassRegistry) -> Result<Pipeline, PipelineError> {
    let mut inner = pair.into_inner();
    let anchor = inner
        .next()
        .map(|a| a.as_str().to_string())
        .unwrap_or_default();
    let mut elements = Vec::new();
    for e in inner {
        elements.push(match e.as_rule() {
            Rule::op_pipeline => Element::Nested(op_pipeline(e, registry)?),
            _ => Element::Pass(pass(e, registry)?),
        });
    }
    Ok(Pipeline { anchor, elements })
}

fn pass(pair: Pair<'_, Rule>, registry: &PassRegistry) -> Result<PassInstance, PipelineError> {
    let span = pair.as_span().start()..pair.as_span().end();
    let mut inner = pair.into_inner();
    let name_pair = inner
        .next()
        .ok_or_else(|| ("expected a pass name".to_string(), span.clone()))?;
    let name = name_pair.as_str();
    let name_span = name_pair.as_span().start()..name_pair.as_span().end();
    let info = registry.get(name).cloned().ok_or_else(|| {
        (
            format!("unknown pass '{name}' (see --list-passes)"),
            name_span,
        )
    })?;
    let mut given = Vec::new();
    if let Some(options) = inner.next() {
        for o in options.into_inner() {
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
    }
    let options = PassOptions::resolve(&info.options, &given)
        .map_err(|m| (format!("pass '{name}': {m}"), span.clone()))?;
    let pass = (info.create)(&options).map_err(|m| (format!("pass '{name}': {m}"), span))?;
    Ok(PassInstance {
        info,
        options,
        pass: Arc::from(pass),
    })
}
