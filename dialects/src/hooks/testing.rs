#![cfg(test)]
//! Test helpers for hooks: run the folder of one op of a small function.

use acc_ir::parser::parse_file;
use acc_ir::printer::attr_to_string;
use acc_ir::{EntityId, FoldResult, SourceMap};

/// Parses `body` as the body of `func.func @f(%arg0: i32, %arg1: f32, %arg2:
/// vector<2xi32>, %arg3: i32)`, folds the op carrying the unit attribute `fold`, and
/// prints each folded result: a constant as an attribute, a value as `%argN` or
/// `%result`. Constant operands are those defined by `arith.constant`.
pub(crate) fn fold_marked(body: &str) -> Vec<String> {
    let text = format!(
        "func.func @f(%arg0: i32, %arg1: f32, %arg2: vector<2xi32>, %arg3: i32) {{\n{body}\nreturn\n}}"
    );
    let mut ctx = crate::new_context();
    let mut sources = SourceMap::new();
    let file = sources.add("fold.mlir", text);
    let ir = parse_file(&mut ctx, &sources, file).expect("test IR parses");
    let mut marked = None;
    ir.walk_nested(ir.root_body, ir.root, &mut |b, o| {
        if ir.op(b, o).attr(&ctx, "fold").is_some() {
            marked = Some((b, o));
        }
    });
    let (b, o) = marked.expect("an op marked {fold}");
    let op = ir.op(b, o);
    let body = ir.body(b);
    let consts: Vec<_> = op
        .operands()
        .map(|v| match body.value(v).def {
            acc_ir::ValueDef::Result(def, _)
                if ctx.op_name_str(body.op(def).name) == "arith.constant" =>
            {
                ir.op(b, def).attr(&ctx, "value")
            }
            _ => None,
        })
        .collect();
    let def = ctx.op_def(op.name()).cloned().expect("registered op");
    let fold = def.fold.as_ref().expect("op has a folder");
    let Some(results) = fold(op, &consts, &mut ctx) else {
        return Vec::new();
    };
    results
        .into_iter()
        .map(|r| match r {
            FoldResult::Attr(a) => attr_to_string(&ctx, a),
            FoldResult::Value(v) => match body.value(v).def {
                acc_ir::ValueDef::BlockArg(_, i) => format!("%arg{i}"),
                _ => format!("%result{}", v.index()),
            },
        })
        .collect()
}
