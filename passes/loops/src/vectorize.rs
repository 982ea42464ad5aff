//! `vectorize`: the innermost dimension of each `loop.parallel` nest, run one vector
//! register's worth of iterations at a time: four f32 lanes of the host's 128 bits, or
//! as many as a device's `vector_bits` hold ([`units`]).
//!
//! A nest is vectorized when every value of its body is, along the last induction
//! variable `i`, one of
//! - *uniform*: the same in every iteration of that dimension (defined outside, the
//!   other induction variables, constants and whatever is computed from them only);
//! - *lane*: an index `s * i + u` with `u` uniform and a constant `s` > 0 (it
//!   addresses elements `s` apart: consecutive ones when `s` is 1);
//! - *vector*: data computed from a load at a lane index.
//!
//! Loads and stores whose last index is a lane index and whose other indices are uniform
//! become `loop.vload` (with a `stride` when `s` > 1) / `loop.vstore` (consecutive
//! elements only); a load outside `loop.for` loops whose lane index is at an earlier
//! dimension, the later indices uniform, reads the buffer with those dimensions as
//! one (`loop.reshape`) by a strided `loop.vload` (the transposes between NCHW and
//! NCHW16c); arithmetic on vector data takes vector types
//! (uniform operands are splat once; a select of a uniform condition keeps it
//! scalar); `loop.for` loops inside carry vectors. Anything
//! else (a gathered access, a strided store, an op with a region other than
//! `loop.for`, a load of a buffer the nest also writes at other indices; for the host,
//! also a comparison of vector data and elements of different widths) leaves the nest
//! as it is. For a unit written lane by lane (a device's, in C:
//! [`VectorUnit::lane_by_lane`]), every elementwise op takes vectors, and elements of
//! different widths share the lanes of the widest. The iterations that do not fill a whole vector run in a
//! copy of the original nest over the remaining range.
//!
//! The result computes the same values as the input: each lane does what one iteration
//! did, in the same order within that iteration.
//!
//! In a nest left as it is, a `loop.for` reducing along the last dimension (a sum, a
//! product, a max or a min of f32 values read consecutively) runs on vector
//! accumulators instead ([`reduction`]; this reassociates sums and products).

use acc_dialects::build::BuildExt as _;
use acc_ir::{
    BlockId, BodyId, Context, Diagnostic, InsertPoint, Ir, OpId, TypeData, TypeId, ValueDef,
    ValueId, clone,
};
use acc_pass::{OptionKind, Pass, PassInfo, PassOption, PassOptions, PassTarget};
use rustc_hash::{FxHashMap, FxHashSet};

use acc_dialects::build::{Builder, buffer_root, constant_int};
use acc_dialects::ops::{arith, func, loops};

mod reduction;
mod units;

pub use units::VectorUnit;

/// The pass: the host's loops on 128-bit vectors (unless `host` is false), and the
/// loops of each launch on a device declaring `vector_bits` on that device's vectors
/// ([`units`] says which body gets which).
pub struct Vectorize {
    host: bool,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "vectorize",
        title: "Vectorize",
        summary: "Run the innermost dimension of loop.parallel nests on vectors: the host's 128-bit ones, a device's as its hw.device declares",
        anchor: Some(func::Func::NAME),
        options: vec![PassOption {
            name: "host",
            description: "vectorize the host's loops too (false: only those of launches on devices declaring vector_bits)",
            kind: OptionKind::Bool,
            default: "true",
        }],
        create: |o: &PassOptions| {
            Ok(Box::new(Vectorize {
                host: o.get("host") == "true",
            }))
        },
    }
}

impl Pass for Vectorize {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let units = units::BodyUnits::of(t.ctx, t.ir, t.body, t.op, self.host);
        for (body, _) in t.bodies() {
            let Some(unit) = units.of_body(body) else {
                continue;
            };
            vectorize_body(t.ctx, t.ir, body, unit).map_err(|m| {
                Diagnostic::error(acc_ir::DiagLoc::Unknown, format!("vectorize: {m}"))
            })?;
        }
        Ok(())
    }
}

