//! `quantize`: the quantize/dequantize pairs of a QDQ model (what ONNX Runtime's
//! static quantizer writes) folded into integer ops.
//!
//! A QDQ model computes in floats between `graph.dequantize` and `graph.quantize`;
//! the pair around an op says which integers it means to compute with. Each
//! `graph.quantize` whose input is one of these, on dequantized operands, becomes
//! the integer op that computes it:
//!
//! - `conv2d` (bias optional) as `qconv2d`; `gemm` (alpha and beta 1, A not
//!   transposed, a transposed B a constant: transposed at compile time) and `matmul`
//!   as `qmatmul`. A bias dequantized from i32 with scale `s_x * s_w` gives its
//!   integers; a float constant is quantized to that scale at compile time; a
//!   convolution without one gets zeros (so a target matches one form).
//! - `add` and `mul` of operands of one shape as `qadd` and `qmul`; `avg_pool` and
//!   `global_avg_pool` as `qavg_pool`; `concat` as a `concat` of the stored integers,
//!   inputs of other scales first `requantize`d to the result's (`quantize/arith.rs`,
//!   `quantize/pool.rs`). Under the float scheme each computes exactly what its QDQ
//!   group computes.
//! - A ReLU, ReLU6 or Clip between one of these and the quantize, or after the
//!   dequantize of an integer op's result (onnxruntime keeps it there with symmetric
//!   activations), becomes that integer op's clamp, `act_min` / `act_max`
//!   (`quantize/activation.rs`).
//! - Ops that only move or select elements (`max_pool`, `reshape`, `flatten`,
//!   `transpose`, ...) run on the stored integers when the input and output are
//!   quantized alike.
//! - An elementwise op (`tanh`, `sigmoid`, `exp`, ...) on 8-bit (or narrower) signed
//!   values becomes a `lookup` in a table of its results, computed at compile time
//!   with the interpreter's arithmetic, so it is exact.
//!
//! The integer ops accumulate exactly and requantize once, where the float graph
//! rounds each product and sum to f32: a result can differ by one step of the output
//! scale when the float value lies within f32 rounding of a rounding boundary (the
//! folding ONNX Runtime and TVM do has the same property). Anything else (ops on
//! operands that are not dequantized, per-channel activations, unsigned tables) stays
//! in floats. Ops left without users are erased.

use acc_ir::requant::Scheme;
use acc_ir::rewrite::greedy::{GreedyConfig, apply_greedily};
use acc_ir::types::QuantUniform;
use acc_ir::{
    BodyId, Context, DiagLoc, Diagnostic, InsertPoint, Ir, OpId, TypeData, ValueDef, ValueId,
};
use acc_pass::{OptionKind, Pass, PassInfo, PassOption, PassOptions, PassTarget};

use acc_dialects::build::Builder;
use acc_dialects::ops::{func, graph};

mod activation;
mod arith;
mod integer;
mod pool;
mod storage;

/// The float ops whose integer op takes the clamp of an activation between them and
/// their quantize.
const CLAMPS_ACTIVATION: [graph::Op; 7] = [
    graph::Op::Conv2d,
    graph::Op::Gemm,
    graph::Op::Matmul,
    graph::Op::Add,
    graph::Op::Mul,
    graph::Op::AvgPool,
    graph::Op::GlobalAvgPool,
];

pub use storage::{MOVES, TABLED};

/// The pass: the integer ops it makes requantize by `requant`.
pub struct Quantize {
    requant: Scheme,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "quantize",
        title: "Quantize",
        summary: "Fold a QDQ model's dequantize/op/quantize groups into integer ops (qconv2d, qmatmul, qadd, qmul, qavg_pool, lookup tables, ops on stored integers), activations into their clamps",
        anchor: Some(func::Func::NAME),
        options: vec![PassOption {
            name: "requant",
            description: "how the integer ops requantize: float (onnxruntime's arithmetic) or fixed_point (TFLite's and CMSIS-NN's Q31 multipliers and shifts)",
            kind: OptionKind::OneOf(&["float", "fixed_point"]),
            default: "float",
        }],
        create: |o: &PassOptions| {
            let requant = Scheme::of_name(o.get("requant"))
                .ok_or_else(|| format!("quantize: unknown requant '{}'", o.get("requant")))?;
            Ok(Box::new(Quantize { requant }))
        },
    }
}

impl Pass for Quantize {
    /// Under the fixed-point scheme the integer ops compute TFLite's arithmetic, which
    /// may differ from the float graph's rounding by one step: `--check-semantics`
    /// then checks the passes after this one against its output.
    fn approximates(&self) -> bool {
        self.requant == Scheme::FixedPoint
    }

    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, _) in t.bodies() {
            let quantizes: Vec<OpId> = acc_dialects::build::ops_post_order(t.ir, body)
                .into_iter()
                .filter(|op| graph::Quantize::is(t.ctx, t.ir.op(body, *op)))
                .collect();
            let mut folds = Folds {
                ctx: t.ctx,
                ir: &mut *t.ir,
                body,
                requant: self.requant,
            };
            for q in quantizes {
                folds.fold(q).map_err(|e| {
                    Diagnostic::error(
                        DiagLoc::Loc(folds.ir.op(body, q).loc()),
                        format!("quantize: {e}"),
                    )
                })?;
            }
        }
        // The dequantizes and float ops the folds left unused.
        for (body, regions) in t.bodies() {
            let dce = GreedyConfig::dead_code_only();
            apply_greedily(t.ctx, t.ir, body, &regions, &[], &dce);
        }
        Ok(())
    }
}

