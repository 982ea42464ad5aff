//! One function as C: its declaration, its static arena, and its body, op by op.

mod launch;
mod vector;

use std::fmt::Write as _;

use acc_dialects::hooks::func::{ARENA_SECTION, ARENA_SECTIONS};
use acc_dialects::hooks::hw::{HEADERS_ATTR, is_plain_c_string};
use acc_dialects::ops::{arith, func, hw, loops, math};
use acc_ir::{
    BlockId, BodyId, Context, DiagLoc, Diagnostic, Ir, OpId, OpRef, TypeData, TypeId, ValueId,
};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::expr::{CType, ScalarOp, expression, literal, scalar_of};

/// Which op an op is, for emitting it: by dialect.
enum Kind {
    Scalar(ScalarOp),
    Func(func::Op),
    Loop(loops::Op),
    Hw(hw::Op),
    Other,
}

impl Kind {
    fn of(ctx: &Context, op: OpRef<'_>) -> Kind {
        if let Some(s) = ScalarOp::of(ctx, op) {
            Kind::Scalar(s)
        } else if let Some(k) = func::Op::of(ctx, op) {
            Kind::Func(k)
        } else if let Some(k) = loops::Op::of(ctx, op) {
            Kind::Loop(k)
        } else if let Some(k) = hw::Op::of(ctx, op) {
            Kind::Hw(k)
        } else {
            Kind::Other
        }
    }
}