/// Vectorizes for `unit` every outermost parallel nest of `body` (or, where a nest
/// cannot be, its reductions along the last dimension).
fn vectorize_body(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    unit: VectorUnit,
) -> Result<(), String> {
    let nests: Vec<OpId> = crate::outermost_parallel_nests(ctx, ir, body);
    for nest in nests {
        match analyze(ctx, ir, body, nest, unit) {
            Some(plan) => rewrite(ctx, ir, body, nest, &plan)?,
            None => {
                reduction::vectorize_reductions(ctx, ir, body, nest, unit)?;
            }
        }
    }
    Ok(())
}

/// What a value of the nest is along its last induction variable.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    Uniform,
    /// The stride between lanes.
    Lane(i64),
    Vector,
}

/// A nest that can be vectorized: the class of each value defined in it, the lanes,
/// and the new bounds of its last dimension.
struct Plan {
    class: FxHashMap<ValueId, Class>,
    lanes: i64,
    upper: i64,
}

/// The bit width of a scalar type (`None` for index and non-scalars).
fn bits(ctx: &Context, ty: TypeId) -> Option<u32> {
    match ctx.type_data(ty) {
        TypeData::Float(k) => Some(k.width()),
        TypeData::Integer { width, .. } => Some(*width),
        _ => None,
    }
}

struct Analysis<'a> {
    ctx: &'a Context,
    ir: &'a Ir,
    body: BodyId,
    class: FxHashMap<ValueId, Class>,
    /// The vector unit.
    unit: VectorUnit,
    /// The element width of the vector values (all must agree, unless the unit goes
    /// lane by lane: then the widest).
    width: Option<u32>,
    /// (buffer, indices, class of the access) of every load and store.
    loads: Vec<(ValueId, Vec<ValueId>, Class)>,
    stores: Vec<(ValueId, Vec<ValueId>)>,
    /// The `loop.for` loops around the op being classified: a gathered load inside
    /// one is left scalar (a reduction along a row reads it consecutively instead).
    loops: usize,
}

impl<'a> Analysis<'a> {
    /// Nothing classified yet.
    fn new(ctx: &'a Context, ir: &'a Ir, body: BodyId, unit: VectorUnit) -> Self {
        Analysis {
            ctx,
            ir,
            body,
            unit,
            class: FxHashMap::default(),
            width: None,
            loads: Vec::new(),
            stores: Vec::new(),
            loops: 0,
        }
    }

    fn of(&self, v: ValueId) -> Class {
        self.class.get(&v).copied().unwrap_or(Class::Uniform)
    }

    fn name(&self, op: OpId) -> &str {
        self.ctx.op_name_str(self.ir.op(self.body, op).name())
    }

    /// Notes that a vector of element type `ty` is needed.
    fn vector_of(&mut self, ty: TypeId) -> Option<()> {
        let w = bits(self.ctx, ty)?;
        if self.unit.lane_by_lane {
            // An `i1` lane is a byte.
            let w = w.max(8);
            if !self.unit.bits.is_multiple_of(w) {
                return None;
            }
            self.width = Some(self.width.map_or(w, |x| x.max(w)));
            return Some(());
        }
        if w < 8 || !self.unit.bits.is_multiple_of(w) {
            return None;
        }
        match self.width {
            Some(x) if x != w => None,
            _ => {
                self.width = Some(w);
                Some(())
            }
        }
    }

    /// The access's class: uniform when every index is, vector when only the last one
    /// is a lane index.
    fn access(&self, indices: &[ValueId]) -> Option<Class> {
        let classes: Vec<Class> = indices.iter().map(|v| self.of(*v)).collect();
        match classes.split_last() {
            None => Some(Class::Uniform),
            Some((last, rest)) => {
                if rest.iter().any(|c| *c != Class::Uniform) {
                    return None;
                }
                match last {
                    Class::Uniform => Some(Class::Uniform),
                    Class::Lane(_) => Some(Class::Vector),
                    Class::Vector => None,
                }
            }
        }
    }

