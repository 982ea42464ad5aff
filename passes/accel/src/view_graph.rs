//! `view-graph`: writes the data flow of every function as a Graphviz DOT graph, each
//! op a node filled with the colour of the device `partition` placed it on (the
//! host's ops white), each value an edge from the op computing it to its users.
//! The ops of a region (connected by the values they pass, on one device other than
//! the host) are drawn in a box of their own; a value crossing between devices (the
//! host's arguments and ops included) is a bold red edge labelled with its bytes: a
//! transfer.
//! The IR is unchanged. `view-graph{file=F}` hands F to the tool, which writes it with
//! its own output once the whole pipeline succeeded (`-`: standard error, at once), and
//! `dot -Tsvg F` renders it. The file is required, so that trying every pass (the
//! REPL's `:suggest`) never writes a graph.

use std::fmt::Write as _;

use acc_dialects::ops::{builtin, func};
use acc_ir::{BodyId, Context, Diagnostic, Ir, OpId, ValueDef};
use acc_pass::{OptionKind, Pass, PassInfo, PassOption, PassOptions, PassTarget};
use rustc_hash::FxHashMap;

use acc_target::placement::{code_device, placement};

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
        if self.file == "-" {
            eprint!("{dot}");
        } else {
            // Written by the tool with its output, once the whole pipeline succeeded.
            t.files.push(acc_pass::SideFile {
                path: self.file.clone().into(),
                bytes: dot.into_bytes(),
            });
        }
        Ok(())
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
    let mut devices: Vec<Option<String>> = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    for (n, op) in ops.iter().enumerate() {
        node_of.insert(*op, n);
        let op_name = ctx.op_name_str(b.op(*op).name);
        let ty = b
            .results(*op)
            .next()
            .map(|v| acc_ir::printer::type_to_string(ctx, b.value_type(v)))
            .unwrap_or_default();
        let (fill, device) = match (
            placement(ctx, ir, body, *op),
            code_device(ctx, ir, body, *op),
        ) {
            (Some((device, intrinsic)), _) => (
                colours.get(&device).copied().unwrap_or(PALETTE[0]),
                Some((device, intrinsic)),
            ),
            (None, Some(device)) => (
                colours.get(&device).copied().unwrap_or(PALETTE[0]),
                Some((device, "code".to_string())),
            ),
            (None, None) => ("white", None),
        };
        let on = device
            .as_ref()
            .map(|(d, how)| format!("\\n{how} on {d}"))
            .unwrap_or_default();
        let label = format!("{op_name}{on}\\n{ty}").replace('"', "\\\"");
        labels.push(format!(
            "  op{n} [label=\"{label}\", fillcolor=\"{fill}\"];"
        ));
        devices.push(device.map(|(d, _)| d));
    }
    // Regions: the ops of one device connected by the values they pass.
    let mut region: Vec<usize> = (0..ops.len()).collect();
    fn root(r: &mut [usize], mut i: usize) -> usize {
        while r[i] != i {
            r[i] = r[r[i]];
            i = r[i];
        }
        i
    }
    for (n, op) in ops.iter().enumerate() {
        for v in b.operands(*op) {
            if let ValueDef::Result(def, _) = b.value(v).def
                && let Some(&m) = node_of.get(&def)
                && devices[m].is_some()
                && devices[m] == devices[n]
            {
                let (a, c) = (root(&mut region, m), root(&mut region, n));
                region[a.max(c)] = a.min(c);
            }
        }
    }
    let mut clusters: Vec<(usize, Vec<usize>)> = Vec::new();
    for n in 0..ops.len() {
        if devices[n].is_none() {
            let _ = writeln!(out, "{}", labels[n]);
            continue;
        }
        let r = root(&mut region, n);
        match clusters.iter_mut().find(|(k, _)| *k == r) {
            Some((_, members)) => members.push(n),
            None => clusters.push((r, vec![n])),
        }
    }
    for (k, (_, members)) in clusters.iter().enumerate() {
        let device = devices[members[0]].as_deref().unwrap_or_default();
        let _ = writeln!(out, "  subgraph cluster_{k} {{");
        let _ = writeln!(out, "    label=\"region {} on {device}\";", k + 1);
        for n in members {
            let _ = writeln!(out, "  {}", labels[*n]);
        }
        let _ = writeln!(out, "  }}");
    }
    for (n, op) in ops.iter().enumerate() {
        for v in b.operands(*op) {
            let bytes = tensor_bytes(ctx, b.value_type(v));
            let (from, crossing) = match b.value(v).def {
                ValueDef::Result(def, _) => match node_of.get(&def) {
                    Some(m) => (format!("op{m}"), devices[*m] != devices[n]),
                    None => continue,
                },
                ValueDef::BlockArg(_, i) => (format!("arg{i}"), devices[n].is_some()),
                _ => continue,
            };
            if crossing && bytes > 0 {
                let _ = writeln!(
                    out,
                    "  {from} -> op{n} [color=\"#d00000\", penwidth=2, label=\"{bytes} B\"];"
                );
            } else {
                let _ = writeln!(out, "  {from} -> op{n};");
            }
        }
    }
    let _ = writeln!(out, "}}");
}

/// The bytes of a tensor or buffer of static shape (0 for anything else).
fn tensor_bytes(ctx: &Context, ty: acc_ir::TypeId) -> u64 {
    use acc_ir::TypeData;
    let (shape, element) = match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, element, .. } | TypeData::MemRef { shape, element, .. } => {
            (shape, *element)
        }
        _ => return 0,
    };
    let bits = match ctx.type_data(element) {
        TypeData::Float(k) => u64::from(k.width()),
        TypeData::Integer { width, .. } => u64::from(*width),
        TypeData::QuantUniform(q) => u64::from(q.storage_width),
        _ => return 0,
    };
    shape
        .iter()
        .try_fold(1u64, |n, d| n.checked_mul(u64::try_from(*d).ok()?))
        .and_then(|n| n.checked_mul(bits.div_ceil(8)))
        .unwrap_or(0)
}
