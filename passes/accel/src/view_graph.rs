//! `view-graph`: writes the data flow of every function as a Graphviz DOT graph, each
//! op a node filled with the colour of the device `partition` placed it on (the
//! host's ops white), each value an edge from the op computing it to its users.
//! The IR is unchanged. `view-graph{file=F}` writes F (`-`: standard error), and
//! `dot -Tsvg F` renders it. The file is required, so that trying every pass (the
//! REPL's `:suggest`) never writes a graph.

use std::fmt::Write as _;

use acc_dialects::ops::{builtin, func};
use acc_ir::{BodyId, Context, DiagLoc, Diagnostic, Ir, OpId, ValueDef};
use acc_pass::{OptionKind, Pass, PassInfo, PassOption, PassOptions, PassTarget};
use rustc_hash::FxHashMap;

use acc_target::placement::placement;

/// Fill colours of the devices, in the target's declaration order after the host.
const PALETTE: [&str; 6] = [
    "#8ecae6", "#ffb703", "#90be6d", "#f28482", "#cdb4db", "#f9c74f",
];

/// The pass.
pub struct ViewGraph {
    file: String,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "view-graph",
        title: "ViewGraph",
        summary: "Write each function's data flow as Graphviz DOT, ops coloured by the device they are placed on",
        anchor: Some(builtin::Module::NAME),
        options: vec![PassOption {
            name: "file",
            description: "where to write the graph ('-': standard error); required",
            kind: OptionKind::String,
            default: "",
        }],
        create: |o: &PassOptions| {
            let file = o.get("file");
            if file.is_empty() {
                return Err("view-graph needs file=PATH ('-' for standard error)".into());
            }
            Ok(Box::new(ViewGraph {
                file: file.to_string(),
            }))
        },
    }
}

impl Pass for ViewGraph {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let mut colours: FxHashMap<String, &str> = FxHashMap::default();
        let others = t
            .targets
            .iter()
            .flat_map(|target| &target.devices)
            .filter(|d| d.kind != "host");
        for (d, c) in others.zip(PALETTE.iter().cycle()) {
            colours.entry(d.name.clone()).or_insert(c);
        }
        let mut dot = String::new();
        for (body, _) in t.bodies() {
            let is_function =
                t.ir.body(body)
                    .owner()
                    .is_some_and(|(outer, f)| func::Func::is(t.ctx, t.ir.op(outer, f)));
            if is_function {
                function_graph(t.ctx, t.ir, body, &colours, &mut dot);
            }
        }
        let written = if self.file == "-" {
            eprint!("{dot}");
            Ok(())
        } else {
            std::fs::write(&self.file, dot)
        };
        written.map_err(|e| {
            Diagnostic::error(
                DiagLoc::Loc(t.op_ref().loc()),
                format!("view-graph: cannot write '{}': {e}", self.file),
            )
        })
    }
}

/// Appends the graph of the function whose body is `body`.
fn function_graph(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    colours: &FxHashMap<String, &str>,
    out: &mut String,
) {
    let b = ir.body(body);
    let name = b
        .owner()
        .and_then(|(outer, f)| ir.op(outer, f).attr(ctx, func::Func::ATTR_SYM_NAME))
        .map(|a| acc_ir::printer::attr_to_string(ctx, a))
        .unwrap_or_else(|| "\"function\"".into());
    let _ = writeln!(out, "digraph {name} {{");
    let _ = writeln!(
        out,
        "  node [shape=box, style=\"rounded,filled\", fillcolor=white];"
    );
    let mut node_of: FxHashMap<OpId, usize> = FxHashMap::default();
    let mut ops = Vec::new();
    for region in b.top_regions() {
        for block in b.region_blocks(*region) {
            for (i, a) in b.block_args(block).iter().enumerate() {
                let ty = acc_ir::printer::type_to_string(ctx, b.value_type(*a));
                let _ = writeln!(out, "  arg{i} [shape=ellipse, label=\"%arg{i}\\n{ty}\"];");
            }
            ops.extend(b.block_ops(block));
        }
    }
    for (n, op) in ops.iter().enumerate() {
        node_of.insert(*op, n);
        let op_name = ctx.op_name_str(b.op(*op).name);
        let ty = b
            .results(*op)
            .next()
            .map(|v| acc_ir::printer::type_to_string(ctx, b.value_type(v)))
            .unwrap_or_default();
        let (fill, device) = match placement(ctx, ir, body, *op) {
            Some((device, intrinsic)) => (
                colours.get(&device).copied().unwrap_or(PALETTE[0]),
                format!("\\n{intrinsic} on {device}"),
            ),
            None => ("white", String::new()),
        };
        let label = format!("{op_name}{device}\\n{ty}").replace('"', "\\\"");
        let _ = writeln!(out, "  op{n} [label=\"{label}\", fillcolor=\"{fill}\"];");
    }
    for (n, op) in ops.iter().enumerate() {
        for v in b.operands(*op) {
            match b.value(v).def {
                ValueDef::Result(def, _) => {
                    if let Some(m) = node_of.get(&def) {
                        let _ = writeln!(out, "  op{m} -> op{n};");
                    }
                }
                ValueDef::BlockArg(_, i) => {
                    let _ = writeln!(out, "  arg{i} -> op{n};");
                }
                _ => {}
            }
        }
    }
    let _ = writeln!(out, "}}");
}