    fn block(&mut self, block: BlockId) -> Option<()> {
        let ops: Vec<OpId> = self.ir.body(self.body).block_ops(block).collect();
        for op in ops {
            self.op(op)?;
        }
        Some(())
    }

    fn op(&mut self, op: OpId) -> Option<()> {
        let b = self.ir.body(self.body);
        let operands: Vec<ValueId> = b.operands(op).collect();
        let results: Vec<ValueId> = b.results(op).collect();
        let classes: Vec<Class> = operands.iter().map(|v| self.of(*v)).collect();
        let all_uniform = classes.iter().all(|c| *c == Class::Uniform);
        let o = self.ir.op(self.body, op);
        let kind = (loops::Op::of(self.ctx, o), arith::Op::of(self.ctx, o));
        let set = |s: &mut Self, c: Class| {
            for r in &results {
                s.class.insert(*r, c);
            }
        };
        match kind {
            (Some(loops::Op::Yield), _) => Some(()),
            (Some(loops::Op::Load), _) => {
                let c = match self.access(&operands[1..]) {
                    Some(c) => c,
                    None if self.loops == 0 => {
                        gather_dimension(self.ctx, b.value_type(operands[0]), &classes[1..])?;
                        Class::Vector
                    }
                    None => return None,
                };
                if c == Class::Vector {
                    self.vector_of(b.value_type(results[0]))?;
                }
                self.loads.push((operands[0], operands[1..].to_vec(), c));
                set(self, c);
                Some(())
            }
            (Some(loops::Op::Store), _) => {
                if classes[1] != Class::Uniform
                    || self.access(&operands[2..])? != Class::Vector
                    || classes.last() != Some(&Class::Lane(1))
                    || matches!(classes[0], Class::Lane(_))
                {
                    return None;
                }
                self.vector_of(b.value_type(operands[0]))?;
                self.stores.push((operands[1], operands[2..].to_vec()));
                Some(())
            }
            (Some(loops::Op::For), _) => self.for_loop(op, &operands, &results),
            (_, Some(a @ (arith::Op::Addi | arith::Op::Subi | arith::Op::Muli)))
                if classes.iter().any(|c| matches!(c, Class::Lane(_))) =>
            {
                // i + u, u + i and i - u keep the stride; i * c multiplies it.
                let scaled = |s: i64, by: ValueId| {
                    constant_int(self.ctx, self.ir, self.body, by)
                        .filter(|c| *c > 0)
                        .and_then(|c| c.checked_mul(s))
                };
                let lane = match (a, classes[0], classes[1]) {
                    (arith::Op::Addi, Class::Lane(s), Class::Uniform)
                    | (arith::Op::Addi, Class::Uniform, Class::Lane(s))
                    | (arith::Op::Subi, Class::Lane(s), Class::Uniform) => Some(s),
                    (arith::Op::Muli, Class::Lane(s), Class::Uniform) => scaled(s, operands[1]),
                    (arith::Op::Muli, Class::Uniform, Class::Lane(s)) => scaled(s, operands[0]),
                    _ => None,
                };
                lane.map(|s| set(self, Class::Lane(s)))
            }
            (_, Some(arith::Op::Select)) if classes[0] == Class::Uniform && !all_uniform => {
                // One choice for every lane: the condition stays a scalar.
                if classes[1..].iter().any(|c| matches!(c, Class::Lane(_))) {
                    return None;
                }
                for v in operands[1..].iter().chain(&results) {
                    self.vector_of(b.value_type(*v))?;
                }
                set(self, Class::Vector);
                Some(())
            }
            _ if !b.op_regions(op).is_empty() => None,
            _ if all_uniform && results.len() == 1 && self.pure(op) => {
                set(self, Class::Uniform);
                Some(())
            }
            _ if self.vectorizable(op) && results.len() == 1 => {
                if classes.iter().any(|c| matches!(c, Class::Lane(_))) {
                    return None;
                }
                for v in operands.iter().chain(&results) {
                    self.vector_of(b.value_type(*v))?;
                }
                if kind.1 == Some(arith::Op::Muli)
                    && self.width == Some(8)
                    && !self.unit.lane_by_lane
                {
                    // No 8-bit vector multiply on x86-64.
                    return None;
                }
                set(self, Class::Vector);
                Some(())
            }
            _ => None,
        }
    }