/// What the functions of a module share: the constants (for `weights.h`), the
/// library functions called, and whether `<math.h>` is needed.
#[derive(Default)]
pub(crate) struct Shared {
    /// Whether some function calls the C library's math.
    pub uses_libm: bool,
    /// The functions of the target's library the code calls (`hw.intrinsic` callees,
    /// DMA functions): name, return type and parameter types, in first-use order.
    pub externs: Vec<(String, &'static str, Vec<String>)>,
    /// The definitions of the constant buffers.
    pub constants: Vec<String>,
    /// The name of the buffer holding each constant value defined so far: ops with
    /// the same (interned) value share one buffer.
    pub constant_names: std::collections::HashMap<acc_ir::AttrId, String>,
    /// The headers declaring the library functions called (`hw.headers` of the
    /// calls, from the target's `header "..."`), in first-use order: `model.c`
    /// includes them instead of declaring those functions.
    pub headers: Vec<String>,
    /// The work functions of the launches, in order.
    pub launches: Vec<LaunchC>,
    /// Launches so far (their numbers).
    pub launch_count: usize,
    /// File-scope definitions of `model.c` (launch arguments, events).
    pub statics: Vec<String>,
    /// The functions external compilers built (`hw.intrinsic` with `compiler`), in
    /// first-use order.
    pub externals: Vec<crate::external::Built>,
}

/// A launch's work function.
pub(crate) struct LaunchC {
    /// The device whose C file it goes to; `None`: it runs on the host (`model.c`).
    pub device: Option<String>,
    /// Its argument struct and prototype (for `model.h`).
    pub declaration: String,
    /// Its definition.
    pub definition: String,
}

/// A function's declaration (for the header) and definition.
pub(crate) struct FunctionC {
    pub declaration: String,
    pub definition: String,
}

/// A value as C holds it.
#[derive(Clone, Debug)]
enum Val {
    /// A C expression (a variable or a literal) of a scalar type.
    Scalar(String, CType),
    /// A variable of a GNU C vector type: its element type and lanes
    /// ([`vector`]).
    Vector(String, CType, usize),
    /// A pointer to the first element, with the element type, shape and strides
    /// (in elements).
    Memref {
        ptr: String,
        elem: CType,
        shape: Vec<i64>,
        strides: Vec<i64>,
    },
}

fn fail(op: OpRef<'_>, m: impl Into<String>) -> Diagnostic {
    Diagnostic::error(DiagLoc::Loc(op.loc()), m.into())
}

/// The shape and strides (in elements) of memref type `ty`, static ones only.
fn layout(ctx: &Context, ty: TypeId) -> Result<(CType, Vec<i64>, Vec<i64>), String> {
    let TypeData::MemRef { shape, element, .. } = ctx.type_data(ty) else {
        return Err("expects a memref".into());
    };
    if shape.iter().any(|d| *d < 0) {
        return Err(format!(
            "{} has a dynamic size",
            acc_ir::printer::type_to_string(ctx, ty)
        ));
    }
    let (strides, _) = acc_dialects::hooks::loops::memref_strides(ctx, ty)?;
    if strides.iter().any(|s| *s < 0) {
        return Err("dynamic strides are not supported by the C back end".into());
    }
    Ok((CType::of(ctx, *element)?, shape.to_vec(), strides))
}

/// Emits function `func` (an op of `module`).
pub(crate) fn emit_function(
    ctx: &Context,
    ir: &Ir,
    module: BodyId,
    func: OpId,
    shared: &mut Shared,
) -> Result<FunctionC, Diagnostic> {
    let f = ir.op(module, func);
    let name = f
        .attr(ctx, func::Func::ATTR_SYM_NAME)
        .and_then(|a| match ctx.attr_data(a) {
            acc_ir::AttrData::String { value, .. } => Some(ctx.str(*value).to_string()),
            _ => None,
        })
        .ok_or_else(|| fail(f, "a function without a name"))?;
    let name = c_name(&name).map_err(|m| fail(f, m))?;
    let Some(body) = ir.body(module).nested_body(func) else {
        return Err(fail(
            f,
            format!("@{name} has no body (declarations have no C yet)"),
        ));
    };
    let b = ir.body(body);
    let blocks: Vec<BlockId> = b
        .top_regions()
        .iter()
        .flat_map(|r| b.region_blocks(*r).collect::<Vec<_>>())
        .collect();
    let [block] = blocks[..] else {
        return Err(fail(
            f,
            format!("@{name} has several blocks: the C back end takes structured loops only"),
        ));
    };
    let fn_type = f
        .attr(ctx, func::Func::ATTR_FUNCTION_TYPE)
        .and_then(|a| match ctx.attr_data(a) {
            acc_ir::AttrData::Type(t) => Some(*t),
            _ => None,
        })
        .ok_or_else(|| fail(f, "a function without a type"))?;
    let TypeData::Function { inputs, results } = ctx.type_data(fn_type) else {
        return Err(fail(f, "a function type was expected"));
    };
    let arena = ctx
        .dict_get(f.attrs(), acc_dialects::hooks::func::ARENA_SIZE)
        .and_then(|a| scalar_of(ctx, a))
        .map_or(0, |v| match v {
            acc_ir::elements::Scalar::Int(i) => i as i64,
            acc_ir::elements::Scalar::Float(x) => x as i64,
        });
    let mut e = FnEmitter {
        ctx,
        ir,
        body,
        shared,
        out: String::new(),
        indent: 1,
        values: FxHashMap::default(),
        next: 0,
        arena_name: format!("acc_arena_{name}"),
        results: results.to_vec(),
        in_result: FxHashMap::default(),
        dead: dead_ops(ctx, ir, body),
        events: FxHashMap::default(),
    };
    let mut params = Vec::new();
    for (i, (a, ty)) in b.block_args(block).iter().zip(inputs.iter()).enumerate() {
        let v = match ctx.type_data(*ty) {
            TypeData::MemRef { .. } => {
                let (elem, shape, strides) = layout(ctx, *ty).map_err(|m| fail(f, m))?;
                params.push(format!("const {} *acc_arg{i}", elem.name()));
                Val::Memref {
                    ptr: format!("(({} *)acc_arg{i})", elem.name()),
                    elem,
                    shape,
                    strides,
                }
            }
            _ => {
                let t = CType::of(ctx, *ty).map_err(|m| fail(f, m))?;
                params.push(format!("{} acc_arg{i}", t.name()));
                Val::Scalar(format!("acc_arg{i}"), t)
            }
        };
        e.values.insert(*a, v);
    }
    for (i, ty) in results.iter().enumerate() {
        let t = match ctx.type_data(*ty) {
            TypeData::MemRef { element, .. } => CType::of(ctx, *element),
            _ => CType::of(ctx, *ty),
        }
        .map_err(|m| fail(f, m))?;
        params.push(format!("{} *acc_result{i}", t.name()));
    }
    e.find_results_built_in_place(block);
    e.block(block, None)?;
    let signature = format!(
        "void {name}({})",
        if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        }
    );
    let mut shapes = String::new();
    for (i, t) in inputs.iter().enumerate() {
        let _ = write!(
            shapes,
            "\n * acc_arg{i}: {}",
            acc_ir::printer::type_to_string(ctx, *t)
        );
    }
    let sizes = acc_dialects::hooks::func::result_sizes(ctx, f).map_err(|m| fail(f, &m))?;
    for (i, t) in results.iter().enumerate() {
        let note =
            acc_dialects::hooks::func::result_size_note(&sizes, i, &|s| format!("acc_result{s}"));
        let _ = write!(
            shapes,
            "\n * acc_result{i}: {}{note}",
            acc_ir::printer::type_to_string(ctx, *t)
        );
    }
    let mut definition = String::new();
    let host_section = string_attr(ctx, ctx.dict_get(f.attrs(), ARENA_SECTION));
    if arena > 0 {
        let _ = writeln!(
            definition,
            "/* @{name}'s buffers, at the offsets memory-plan gave them. */\nstatic uint8_t {}[{arena}] {};\n",
            e.arena_name,
            arena_attributes(host_section.as_deref()),
        );
    }
    let sections = ctx.dict_get(f.attrs(), ARENA_SECTIONS);
    for (space, bytes) in space_arenas(ctx, f) {
        let section = sections.and_then(|d| string_attr(ctx, ctx.dict_get(d, &space)));
        let _ = writeln!(
            definition,
            "/* @{name}'s buffers in memory \"{space}\". */\nstatic uint8_t {}[{bytes}] {};\n",
            arena_of(&e.arena_name, &space),
            arena_attributes(section.as_deref()),
        );
    }
    let _ = write!(definition, "{signature} {{\n{}}}\n", e.out);
    Ok(FunctionC {
        declaration: format!("/* @{name}{shapes}\n */\n{signature};\n"),
        definition,
    })
}

/// The attributes of an arena: 64-byte alignment, and the linker section the target
/// gives its memory.
fn arena_attributes(section: Option<&str>) -> String {
    match section {
        Some(s) => format!("__attribute__((aligned(64), section(\"{s}\")))"),
        None => "__attribute__((aligned(64)))".to_string(),
    }
}

/// The text of a string attribute.
fn string_attr(ctx: &Context, a: Option<acc_ir::AttrId>) -> Option<String> {
    match ctx.attr_data(a?) {
        acc_ir::AttrData::String { value, .. } => Some(ctx.str(*value).to_string()),
        _ => None,
    }
}

/// The arena of a function's buffers in memory `space`.
fn arena_of(host_arena: &str, space: &str) -> String {
    let clean: String = space
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("{host_arena}_{clean}")
}

/// The arenas `memory-plan` gave function `f` in memories other than the host's
/// (`loop.arena_sizes`): each memory's name and bytes.
fn space_arenas(ctx: &Context, f: OpRef<'_>) -> Vec<(String, i64)> {
    let Some(dict) = ctx.dict_get(f.attrs(), acc_dialects::hooks::func::ARENA_SIZES) else {
        return Vec::new();
    };
    ctx.dict_entries(dict)
        .iter()
        .filter_map(|(k, v)| {
            let bytes = match scalar_of(ctx, *v)? {
                acc_ir::elements::Scalar::Int(i) => i64::try_from(i).ok()?,
                acc_ir::elements::Scalar::Float(_) => return None,
            };
            Some((ctx.str(*k).to_string(), bytes))
        })
        .collect()
}