/// The folds of one body.
pub(super) struct Folds<'a> {
    pub(super) ctx: &'a Context,
    pub(super) ir: &'a mut Ir,
    pub(super) body: BodyId,
    /// The scheme of the integer ops made.
    pub(super) requant: Scheme,
}

impl Folds<'_> {
    /// Replaces the quantize `q` by the integer op computing it, if there is one.
    fn fold(&mut self, q: OpId) -> Result<(), String> {
        let input = self.ir.body(self.body).operand(q, 0);
        let out = self.type_of(
            self.ir
                .body(self.body)
                .results(q)
                .next()
                .ok_or("no result")?,
        );
        let Some(mut op) = self.producer(input) else {
            return Ok(());
        };
        // An activation before the quantize: folded into the clamp of the integer op
        // made for the float op before it, or of the integer op it dequantizes.
        let mut activation = None;
        if let Some(bounds) = self.activation(op) {
            let inner = self.ir.body(self.body).operand(op, 0);
            match self.producer(inner) {
                Some(p) if self.kind(p).is_some_and(|k| CLAMPS_ACTIVATION.contains(&k)) => {
                    activation = Some(bounds);
                    op = p;
                }
                _ => {
                    if let Some(v) = self.fuse_activation(op, bounds, out)? {
                        return self.replace_quantize(q, v);
                    }
                }
            }
        }
        let folded = match self.kind(op) {
            Some(graph::Op::Conv2d) => self.conv2d(op, q, out)?,
            Some(graph::Op::Gemm) => self.gemm(op, q, out)?,
            Some(graph::Op::Matmul) => self.matmul(op, q, out)?,
            Some(graph::Op::Add) => self.add_or_mul(op, false, q, out)?,
            Some(graph::Op::Mul) => self.add_or_mul(op, true, q, out)?,
            Some(graph::Op::AvgPool) => self.avg_pool(op, false, q, out)?,
            Some(graph::Op::GlobalAvgPool) => self.avg_pool(op, true, q, out)?,
            Some(graph::Op::Concat) => self.concat(op, q, out)?,
            Some(graph::Op::Clip) => self.table(op, graph::Op::Clip, q, out)?,
            Some(k) if storage::MOVES.contains(&k) => self.on_storage(op, k, q, out)?,
            Some(k) if storage::TABLED.contains(&k) => self.table(op, k, q, out)?,
            _ => None,
        };
        let Some(v) = folded else {
            return Ok(());
        };
        if let Some(bounds) = activation {
            let made = self.producer(v).ok_or("a folded value without an op")?;
            if !self.clamp(made, bounds)? {
                // A clamp the integer op cannot take (a result per channel): the
                // activation stays in floats (the op made is erased as dead code).
                return Ok(());
            }
        }
        self.replace_quantize(q, v)
    }

    /// Replaces the quantize `q`'s result by `v` and erases `q`.
    fn replace_quantize(&mut self, q: OpId, v: ValueId) -> Result<(), String> {
        let body = self.ir.body_mut(self.body);
        let old = body.results(q).next().ok_or("no result")?;
        body.replace_all_uses(old, v);
        self.ir.erase_op(self.body, q);
        Ok(())
    }

    pub(super) fn type_of(&self, v: ValueId) -> acc_ir::TypeId {
        self.ir.body(self.body).value_type(v)
    }

    /// The kind of `op`, when it is a graph op.
    pub(super) fn kind(&self, op: OpId) -> Option<graph::Op> {
        graph::Op::of(self.ctx, self.ir.op(self.body, op))
    }

    /// The op defining `v`.
    pub(super) fn producer(&self, v: ValueId) -> Option<OpId> {
        match self.ir.body(self.body).value(v).def {
            ValueDef::Result(op, _) => Some(op),
            _ => None,
        }
    }

    /// The quantized element type of a tensor type.
    pub(super) fn quant(&self, ty: acc_ir::TypeId) -> Option<QuantUniform> {
        let element = self.ctx.type_data(ty).element_type()?;
        match self.ctx.type_data(element) {
            TypeData::QuantUniform(q) => Some(q.clone()),
            _ => None,
        }
    }

    /// The quantized value `v` dequantizes (`graph.dequantize`), looking through a
    /// `storage_cast` to integers and back.
    pub(super) fn dequantized(&self, v: ValueId) -> Option<ValueId> {
        let op = self.producer(v)?;
        if self.kind(op) != Some(graph::Op::Dequantize) {
            return None;
        }
        let q = self.ir.body(self.body).operand(op, 0);
        Some(self.through_casts(q))
    }

    /// `v`, or the value it is a round trip of through two storage casts.
    fn through_casts(&self, v: ValueId) -> ValueId {
        let back = |v: ValueId| {
            let op = self.producer(v)?;
            (self.kind(op) == Some(graph::Op::StorageCast))
                .then(|| self.ir.body(self.body).operand(op, 0))
        };
        match back(v).and_then(back) {
            Some(orig) if self.type_of(orig) == self.type_of(v) => orig,
            _ => v,
        }
    }

    /// An emitter placing ops before `at`, at its location.
    pub(super) fn emitter(&mut self, at: OpId) -> Builder<'_> {
        let loc = self.ir.body(self.body).op(at).loc;
        Builder::new(
            self.ctx,
            &mut *self.ir,
            self.body,
            InsertPoint::Before(at),
            loc,
        )
    }
}