    /// Ops without effects whose uniform copies are fine as they are.
    fn pure(&self, op: OpId) -> bool {
        let name = self.name(op);
        name.starts_with("arith.")
            || name.starts_with("math.")
            || loops::Fma::is(self.ctx, self.ir.op(self.body, op))
    }

    /// Ops that apply lane by lane to vectors and that code generation has vector
    /// forms of: for a unit written lane by lane, every `arith` op but constants and
    /// index casts; otherwise not comparisons and selects of vector conditions (their
    /// masks have other types; a select of a uniform condition is handled apart),
    /// integer division and remainders, shifts (by a vector amount), NaN-ignoring
    /// min/max.
    fn vectorizable(&self, op: OpId) -> bool {
        let name = self.name(op);
        if !name.starts_with("arith.") {
            return name.starts_with("math.")
                || loops::Fma::is(self.ctx, self.ir.op(self.body, op));
        }
        let kind = arith::Op::of(self.ctx, self.ir.op(self.body, op));
        if self.unit.lane_by_lane {
            return !matches!(
                kind,
                Some(arith::Op::Constant | arith::Op::IndexCast | arith::Op::IndexCastui)
            );
        }
        !matches!(
            kind,
            Some(
                arith::Op::Cmpi
                    | arith::Op::Cmpf
                    | arith::Op::Select
                    | arith::Op::IndexCast
                    | arith::Op::IndexCastui
                    | arith::Op::Constant
                    | arith::Op::Divsi
                    | arith::Op::Divui
                    | arith::Op::Remsi
                    | arith::Op::Remui
                    | arith::Op::Ceildivsi
                    | arith::Op::Floordivsi
                    | arith::Op::Remf
                    | arith::Op::Shli
                    | arith::Op::Shrsi
                    | arith::Op::Shrui
                    | arith::Op::Maxnumf
                    | arith::Op::Minnumf
            )
        )
    }

    /// A `loop.for`: uniform bounds; each carried value is a vector when its initial or
    /// its next value is one (found by iterating to a fixed point).
    fn for_loop(&mut self, op: OpId, operands: &[ValueId], results: &[ValueId]) -> Option<()> {
        if operands[..3].iter().any(|v| self.of(*v) != Class::Uniform) {
            return None;
        }
        let b = self.ir.body(self.body);
        let region = *b.op_regions(op).first()?;
        let block = b.entry_block(region)?;
        let args = b.block_args(block).to_vec();
        let terminator = b.block_ops(block).last()?;
        let mut carried: Vec<Class> = operands[3..].iter().map(|v| self.of(*v)).collect();
        loop {
            if carried.iter().any(|c| matches!(c, Class::Lane(_))) {
                return None;
            }
            self.class.insert(args[0], Class::Uniform);
            for (a, c) in args[1..].iter().zip(&carried) {
                self.class.insert(*a, *c);
            }
            self.loops += 1;
            let inside = self.block(block);
            self.loops -= 1;
            inside?;
            let next: Vec<Class> = self
                .ir
                .body(self.body)
                .operands(terminator)
                .zip(&carried)
                .map(|(v, c)| {
                    if *c == Class::Vector || self.of(v) == Class::Vector {
                        Class::Vector
                    } else {
                        self.of(v)
                    }
                })
                .collect();
            if next == carried {
                break;
            }
            carried = next;
        }
        for (i, (r, c)) in results.iter().zip(&carried).enumerate() {
            if *c == Class::Vector {
                self.vector_of(self.ir.body(self.body).value_type(args[i + 1]))?;
            }
            self.class.insert(*r, *c);
        }
        Some(())
    }