/// Emits the ops of one function body.
struct FnEmitter<'a> {
    ctx: &'a Context,
    ir: &'a Ir,
    body: BodyId,
    shared: &'a mut Shared,
    out: String,
    indent: usize,
    values: FxHashMap<ValueId, Val>,
    next: usize,
    arena_name: String,
    results: Vec<TypeId>,
    /// Buffers built in the caller's result buffer: the `loop.alloc` result to the
    /// result's index.
    in_result: FxHashMap<ValueId, usize>,
    /// Ops computing values nothing reads, even indirectly: not emitted (C
    /// compilers warn about unused variables).
    dead: FxHashSet<OpId>,
    /// The event of each launch token: `None` for a launch run where it is issued.
    events: FxHashMap<ValueId, Option<String>>,
}

impl FnEmitter<'_> {
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A new local variable: `acc_` names are never IR functions' C names.
    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("acc_{prefix}{}", self.next)
    }

    fn get(&self, op: OpRef<'_>, v: ValueId) -> Result<Val, Diagnostic> {
        self.values
            .get(&v)
            .cloned()
            .ok_or_else(|| fail(op, "an operand defined where the C back end cannot see it"))
    }

    fn scalar(&self, op: OpRef<'_>, v: ValueId) -> Result<(String, CType), Diagnostic> {
        match self.get(op, v)? {
            Val::Scalar(x, t) => Ok((x, t)),
            _ => Err(fail(op, "expects a scalar operand")),
        }
    }

    fn memref(
        &self,
        op: OpRef<'_>,
        v: ValueId,
    ) -> Result<(String, CType, Vec<i64>, Vec<i64>), Diagnostic> {
        match self.get(op, v)? {
            Val::Memref {
                ptr,
                elem,
                shape,
                strides,
            } => Ok((ptr, elem, shape, strides)),
            _ => Err(fail(op, "expects a memref operand")),
        }
    }

    /// The returned buffers (directly, or through `loop.reshape`s) that are static
    /// `loop.alloc`s without an arena offset, each returned once: built in the
    /// caller's buffer for that result.
    fn find_results_built_in_place(&mut self, block: BlockId) {
        let b = self.ir.body(self.body);
        let Some(last) = b.block_ops(block).last() else {
            return;
        };
        if !func::Return::is(self.ctx, self.ir.op(self.body, last)) {
            return;
        }
        let returned: Vec<ValueId> = b.operands(last).collect();
        for (i, v) in returned.iter().enumerate() {
            let root = self.alloc_root(*v);
            let Some(root) = root else { continue };
            let once = returned
                .iter()
                .filter(|w| self.alloc_root(**w) == Some(root))
                .count()
                == 1;
            if once {
                self.in_result.insert(root, i);
            }
        }
    }

    /// The `loop.alloc` (static, without an offset, in the function's block) whose
    /// buffer `v` is, through `loop.reshape`s.
    fn alloc_root(&self, mut v: ValueId) -> Option<ValueId> {
        let b = self.ir.body(self.body);
        loop {
            let acc_ir::ValueDef::Result(def, _) = b.value(v).def else {
                return None;
            };
            let op = self.ir.op(self.body, def);
            match loops::Op::of(self.ctx, op) {
                Some(loops::Op::Reshape) => v = op.operands().next()?,
                Some(loops::Op::Alloc)
                    if op.operands().next().is_none()
                        && op.attr(self.ctx, loops::Alloc::ATTR_OFFSET).is_none() =>
                {
                    return Some(v);
                }
                _ => return None,
            }
        }
    }

    /// Emits the ops of `block`; `carried` names the variables a `loop.yield` ends
    /// it by assigning.
    fn block(&mut self, block: BlockId, carried: Option<&[String]>) -> Result<(), Diagnostic> {
        let ops: Vec<OpId> = self.ir.body(self.body).block_ops(block).collect();
        for id in ops {
            self.op(id, carried)?;
        }
        Ok(())
    }

    fn op(&mut self, id: OpId, carried: Option<&[String]>) -> Result<(), Diagnostic> {
        let op = self.ir.op(self.body, id);
        let name = self.ctx.op_name_str(op.name()).to_string();
        let operands: Vec<ValueId> = op.operands().collect();
        let results: Vec<ValueId> = op.results().collect();
        let result_types = op.result_types().to_vec();
        if self.dead.contains(&id) {
            return Ok(());
        }
        match Kind::of(self.ctx, op) {
            Kind::Scalar(ScalarOp::Arith(arith::Op::Constant)) => {
                let t = CType::of(self.ctx, result_types[0]).map_err(|m| fail(op, m))?;
                let value = op
                    .attr(self.ctx, arith::Constant::ATTR_VALUE)
                    .and_then(|a| scalar_of(self.ctx, a))
                    .ok_or_else(|| fail(op, "a constant without a scalar value"))?;
                self.values
                    .insert(results[0], Val::Scalar(literal(t, value), t));
            }
            Kind::Scalar(scalar) => {
                let predicate = match scalar {
                    ScalarOp::Arith(arith::Op::Cmpi) => Some(arith::Cmpi::ATTR_PREDICATE),
                    ScalarOp::Arith(arith::Op::Cmpf) => Some(arith::Cmpf::ATTR_PREDICATE),
                    _ => None,
                }
                .and_then(|n| op.attr(self.ctx, n))
                .and_then(|a| scalar_of(self.ctx, a))
                .map(|v| match v {
                    acc_ir::elements::Scalar::Int(i) => i as i64,
                    acc_ir::elements::Scalar::Float(x) => x as i64,
                });
                if vector::vector_type(self.ctx, result_types[0]).is_some() {
                    let result = (results[0], result_types[0]);
                    return self.lane_op(op, scalar, &operands, result, predicate);
                }
                let mut xs = Vec::new();
                let mut ts = Vec::new();
                for v in &operands {
                    let (x, t) = self.scalar(op, *v)?;
                    xs.push(x);
                    ts.push(t);
                }
                let out = CType::of(self.ctx, result_types[0]).map_err(|m| fail(op, m))?;
                let mut libm = false;
                let x = expression(scalar, &xs, &ts, out, predicate, &mut libm)
                    .map_err(|m| fail(op, m))?;
                self.shared.uses_libm |= libm;
                let v = self.fresh("v");
                self.line(&format!("const {} {v} = {x};", out.name()));
                self.values.insert(results[0], Val::Scalar(v, out));
            }
            Kind::Func(func::Op::Return) => self.ret(op, &operands)?,
            Kind::Func(func::Op::Call) => self.call(op, &operands, &results, &result_types)?,
            Kind::Loop(loops::Op::Yield) => {
                let targets = carried.unwrap_or(&[]);
                if targets.len() != operands.len() {
                    return Err(fail(
                        op,
                        "yields a different number of values than the loop carries",
                    ));
                }
                // Through temporaries: a yielded value may be another carried one.
                let mut temps = Vec::new();
                for v in &operands {
                    let (x, t, lanes) = self.carried(op, *v)?;
                    let tmp = self.fresh("y");
                    self.line(&format!(
                        "const {} = {x};",
                        vector::variable(t, lanes, &tmp)
                    ));
                    temps.push(tmp);
                }
                for (target, tmp) in targets.iter().zip(temps) {
                    self.line(&format!("{target} = {tmp};"));
                }
            }
            Kind::Loop(loops::Op::For) => self.for_loop(op, &operands, &results)?,
            Kind::Loop(loops::Op::Parallel) => self.parallel(op, &operands)?,
            Kind::Loop(loops::Op::Load) => {
                let (ptr, elem, _, strides) = self.memref(op, operands[0])?;
                let at = self.offset(op, &operands[1..], &strides)?;
                let v = self.fresh("v");
                self.line(&format!("const {} {v} = {ptr}[{at}];", elem.name()));
                self.values.insert(results[0], Val::Scalar(v, elem));
            }
            Kind::Loop(loops::Op::Store) => {
                let (x, _) = self.scalar(op, operands[0])?;
                let (ptr, _, _, strides) = self.memref(op, operands[1])?;
                let at = self.offset(op, &operands[2..], &strides)?;
                self.line(&format!("{ptr}[{at}] = {x};"));
            }
            Kind::Loop(loops::Op::Splat) => {
                self.splat(op, &operands, (results[0], result_types[0]))?
            }
            Kind::Loop(loops::Op::Vload) => {
                self.vload(op, &operands, (results[0], result_types[0]))?
            }
            Kind::Loop(loops::Op::Vstore) => self.vstore(op, &operands)?,
            Kind::Loop(loops::Op::Vreduce) => self.vreduce(op, &operands, results[0])?,
            Kind::Loop(loops::Op::Alloc) => self.alloc(op, results[0], result_types[0])?,
            Kind::Loop(loops::Op::Dealloc) => {}
            Kind::Loop(loops::Op::Constant) => self.constant(op, results[0], result_types[0])?,
            Kind::Loop(loops::Op::Reshape) => {
                let (ptr, _, _, strides) = self.memref(op, operands[0])?;
                if !is_row_major(&self.memref(op, operands[0])?.2, &strides) {
                    return Err(fail(op, "reshapes a buffer that is not contiguous"));
                }
                let (elem, shape, strides) =
                    layout(self.ctx, result_types[0]).map_err(|m| fail(op, m))?;
                let init = format!("({} *){ptr}", elem.name());
                let b = self.ir.body(self.body);
                let only_returned = b.value_users(results[0]).next().is_some()
                    && b.value_users(results[0])
                        .all(|u| func::Return::is(self.ctx, self.ir.op(self.body, u)));
                if only_returned {
                    // No variable: a result built in place never reads it.
                    let ptr = format!("({init})");
                    let view = Val::Memref {
                        ptr,
                        elem,
                        shape,
                        strides,
                    };
                    self.values.insert(results[0], view);
                } else {
                    self.bind_memref(results[0], elem, shape, strides, &init);
                }
            }
            Kind::Loop(loops::Op::Subview) => {
                self.subview(op, &operands, results[0], result_types[0])?
            }
            Kind::Loop(loops::Op::Copy) => {
                let (src, _, shape, s_strides) = self.memref(op, operands[0])?;
                let (dst, _, _, d_strides) = self.memref(op, operands[1])?;
                self.nest(&shape, &mut |e, ivs| {
                    let from = index_expr(ivs, &s_strides);
                    let to = index_expr(ivs, &d_strides);
                    e.line(&format!("{dst}[{to}] = {src}[{from}];"));
                });
            }
            Kind::Hw(hw::Op::Intrinsic) => self.intrinsic(op, &operands)?,
            Kind::Hw(hw::Op::DmaStart) => self.dma_start(op, &operands, results[0])?,
            Kind::Hw(hw::Op::DmaWait) => self.dma_wait(op, &operands)?,
            Kind::Hw(hw::Op::Launch) => self.launch(op, &operands, results[0])?,
            Kind::Hw(hw::Op::Wait) => self.wait(op, &operands)?,
            // The end of a launch's region (the work function returns).
            Kind::Hw(hw::Op::Yield) if operands.is_empty() => {}
            _ => {
                // Say what lowers the op, for the ops of the levels above loops.
                let run = match name.split('.').next() {
                    Some("graph") => {
                        ": lower the network first (acc-opt --pipeline host-pipeline, or \
                         --target FILE --pipeline target)"
                    }
                    Some("tensor") => {
                        ": bufferize the tensor ops first (acc-opt --pass bufferize, or the \
                         whole --pipeline host-pipeline)"
                    }
                    _ => "",
                };
                return Err(fail(
                    op,
                    format!(
                        "no C for '{name}' (the C back end takes loop, arith, math, func, hw.intrinsic, DMA and launch ops){run}"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Declares `T *mN = init;` for the buffer `result`.
    fn bind_memref(
        &mut self,
        result: ValueId,
        elem: CType,
        shape: Vec<i64>,
        strides: Vec<i64>,
        init: &str,
    ) {
        let v = self.fresh("m");
        self.line(&format!("{} *{v} = {init};", elem.name()));
        self.values.insert(
            result,
            Val::Memref {
                ptr: v,
                elem,
                shape,
                strides,
            },
        );
    }

    /// `Σ index_k * stride_k` of the index operands.
    fn offset(
        &self,
        op: OpRef<'_>,
        indices: &[ValueId],
        strides: &[i64],
    ) -> Result<String, Diagnostic> {
        let mut ivs = Vec::new();
        for v in indices {
            ivs.push(self.scalar(op, *v)?.0);
        }
        Ok(index_expr(&ivs, strides))
    }

    /// Nested `for` loops over `shape`, `body` given the index variables.
    fn nest(&mut self, shape: &[i64], body: &mut dyn FnMut(&mut Self, &[String])) {
        let mut ivs = Vec::new();
        for n in shape {
            let i = self.fresh("i");
            self.line(&format!("for (int64_t {i} = 0; {i} < {n}; {i}++) {{"));
            self.indent += 1;
            ivs.push(i);
        }
        body(self, &ivs);
        for _ in shape {
            self.indent -= 1;
            self.line("}");
        }
    }

    fn for_loop(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        results: &[ValueId],
    ) -> Result<(), Diagnostic> {
        let (lb, _) = self.scalar(op, operands[0])?;
        let (ub, _) = self.scalar(op, operands[1])?;
        let (step, _) = self.scalar(op, operands[2])?;
        let mut carried = Vec::new();
        let mut kinds = Vec::new();
        for v in &operands[3..] {
            let (x, t, lanes) = self.carried(op, *v)?;
            let c = self.fresh("c");
            self.line(&format!("{} = {x};", vector::variable(t, lanes, &c)));
            kinds.push(self.get(op, *v)?);
            carried.push(c);
        }
        let block = self.region_block(op)?;
        let params = self.ir.body(self.body).block_args(block).to_vec();
        if params.len() != 1 + carried.len() {
            return Err(fail(op, "its region takes a different number of arguments"));
        }
        let i = self.fresh("i");
        self.line(&loop_header(&i, &lb, &ub, &step));
        self.indent += 1;
        self.values
            .insert(params[0], Val::Scalar(i, CType::Int(64)));
        for ((p, c), k) in params[1..].iter().zip(&carried).zip(&kinds) {
            self.values.insert(*p, vector::renamed(k, c));
        }
        self.block(block, Some(&carried))?;
        self.indent -= 1;
        self.line("}");
        for ((r, c), k) in results.iter().zip(&carried).zip(&kinds) {
            self.values.insert(*r, vector::renamed(k, c));
        }
        Ok(())
    }

    fn parallel(&mut self, op: OpRef<'_>, operands: &[ValueId]) -> Result<(), Diagnostic> {
        let n = operands.len() / 3;
        let block = self.region_block(op)?;
        let params = self.ir.body(self.body).block_args(block).to_vec();
        if params.len() != n {
            return Err(fail(op, "its region takes a different number of arguments"));
        }
        for d in 0..n {
            let (lb, _) = self.scalar(op, operands[d])?;
            let (ub, _) = self.scalar(op, operands[n + d])?;
            let (step, _) = self.scalar(op, operands[2 * n + d])?;
            let i = self.fresh("i");
            self.line(&loop_header(&i, &lb, &ub, &step));
            self.indent += 1;
            self.values
                .insert(params[d], Val::Scalar(i, CType::Int(64)));
        }
        self.block(block, Some(&[]))?;
        for _ in 0..n {
            self.indent -= 1;
            self.line("}");
        }
        Ok(())
    }

    fn region_block(&self, op: OpRef<'_>) -> Result<BlockId, Diagnostic> {
        op.regions()
            .first()
            .and_then(|r| self.ir.body(self.body).entry_block(*r))
            .ok_or_else(|| fail(op, "has no region"))
    }

    fn alloc(&mut self, op: OpRef<'_>, result: ValueId, ty: TypeId) -> Result<(), Diagnostic> {
        let (elem, shape, strides) = layout(self.ctx, ty).map_err(|m| fail(op, m))?;
        let offset = op
            .attr(self.ctx, loops::Alloc::ATTR_OFFSET)
            .and_then(|a| scalar_of(self.ctx, a));
        let ptr = match (offset, self.in_result.get(&result)) {
            (Some(o), _) => {
                let o = match o {
                    acc_ir::elements::Scalar::Int(i) => i,
                    acc_ir::elements::Scalar::Float(x) => x as i128,
                };
                let arena = match acc_dialects::hooks::hw::memory_space(self.ctx, ty) {
                    Some(space) => arena_of(&self.arena_name, space),
                    None => self.arena_name.clone(),
                };
                format!("({} *)({arena} + {o})", elem.name())
            }
            (None, Some(i)) => format!("({} *)acc_result{i}", elem.name()),
            (None, None) => {
                return Err(fail(
                    op,
                    "a buffer without a place: run memory-plan first (the C back end allocates nothing at run time)",
                ));
            }
        };
        self.bind_memref(result, elem, shape, strides, &ptr);
        Ok(())
    }

    fn constant(&mut self, op: OpRef<'_>, result: ValueId, ty: TypeId) -> Result<(), Diagnostic> {
        let (elem, shape, strides) = layout(self.ctx, ty).map_err(|m| fail(op, m))?;
        let value = op
            .attr(self.ctx, loops::Constant::ATTR_VALUE)
            .ok_or_else(|| fail(op, "a constant without a value"))?;
        let name = match self.shared.constant_names.get(&value) {
            Some(name) => name.clone(),
            None => {
                let name = self
                    .define_constant(ty, elem, value)
                    .map_err(|m| fail(op, m))?;
                self.shared.constant_names.insert(value, name.clone());
                name
            }
        };
        self.bind_memref(
            result,
            elem,
            shape,
            strides,
            &format!("({} *){name}", elem.name()),
        );
        Ok(())
    }

    /// Defines a `weights.h` buffer holding `value` (of buffer type `ty`) and returns
    /// its name.
    fn define_constant(
        &mut self,
        ty: TypeId,
        elem: CType,
        value: acc_ir::AttrId,
    ) -> Result<String, String> {
        let t = acc_interp::Tensor::from_attr(self.ctx, value)?;
        let name = format!("acc_weights_{}", self.shared.constants.len());
        let mut text = format!(
            "/* {} */\nstatic const {} {name}[{}] __attribute__((aligned(64))) = {{",
            acc_ir::printer::type_to_string(self.ctx, ty),
            elem.name(),
            t.data.len().max(1)
        );
        for (i, v) in t.data.iter().enumerate() {
            if i % 8 == 0 {
                text.push_str("\n    ");
            }
            text.push_str(&literal(elem, *v));
            text.push_str(", ");
        }
        text.push_str("\n};\n");
        self.shared.constants.push(text);
        Ok(name)
    }

    fn subview(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        result: ValueId,
        ty: TypeId,
    ) -> Result<(), Diagnostic> {
        let (ptr, _, _, src_strides) = self.memref(op, operands[0])?;
        let attrs = acc_dialects::hooks::attr_read::Attrs::of_op(self.ctx, op);
        let offsets = attrs
            .ints(loops::Subview::ATTR_STATIC_OFFSETS)
            .map_err(|m| fail(op, m))?
            .ok_or_else(|| {
                fail(
                    op,
                    format!("requires '{}'", loops::Subview::ATTR_STATIC_OFFSETS),
                )
            })?;
        let mut dynamic = operands[1..].iter();
        let mut terms = Vec::new();
        for (d, off) in offsets.iter().enumerate() {
            if acc_dialects::hooks::attr_read::is_dyn(*off) {
                let v = dynamic
                    .next()
                    .ok_or_else(|| fail(op, "missing a dynamic offset"))?;
                let (x, _) = self.scalar(op, *v)?;
                terms.push(format!("{x} * {}", src_strides[d]));
            } else if *off != 0 {
                terms.push(format!("{}", off * src_strides[d]));
            }
        }
        let (elem, shape, strides) = layout(self.ctx, ty).map_err(|m| fail(op, m))?;
        let at = if terms.is_empty() {
            "0".to_string()
        } else {
            terms.join(" + ")
        };
        self.bind_memref(result, elem, shape, strides, &format!("{ptr} + ({at})"));
        Ok(())
    }

    fn ret(&mut self, op: OpRef<'_>, operands: &[ValueId]) -> Result<(), Diagnostic> {
        if operands.len() != self.results.len() {
            return Err(fail(
                op,
                "returns a different number of values than declared",
            ));
        }
        for (i, v) in operands.iter().enumerate() {
            match self.get(op, *v)? {
                Val::Scalar(x, _) => self.line(&format!("*acc_result{i} = {x};")),
                Val::Memref { .. }
                    if self.alloc_root(*v).and_then(|r| self.in_result.get(&r)) == Some(&i) => {}
                Val::Memref {
                    ptr,
                    shape,
                    strides,
                    ..
                } => {
                    let dense = row_major(&shape);
                    self.nest(&shape, &mut |e, ivs| {
                        let from = index_expr(ivs, &strides);
                        let to = index_expr(ivs, &dense);
                        e.line(&format!("acc_result{i}[{to}] = {ptr}[{from}];"));
                    });
                }
                Val::Vector(..) => return Err(fail(op, "returns a vector")),
            }
        }
        self.line("return;");
        Ok(())
    }

    fn call(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        results: &[ValueId],
        types: &[TypeId],
    ) -> Result<(), Diagnostic> {
        let callee = op
            .attr(self.ctx, func::Call::ATTR_CALLEE)
            .and_then(|c| match self.ctx.attr_data(c) {
                acc_ir::AttrData::SymbolRef { root, .. } => Some(self.ctx.str(*root).to_string()),
                _ => None,
            })
            .ok_or_else(|| fail(op, "a call without a callee"))?;
        let mut args = Vec::new();
        for v in operands {
            args.push(match self.get(op, *v)? {
                Val::Scalar(x, _) => x,
                Val::Memref { ptr, .. } => ptr,
                Val::Vector(..) => return Err(fail(op, "passes a vector to a call")),
            });
        }
        for (r, ty) in results.iter().zip(types) {
            let t = CType::of(self.ctx, *ty)
                .map_err(|_| fail(op, "calls returning buffers have no C yet"))?;
            let v = self.fresh("r");
            self.line(&format!("{} {v};", t.name()));
            args.push(format!("&{v}"));
            self.values.insert(*r, Val::Scalar(v, t));
        }
        let callee = c_name(&callee).map_err(|m| fail(op, m))?;
        self.line(&format!("{callee}({});", args.join(", ")));
        Ok(())
    }

    fn intrinsic(&mut self, op: OpRef<'_>, operands: &[ValueId]) -> Result<(), Diagnostic> {
        let callee = op
            .attr(self.ctx, hw::Intrinsic::ATTR_CALLEE)
            .and_then(|c| match self.ctx.attr_data(c) {
                acc_ir::AttrData::String { value, .. } => Some(self.ctx.str(*value).to_string()),
                _ => None,
            })
            .ok_or_else(|| fail(op, "an intrinsic without a callee"))?;
        if op.results().next().is_some() {
            return Err(fail(op, "intrinsics with results have no C yet"));
        }
        if !is_identifier(&callee) {
            return Err(fail(op, format!("'{callee}' is not a C identifier")));
        }
        // The buffers the call writes; it only reads the others (`const`).
        let written: Vec<i64> = acc_dialects::hooks::attr_read::Attrs::of_op(self.ctx, op)
            .ints(hw::Intrinsic::ATTR_OUTPUTS)
            .map_err(|m| fail(op, m))?
            .unwrap_or_default();
        let mut args = Vec::new();
        let mut params = Vec::new();
        for (k, v) in operands.iter().enumerate() {
            match self.get(op, *v)? {
                Val::Scalar(x, t) => {
                    args.push(x);
                    params.push(t.name().to_string());
                }
                Val::Memref { ptr, elem, .. } => {
                    args.push(ptr);
                    let qualifier = if written.contains(&(k as i64)) {
                        ""
                    } else {
                        "const "
                    };
                    params.push(format!("{qualifier}{} *", elem.name()));
                }
                Val::Vector(..) => return Err(fail(op, "passes a vector to an intrinsic")),
            }
        }
        // An external compiler's region: built once, by its command, from row-major
        // buffers; two regions of one name must compute the same.
        let command = hw::Intrinsic::of(self.ctx, op).and_then(|i| i.compiler());
        if let Some(command) = command {
            for v in operands {
                if let Val::Memref { shape, strides, .. } = self.get(op, *v)?
                    && !crate::external::is_row_major(&shape, &strides)
                {
                    return Err(fail(
                        op,
                        "passes a strided view to an external compiler's function, which takes row-major buffers",
                    ));
                }
            }
            let region = crate::external::Region::of(self.ctx, self.ir, op, &callee)
                .map_err(|m| fail(op, m))?;
            match self.shared.externals.iter().find(|e| e.callee == callee) {
                Some(built) if built.text != region.text => {
                    return Err(fail(
                        op,
                        format!("two different regions are named '{callee}'"),
                    ));
                }
                Some(_) => {}
                None => {
                    let built = region.build(command).map_err(|m| fail(op, m))?;
                    self.shared.externals.push(built);
                }
            }
        }
        self.declare(op, &callee, "void", params)?;
        self.line(&format!("{callee}({});", args.join(", ")));
        Ok(())
    }

    /// Records that the code calls `callee` with this signature: an error when it
    /// called it with another.
    fn declare(
        &mut self,
        op: OpRef<'_>,
        callee: &str,
        ret: &'static str,
        params: Vec<String>,
    ) -> Result<(), Diagnostic> {
        // A call whose function a header declares: the header, not a prototype.
        let headers = self.ctx.dict_get(op.attrs(), HEADERS_ATTR);
        if let Some(headers) = headers {
            let acc_ir::AttrData::Array(items) = self.ctx.attr_data(headers) else {
                return Err(fail(
                    op,
                    format!("'{HEADERS_ATTR}' must be an array of strings"),
                ));
            };
            for h in items.iter() {
                let name = string_attr(self.ctx, Some(*h)).filter(|n| is_plain_c_string(n));
                let name = name.ok_or_else(|| {
                    fail(
                        op,
                        format!("'{HEADERS_ATTR}' holds something other than header names"),
                    )
                })?;
                if !self.shared.headers.contains(&name) {
                    self.shared.headers.push(name);
                }
            }
            return Ok(());
        }
        match self.shared.externs.iter().find(|(c, _, _)| c == callee) {
            Some((_, r, known)) if *known != params || *r != ret => {
                return Err(fail(
                    op,
                    format!("'{callee}' is called with different argument types"),
                ));
            }
            Some(_) => {}
            None => self.shared.externs.push((callee.to_string(), ret, params)),
        }
        Ok(())
    }

    /// `hw.dma_start`: the target's DMA function (`call`) copying the source's bytes
    /// into the target buffer, both contiguous; its ticket is the token.
    fn dma_start(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        result: ValueId,
    ) -> Result<(), Diagnostic> {
        let callee = self.call_attr(op, hw::DmaStart::ATTR_CALL)?;
        let (src, dst) = (self.get(op, operands[0])?, self.get(op, operands[1])?);
        let (
            Val::Memref {
                ptr: from,
                elem,
                shape,
                strides,
            },
            Val::Memref {
                ptr: to,
                shape: to_shape,
                strides: to_strides,
                ..
            },
        ) = (src, dst)
        else {
            return Err(fail(op, "copies between buffers only"));
        };
        if !is_row_major(&shape, &strides) || !is_row_major(&to_shape, &to_strides) {
            return Err(fail(op, "a DMA copies contiguous buffers only"));
        }
        let count: i64 = shape.iter().product();
        let ticket = self.fresh("dma");
        self.declare(
            op,
            &callee,
            "uint32_t",
            vec!["void *".into(), "const void *".into(), "uint32_t".into()],
        )?;
        self.line(&format!(
            "const uint32_t {ticket} = {callee}({to}, {from}, {count}u * sizeof({}));",
            elem.name()
        ));
        self.values
            .insert(result, Val::Scalar(ticket, CType::Int(32)));
        Ok(())
    }

    /// `hw.dma_wait`: the target's wait function (`call`) on each ticket.
    fn dma_wait(&mut self, op: OpRef<'_>, operands: &[ValueId]) -> Result<(), Diagnostic> {
        let callee = self.call_attr(op, hw::DmaWait::ATTR_CALL)?;
        self.declare(op, &callee, "void", vec!["uint32_t".into()])?;
        for v in operands {
            let Val::Scalar(ticket, _) = self.get(op, *v)? else {
                return Err(fail(op, "waits for tokens only"));
            };
            self.line(&format!("{callee}({ticket});"));
        }
        Ok(())
    }

    /// The C function an `hw.dma_start` or `hw.dma_wait` calls (its `call`, the
    /// attribute `name`).
    fn call_attr(&self, op: OpRef<'_>, name: &str) -> Result<String, Diagnostic> {
        let callee = op
            .attr(self.ctx, name)
            .and_then(|c| match self.ctx.attr_data(c) {
                acc_ir::AttrData::String { value, .. } => Some(self.ctx.str(*value).to_string()),
                _ => None,
            })
            .ok_or_else(|| {
                fail(
                    op,
                    "names no C function: `bufferize` gives DMA ops the target's as `call`",
                )
            })?;
        c_name(&callee).map_err(|m| fail(op, m))
    }
}

/// The pure ops of `body` (arith, math, loads) whose results nothing reads, directly
/// or through other such ops.
fn dead_ops(ctx: &Context, ir: &Ir, body: BodyId) -> FxHashSet<OpId> {
    let b = ir.body(body);
    let mut ops = Vec::new();
    ir.walk(body, &mut |bb, o| {
        if bb == body {
            ops.push(o);
        }
    });
    let pure = |o: OpId| {
        let r = ir.op(body, o);
        (arith::Op::of(ctx, r).is_some()
            || math::Op::of(ctx, r).is_some()
            || loops::Load::is(ctx, r)
            || loops::Vload::is(ctx, r)
            || loops::Splat::is(ctx, r)
            || loops::Vreduce::is(ctx, r))
            && b.results(o).next().is_some()
    };
    let mut uses: FxHashMap<ValueId, usize> = FxHashMap::default();
    for &o in &ops {
        for r in b.results(o) {
            uses.insert(r, b.value_users(r).count());
        }
    }
    let mut dead = FxHashSet::default();
    let mut work: Vec<OpId> = ops.iter().copied().filter(|o| pure(*o)).collect();
    while let Some(o) = work.pop() {
        if dead.contains(&o) || !b.results(o).all(|r| uses.get(&r) == Some(&0)) {
            continue;
        }
        dead.insert(o);
        for v in b.operands(o) {
            if let Some(n) = uses.get_mut(&v) {
                *n = n.saturating_sub(1);
                if *n == 0
                    && let acc_ir::ValueDef::Result(def, _) = b.value(v).def
                    && pure(def)
                {
                    work.push(def);
                }
            }
        }
    }
    dead
}

/// The C name of function `name`: itself, or `acc_NAME` for names C reserves
/// (`main`, the keywords) and names starting with `acc_` (the generated code's);
/// an error for a name that is not a C identifier.
pub(crate) fn c_name(name: &str) -> Result<String, String> {
    const RESERVED: [&str; 33] = [
        "main", "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
        "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
        "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
        "switch", "typedef", "union", "unsigned", "void",
    ];
    if !is_identifier(name) {
        return Err(format!("'{name}' is not a C identifier"));
    }
    Ok(if RESERVED.contains(&name) || name.starts_with("acc_") {
        format!("acc_{name}")
    } else {
        name.to_string()
    })
}

/// Whether `name` is a C identifier.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Row-major strides of `shape`.
fn row_major(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// Whether `strides` are `shape`'s row-major ones (size-1 dimensions aside).
fn is_row_major(shape: &[i64], strides: &[i64]) -> bool {
    let dense = row_major(shape);
    shape
        .iter()
        .zip(strides.iter().zip(&dense))
        .all(|(n, (s, d))| *n == 1 || s == d)
}

/// `Σ ivs_k * strides_k` as C.
fn index_expr(ivs: &[String], strides: &[i64]) -> String {
    let terms: Vec<String> = ivs
        .iter()
        .zip(strides)
        .filter(|(_, s)| **s != 0)
        .map(|(i, s)| {
            if *s == 1 {
                i.clone()
            } else {
                format!("{i} * {s}")
            }
        })
        .collect();
    if terms.is_empty() {
        "0".to_string()
    } else {
        terms.join(" + ")
    }
}

/// `for (int64_t I = LB; I < UB; ...) {`, the header of a loop of `loop.for` or of a
/// dimension of `loop.parallel` (C expressions). A step not known positive here (the
/// verifier refuses a constant one that is not) is tested: a non-positive one runs no
/// iteration instead of forever. An induction variable that may step past INT64_MAX
/// ends the loop there (as the interpreter's, which counts in i128) instead of
/// overflowing (undefined behaviour in C); with a constant bound and step that
/// cannot, the plain increment.
fn loop_header(i: &str, lb: &str, ub: &str, step: &str) -> String {
    let guard = match step.parse::<i64>() {
        Ok(s) if s > 0 => String::new(),
        _ => format!(" && {step} > 0"),
    };
    let bounded = matches!((ub.parse::<i64>(), step.parse::<i64>()),
        (Ok(u), Ok(s)) if (u as i128) - 1 + (s as i128) <= i64::MAX as i128);
    let advance = if bounded {
        format!("{i} += {step}")
    } else {
        format!("{i} = {i} > INT64_MAX - {step} ? {ub} : {i} + {step}")
    };
    format!("for (int64_t {i} = {lb}; {i} < {ub}{guard}; {advance}) {{")
}