    fn root(&self, v: ValueId) -> ValueId {
        buffer_root(self.ctx, self.ir, self.body, v)
    }

    /// Whether running lanes together can change what a load sees: it reads a buffer
    /// the nest writes, other than exactly the element the same iteration writes.
    fn hazard(&self) -> bool {
        self.loads.iter().any(|(m, idx, c)| {
            self.stores.iter().any(|(sm, sidx)| {
                self.root(*m) == self.root(*sm) && (*c == Class::Uniform || m != sm || idx != sidx)
            })
        })
    }
}

/// Where a load of a buffer of type `memref` with index classes `classes` gathers
/// across its later dimensions: the one dimension `d` before the last whose index is
/// a lane index (stride `s`) when every other index is uniform, and the buffer has a
/// static shape and the identity layout (so dimensions `d..` are one contiguous
/// dimension to `loop.reshape`).
fn gather_dimension(ctx: &Context, memref: TypeId, classes: &[Class]) -> Option<(usize, i64)> {
    let TypeData::MemRef {
        shape,
        layout: None,
        ..
    } = ctx.type_data(memref)
    else {
        return None;
    };
    // Sizes whose product (the collapsed dimension) overflows are left alone.
    if shape.len() != classes.len()
        || shape.iter().any(|d| *d <= 0)
        || shape
            .iter()
            .try_fold(1i64, |p, d| p.checked_mul(*d))
            .is_none()
    {
        return None;
    }
    let mut lane = None;
    for (d, c) in classes.iter().enumerate() {
        match c {
            Class::Uniform => {}
            Class::Lane(s)
                if lane.is_none()
                    && d + 1 < classes.len()
                    && shape[d + 1..]
                        .iter()
                        .try_fold(*s, |p, d| p.checked_mul(*d))
                        .is_some() =>
            {
                lane = Some((d, *s))
            }
            _ => return None,
        }
    }
    lane
}

/// Whether `nest` can be vectorized, and how.
fn analyze(ctx: &Context, ir: &Ir, body: BodyId, nest: OpId, unit: VectorUnit) -> Option<Plan> {
    let b = ir.body(body);
    let operands: Vec<ValueId> = b.operands(nest).collect();
    let rank = operands.len() / 3;
    if rank == 0 {
        return None;
    }
    let bound = |i: usize| constant_int(ctx, ir, body, operands[i]);
    let (lower, upper, step) = (bound(rank - 1)?, bound(2 * rank - 1)?, bound(3 * rank - 1)?);
    if step != 1 {
        return None;
    }
    let region = *b.op_regions(nest).first()?;
    let block = b.entry_block(region)?;
    let ivs = b.block_args(block).to_vec();
    let mut a = Analysis::new(ctx, ir, body, unit);
    for iv in &ivs {
        a.class.insert(*iv, Class::Uniform);
    }
    a.class.insert(*ivs.last()?, Class::Lane(1));
    a.block(block)?;
    if a.stores.is_empty() || a.hazard() {
        return None;
    }
    let lanes = i64::from(unit.bits / a.width?);
    let whole = (upper - lower) / lanes * lanes;
    if lanes < 2 || whole == 0 {
        return None;
    }
    Some(Plan {
        class: a.class,
        lanes,
        upper: lower + whole,
    })
}

/// Rewrites a nest by its plan: a copy runs the remaining iterations, the nest itself
/// steps by whole vectors.
fn rewrite(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    nest: OpId,
    plan: &Plan,
) -> Result<(), String> {
    let rank = ir.body(body).operands(nest).len() / 3;
    let original_upper = ir.body(body).operand(nest, 2 * rank - 1);
    let loc = ir.op(body, nest).loc();
    let next = ir
        .body(body)
        .next_op(nest)
        .ok_or("a loop.parallel ends its block")?;
    let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(nest), loc);
    let split = e.index(plan.upper)?;
    let step = e.index(plan.lanes)?;
    if constant_int(ctx, ir, body, original_upper) != Some(plan.upper) {
        let mut map = clone::ValueMap::default();
        let rest = clone::clone_op(ir, body, nest, body, InsertPoint::Before(next), &mut map);
        ir.body_mut(body).set_operand(rest, rank - 1, split);
    }
    ir.body_mut(body).set_operand(nest, 2 * rank - 1, split);
    ir.body_mut(body).set_operand(nest, 3 * rank - 1, step);
    let block = {
        let b = ir.body(body);
        let region = b.op_regions(nest)[0];
        b.entry_block(region).ok_or("an empty loop.parallel")?
    };
    let mut r = Rewriter {
        ctx,
        ir,
        body,
        plan,
        splats: FxHashMap::default(),
        loaded: FxHashSet::default(),
        top: block,
        loc,
    };
    r.block(block)
}

struct Rewriter<'a> {
    ctx: &'a Context,
    ir: &'a mut Ir,
    body: BodyId,
    plan: &'a Plan,
    /// The splat made of each uniform value.
    splats: FxHashMap<ValueId, ValueId>,
    /// The `loop.vload` results (new values, so not in the plan).
    loaded: FxHashSet<ValueId>,
    /// The nest's body.
    top: BlockId,
    loc: acc_ir::AttrId,
}

impl Rewriter<'_> {
    fn of(&self, v: ValueId) -> Class {
        if self.loaded.contains(&v) {
            return Class::Vector;
        }
        self.plan.class.get(&v).copied().unwrap_or(Class::Uniform)
    }

    fn vector_type(&self, scalar: TypeId) -> TypeId {
        self.ctx.intern_type(TypeData::Vector {
            shape: vec![self.plan.lanes].into(),
            scalable: vec![false].into(),
            element: scalar,
        })
    }

    /// A vector of `v`'s value in every lane, made once, where it dominates every use
    /// in the nest: after its definition, or at the start of the nest's (or of the
    /// defining loop's) body.
    fn splat(&mut self, v: ValueId) -> Result<ValueId, String> {
        if let Some(s) = self.splats.get(&v) {
            return Ok(*s);
        }
        let b = self.ir.body(self.body);
        let point = match b.value(v).def {
            ValueDef::Result(op, _) if self.inside(op) => match b.next_op(op) {
                Some(n) => InsertPoint::Before(n),
                None => return Err("a value defined by a block's last op".into()),
            },
            ValueDef::BlockArg(block, _) if block != self.top && self.block_inside(block) => {
                match b.first_op(block) {
                    Some(f) => InsertPoint::Before(f),
                    None => InsertPoint::End(block),
                }
            }
            _ => match b.first_op(self.top) {
                Some(f) => InsertPoint::Before(f),
                None => InsertPoint::End(self.top),
            },
        };
        let ty = self.vector_type(b.value_type(v));
        let mut e = Builder::new(self.ctx, &mut *self.ir, self.body, point, self.loc);
        let s = loops::Splat::build(&mut e, v, ty).result()?;
        self.splats.insert(v, s);
        Ok(s)
    }

    /// Whether `op` is in the nest.
    fn inside(&self, op: OpId) -> bool {
        self.ir
            .body(self.body)
            .op_block(op)
            .is_some_and(|b| self.block_inside(b))
    }

    fn block_inside(&self, mut block: BlockId) -> bool {
        loop {
            if block == self.top {
                return true;
            }
            let b = self.ir.body(self.body);
            let Some(parent) = b.region_parent(b.block_region(block)) else {
                return false;
            };
            let Some(up) = b.op_block(parent) else {
                return false;
            };
            block = up;
        }
    }

    fn block(&mut self, block: BlockId) -> Result<(), String> {
        let ops: Vec<OpId> = self.ir.body(self.body).block_ops(block).collect();
        for op in ops {
            self.op(op)?;
        }
        Ok(())
    }

    fn op(&mut self, op: OpId) -> Result<(), String> {
        let b = self.ir.body(self.body);
        let o = self.ir.op(self.body, op);
        let (kind, select) = (loops::Op::of(self.ctx, o), arith::Select::is(self.ctx, o));
        let operands: Vec<ValueId> = b.operands(op).collect();
        let results: Vec<ValueId> = b.results(op).collect();
        match kind {
            Some(loops::Op::Load)
                if self.of(results[0]) == Class::Vector
                    && !matches!(operands.last().map(|v| self.of(*v)), Some(Class::Lane(_))) =>
            {
                let v = self.tail_gather(op, &operands)?;
                self.loaded.insert(v);
                self.ir.body_mut(self.body).replace_all_uses(results[0], v);
                self.ir.body_mut(self.body).erase_op(op);
            }
            Some(loops::Op::Load) if self.of(results[0]) == Class::Vector => {
                let ty = self.vector_type(b.value_type(results[0]));
                let stride = match operands.last().map(|v| self.of(*v)) {
                    Some(Class::Lane(s)) if s != 1 => {
                        Some(acc_dialects::build::i64_attr(self.ctx, s))
                    }
                    _ => None,
                };
                let props: Vec<(&str, acc_ir::AttrId)> = stride
                    .map(|s| (loops::Vload::ATTR_STRIDE, s))
                    .into_iter()
                    .collect();
                let v = self.replace(op, loops::Vload::NAME, &operands, Some(ty), &props)?;
                self.loaded.insert(v);
                self.ir.body_mut(self.body).replace_all_uses(results[0], v);
                self.ir.body_mut(self.body).erase_op(op);
            }
            Some(loops::Op::Store) => {
                let mut operands = operands;
                if self.of(operands[0]) == Class::Uniform {
                    operands[0] = self.splat(operands[0])?;
                }
                self.replace(op, loops::Vstore::NAME, &operands, None, &[])?;
                self.ir.body_mut(self.body).erase_op(op);
            }
            Some(loops::Op::For) => self.for_loop(op, &operands, &results)?,
            _ if results.len() == 1 && self.of(results[0]) == Class::Vector => {
                for (i, v) in operands.iter().enumerate() {
                    // A select's uniform condition stays a scalar.
                    let condition = i == 0 && select;
                    if self.of(*v) == Class::Uniform && !condition {
                        let s = self.splat(*v)?;
                        self.ir.body_mut(self.body).set_operand(op, i, s);
                    }
                }
                let ty = self.vector_type(self.ir.body(self.body).value_type(results[0]));
                self.ir.body_mut(self.body).set_value_type(results[0], ty);
            }
            _ => {}
        }
        Ok(())
    }

    /// A load whose lane index `i` (stride `s`) is at dimension `d` before the last,
    /// the later indices uniform: the buffer seen with its dimensions from `d` on as
    /// one (`loop.reshape`, a contiguous identity layout), read from element `i * P
    /// + tail` of that dimension by a `loop.vload` of stride `s * P`, `P` the product
    /// of the sizes after `d`. Transposes between NCHW and NCHW16c read so.
    fn tail_gather(&mut self, op: OpId, operands: &[ValueId]) -> Result<ValueId, String> {
        let b = self.ir.body(self.body);
        let (memref, indices) = (operands[0], &operands[1..]);
        let classes: Vec<Class> = indices.iter().map(|v| self.of(*v)).collect();
        let memref_ty = b.value_type(memref);
        let (d, s) = gather_dimension(self.ctx, memref_ty, &classes)
            .ok_or("a gathered load without a lane index before uniform ones")?;
        let (shape, element) = acc_dialects::build::shape_of(self.ctx, memref_ty)?;
        let vector = self.vector_type(element);
        let tail: i64 = shape[d + 1..].iter().product();
        let mut collapsed = shape[..d].to_vec();
        collapsed.push(shape[d..].iter().product());
        let collapsed_ty = acc_dialects::build::memref_type(self.ctx, &collapsed, element);
        let index_ty = self.ctx.index_type();
        let stride = acc_dialects::build::i64_attr(self.ctx, s * tail);
        let mut e = self.before(op);
        let view = e.op(loops::Reshape::NAME, &[memref], &[collapsed_ty], &[])?[0];
        // i * P + the tail's row-major offset.
        let mut at = {
            let p = e.index(tail)?;
            e.op(arith::Muli::NAME, &[indices[d], p], &[index_ty], &[])?[0]
        };
        let mut weight = tail;
        for (k, index) in indices.iter().enumerate().skip(d + 1) {
            weight /= shape[k];
            let w = e.index(weight)?;
            let term = e.op(arith::Muli::NAME, &[*index, w], &[index_ty], &[])?[0];
            at = e.op(arith::Addi::NAME, &[at, term], &[index_ty], &[])?[0];
        }
        let mut vload_operands = vec![view];
        vload_operands.extend_from_slice(&indices[..d]);
        vload_operands.push(at);
        let out = e.op(
            loops::Vload::NAME,
            &vload_operands,
            &[vector],
            &[(loops::Vload::ATTR_STRIDE, stride)],
        )?;
        Ok(out[0])
    }

    /// Creates `name(operands)` before `op`; its result, if it has one.
    fn replace(
        &mut self,
        op: OpId,
        name: &str,
        operands: &[ValueId],
        result: Option<TypeId>,
        props: &[(&str, acc_ir::AttrId)],
    ) -> Result<ValueId, String> {
        let out = self
            .before(op)
            .op(name, operands, result.as_slice(), props)?;
        Ok(out.first().copied().unwrap_or(operands[0]))
    }

    /// A builder inserting before `op`, at its location.
    fn before(&mut self, op: OpId) -> Builder<'_> {
        let loc = self.ir.op(self.body, op).loc();
        Builder::new(
            self.ctx,
            &mut *self.ir,
            self.body,
            InsertPoint::Before(op),
            loc,
        )
    }

    /// A loop carrying vectors: the inits, the block arguments, the yielded values and
    /// the results of the carried vectors take vector types.
    fn for_loop(
        &mut self,
        op: OpId,
        operands: &[ValueId],
        results: &[ValueId],
    ) -> Result<(), String> {
        let b = self.ir.body(self.body);
        let region = b.op_regions(op)[0];
        let block = b.entry_block(region).ok_or("an empty loop.for")?;
        let args = b.block_args(block).to_vec();
        for (i, r) in results.iter().enumerate() {
            if self.of(*r) != Class::Vector {
                continue;
            }
            let init = operands[3 + i];
            if self.of(init) == Class::Uniform {
                let s = self.splat(init)?;
                self.ir.body_mut(self.body).set_operand(op, 3 + i, s);
            }
            let ty = self.vector_type(self.ir.body(self.body).value_type(*r));
            self.ir.body_mut(self.body).set_value_type(*r, ty);
            self.ir.body_mut(self.body).set_value_type(args[i + 1], ty);
        }
        self.block(block)?;
        let terminator = self
            .ir
            .body(self.body)
            .block_ops(block)
            .last()
            .ok_or("a loop.for without a yield")?;
        for (i, r) in results.iter().enumerate() {
            let y = self.ir.body(self.body).operand(terminator, i);
            if self.of(*r) == Class::Vector && self.of(y) == Class::Uniform {
                let s = self.splat(y)?;
                self.ir.body_mut(self.body).set_operand(terminator, i, s);
            }
        }
        Ok(())
    }
}
