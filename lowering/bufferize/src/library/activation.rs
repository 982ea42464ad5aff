//! The activation a library convolution or packed matrix product applies as it
//! stores its results, in place of the `tensor.map`s that follow it: a clamp (ReLU,
//! ReLU6, Clip) for every library convolution, and for the blocked ones and the
//! packed products a gate too (HardSwish, SiLU, GELU), the runtime's `Gate`
//! (`acc_runtime::epilogue`).
//!
//! What is absorbed must be exactly what the maps compute, operation by operation in
//! f32. The maps are read as `graph-to-tensor` lowers these activations: a chain of
//! one-input maps of the result (a clamp), or such a chain computing a gate g
//! followed by a map multiplying the result by g (HardSwish: x * 1/6, + 1/2, max 0,
//! min 1, or as Paddle writes it x + 3, max 0, min 6; SiLU: -x, e^, 1 +, 1 /; GELU:
//! / sqrt 2, erf, + 1, the product then times 1/2), the constants read from the
//! maps. A chain may also sit in one map's region.

use acc_dialects::ops::{arith, math, tensor};
use acc_ir::{OpId, ValueDef, ValueId};

use crate::Bufferizer;

/// The maps after a convolution that its library call computes instead: each map
/// with the `tensor.empty` it fills (neither is bufferized), the last map's result
/// is the call's output; the clamp bounds, and the gate they apply within.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Activation {
    pub(crate) maps: Vec<(OpId, ValueId)>,
    pub(crate) bounds: [f64; 2],
    pub(crate) gate: Gate,
}

/// What the bounds clamp: the sum itself, or a gate the sum is multiplied by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Gate {
    /// `min(max(x, lo), hi)`.
    None,
    /// `x * min(max(x * scale + shift, lo), hi)`: HardSwish (1/6, 1/2, [0, 1]).
    Hard { scale: f64, shift: f64 },
    /// `x * min(max(1 / (1 + e^-x), lo), hi)`: SiLU, no bounds.
    Sigmoid,
    /// `(x * min(max(erf(x / divisor) + 1, lo), hi)) * scale`: GELU (sqrt 2, 1/2).
    Erf { divisor: f64, scale: f64 },
}

impl Gate {
    /// The call's gate operands: the runtime's code, then its scale and shift.
    pub(crate) fn operands(self) -> (i64, [f64; 2]) {
        match self {
            Gate::None => (0, [0.0, 0.0]),
            Gate::Hard { scale, shift } => (1, [scale, shift]),
            Gate::Sigmoid => (2, [0.0, 0.0]),
            Gate::Erf { divisor, scale } => (3, [divisor, scale]),
        }
    }
}

/// How the running value of a chain of maps derives from the convolution's result
/// `x`, as the regions' ops are walked in order.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// `min(max(x, lo), hi)` (`x` itself with infinite bounds).
    Clamped { lo: f64, hi: f64 },
    /// `x * scale`.
    Scaled { scale: f64 },
    /// `min(max(x * scale + shift, lo), hi)`.
    Affine {
        scale: f64,
        shift: f64,
        lo: f64,
        hi: f64,
    },
    /// `x` times an [`Form::Affine`] (HardSwish within one map).
    HardGated {
        scale: f64,
        shift: f64,
        lo: f64,
        hi: f64,
    },
    /// `-x`.
    Negated,
    /// `e^-x`.
    NegExp,
    /// `1 + e^-x`.
    OnePlusNegExp,
    /// `min(max(1 / (1 + e^-x), lo), hi)`.
    Sigmoid { lo: f64, hi: f64 },
    /// `x / divisor`.
    Divided { divisor: f64 },
    /// `erf(x / divisor)`.
    ErfOf { divisor: f64 },
    /// `min(max(erf(x / divisor) + 1, lo), hi)`.
    ErfGate { divisor: f64, lo: f64, hi: f64 },
}

impl Form {
    const IDENTITY: Form = Form::Clamped {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };

    /// The clamp `max(., c)` or `min(., c)` of a form that has bounds.
    fn clamped(self, max: bool, c: f64) -> Option<Form> {
        // max(., c) raises both bounds to at least c, min(., c) lowers the upper one
        // to at most c.
        let bound = |lo: f64, hi: f64| {
            if max {
                (lo.max(c), hi.max(c))
            } else {
                (lo, hi.min(c))
            }
        };
        Some(match self {
            Form::Clamped { lo, hi } => {
                let (lo, hi) = bound(lo, hi);
                Form::Clamped { lo, hi }
            }
            Form::Affine {
                scale,
                shift,
                lo,
                hi,
            } => {
                let (lo, hi) = bound(lo, hi);
                Form::Affine {
                    scale,
                    shift,
                    lo,
                    hi,
                }
            }
            Form::Sigmoid { lo, hi } => {
                let (lo, hi) = bound(lo, hi);
                Form::Sigmoid { lo, hi }
            }
            Form::ErfGate { divisor, lo, hi } => {
                let (lo, hi) = bound(lo, hi);
                Form::ErfGate { divisor, lo, hi }
            }
            _ => return None,
        })
    }

    /// The activation a final form is: the value stored.
    fn activation(self) -> Option<([f64; 2], Gate)> {
        match self {
            Form::Clamped { lo, hi } => Some(([lo, hi], Gate::None)),
            Form::HardGated {
                scale,
                shift,
                lo,
                hi,
            } => Some(([lo, hi], Gate::Hard { scale, shift })),
            _ => None,
        }
    }

    /// The gate a form is, multiplied by `x` in a map of its own.
    fn gate(self) -> Option<([f64; 2], Gate)> {
        match self {
            Form::Affine {
                scale,
                shift,
                lo,
                hi,
            } => Some(([lo, hi], Gate::Hard { scale, shift })),
            Form::Sigmoid { lo, hi } => Some(([lo, hi], Gate::Sigmoid)),
            Form::ErfGate { divisor, lo, hi } => Some((
                [lo, hi],
                Gate::Erf {
                    divisor,
                    scale: 1.0,
                },
            )),
            _ => None,
        }
    }
}

impl Bufferizer<'_> {
    /// The activation library convolution `conv` can apply to its result: a clamp,
    /// or with `gates` a clamp or a gate. Every map absorbed has a `tensor.empty`
    /// init used by nothing else and not yet bufferized; the result and every
    /// intermediate value are used by the absorbed maps only.
    pub(crate) fn absorbable_activation(&self, conv: OpId, gates: bool) -> Option<Activation> {
        let result = self.ir.body(self.body).results(conv).next()?;
        self.activation_of(result, gates)
    }

    /// The activation a packed matrix product's call can apply: of its result, or of
    /// that result reshaped by a `tensor.collapse_shape` then a `tensor.expand_shape`
    /// (each its operand's only user: a linear layer's rows back in the network's
    /// shape), with the value the maps read (the call's output seen in its shape).
    pub(crate) fn product_activation(&self, product: OpId) -> Option<(ValueId, Activation)> {
        let b = self.ir.body(self.body);
        let result = b.results(product).next()?;
        let reshaped = || {
            let collapse = single_user(self, result)?;
            let collapsed = b.results(collapse).next()?;
            let expand = single_user(self, collapsed)?;
            let is = |op: OpId, kind: tensor::Op| {
                tensor::Op::of(self.ctx, self.ir.op(self.body, op)) == Some(kind)
            };
            (is(collapse, tensor::Op::CollapseShape) && is(expand, tensor::Op::ExpandShape))
                .then(|| b.results(expand).next())
                .flatten()
        };
        let x = reshaped().unwrap_or(result);
        Some((x, self.activation_of(x, true)?))
    }

    /// The activation of `result` its maps compute (see [`Self::absorbable_activation`]).
    fn activation_of(&self, result: ValueId, gates: bool) -> Option<Activation> {
        let b = self.ir.body(self.body);
        let users: Vec<OpId> = b.value_users(result).collect();
        let activation = match users.as_slice() {
            [map] => self.clamp_chain(result, *map)?,
            [first, second] if gates => self
                .gated_product(result, *first, *second)
                .or_else(|| self.gated_product(result, *second, *first))?,
            _ => return None,
        };
        (gates || activation.gate == Gate::None).then_some(activation)
    }

    /// The longest chain of one-input maps from `first` (of `x`) that computes a
    /// clamp or a gated value of `x`.
    fn clamp_chain(&self, x: ValueId, first: OpId) -> Option<Activation> {
        let b = self.ir.body(self.body);
        let (mut maps, mut form, mut value, mut best) = (Vec::new(), Form::IDENTITY, x, None);
        let mut map = first;
        while let Some(init) = self.absorbable_map(map, &[value]) {
            let Some(next) = self.region_form(map, form, maps.is_empty()) else {
                break;
            };
            (form, value) = (next, b.results(map).next()?);
            maps.push((map, init));
            if let Some((bounds, gate)) = form.activation() {
                best = Some(Activation {
                    maps: maps.clone(),
                    bounds,
                    gate,
                });
            }
            match single_user(self, value) {
                Some(user) => map = user,
                None => break,
            }
        }
        best
    }

    /// `product` = x * g, g computed from x by a chain of one-input maps from
    /// `first`, each result used by the next map only.
    fn gated_product(&self, x: ValueId, first: OpId, product: OpId) -> Option<Activation> {
        let b = self.ir.body(self.body);
        let (mut maps, mut form, mut value, mut map) = (Vec::new(), Form::IDENTITY, x, first);
        while map != product {
            let init = self.absorbable_map(map, &[value])?;
            form = self.region_form(map, form, maps.is_empty())?;
            value = b.results(map).next()?;
            maps.push((map, init));
            map = single_user(self, value)?;
        }
        let (bounds, gate) = form.gate()?;
        let init = self
            .absorbable_map(product, &[x, value])
            .or_else(|| self.absorbable_map(product, &[value, x]))?;
        let [multiply, yield_op] = self.region_ops(product)?[..] else {
            return None;
        };
        let [p, q] = b.block_args(self.map_block(product)?) else {
            return None;
        };
        ((self.is_arith(multiply, arith::Op::Mulf, &[*p, *q])
            || self.is_arith(multiply, arith::Op::Mulf, &[*q, *p]))
            && self.is_yield_of(yield_op, b.results(multiply).next()?))
        .then_some(())?;
        maps.push((product, init));
        // GELU's product is then scaled (by 1/2): a map of the product alone
        // multiplying it by a constant.
        let mut gate = gate;
        if let Gate::Erf { divisor, .. } = gate {
            let product_value = b.results(product).next()?;
            let scaled = single_user(self, product_value).and_then(|next| {
                let init = self.absorbable_map(next, &[product_value])?;
                match self.region_form(next, Form::IDENTITY, false)? {
                    Form::Scaled { scale } => Some((next, init, scale)),
                    _ => None,
                }
            });
            if let Some((next, init, scale)) = scaled {
                maps.push((next, init));
                gate = Gate::Erf { divisor, scale };
            }
        }
        Some(Activation { maps, bounds, gate })
    }

    /// The form of what a one-input map's region yields, its argument being of form
    /// `form`; `first`: the map reads `x` itself (its argument may be multiplied by
    /// its own earlier results: HardSwish in one region).
    fn region_form(&self, map: OpId, mut form: Form, first: bool) -> Option<Form> {
        let b = self.ir.body(self.body);
        let arg = self.map_arg(map)?;
        let mut value = arg;
        for op in self.region_ops(map)? {
            let r = self.ir.op(self.body, op);
            let operands: Vec<ValueId> = b.operands(op).collect();
            if tensor::Op::of(self.ctx, r) == Some(tensor::Op::Yield) {
                return (operands == [value]).then_some(form);
            }
            let arith_op = arith::Op::of(self.ctx, r);
            if arith_op == Some(arith::Op::Constant) {
                continue;
            }
            // The operand other than the running value, of a binary op.
            let other = match operands.as_slice() {
                [v] if *v == value => None,
                [p, q] if *p == value => Some(*q),
                [p, q] if *q == value => Some(*p),
                _ => return None,
            };
            let constant = other.and_then(|o| self.float_constant(o));
            let is_math_exp = math::Op::of(self.ctx, r) == Some(math::Op::Exp);
            let is_math_erf = math::Op::of(self.ctx, r) == Some(math::Op::Erf);
            form = match (arith_op, form, other) {
                (Some(arith::Op::Maximumf), _, Some(_)) => form.clamped(true, constant?)?,
                (Some(arith::Op::Minimumf), _, Some(_)) => form.clamped(false, constant?)?,
                (Some(arith::Op::Mulf), Form::IDENTITY, Some(_)) => {
                    Form::Scaled { scale: constant? }
                }
                // x + c is x * 1 + c: the product is exact.
                (Some(arith::Op::Addf), Form::IDENTITY, Some(_)) => Form::Affine {
                    scale: 1.0,
                    shift: constant?,
                    lo: f64::NEG_INFINITY,
                    hi: f64::INFINITY,
                },
                (Some(arith::Op::Addf), Form::Scaled { scale }, Some(_)) => Form::Affine {
                    scale,
                    shift: constant?,
                    lo: f64::NEG_INFINITY,
                    hi: f64::INFINITY,
                },
                (
                    Some(arith::Op::Mulf),
                    Form::Affine {
                        scale,
                        shift,
                        lo,
                        hi,
                    },
                    Some(o),
                ) if first && o == arg => Form::HardGated {
                    scale,
                    shift,
                    lo,
                    hi,
                },
                (Some(arith::Op::Negf), Form::IDENTITY, None) => Form::Negated,
                // x / c: the running value is the dividend.
                (Some(arith::Op::Divf), Form::IDENTITY, Some(o)) if operands == [value, o] => {
                    Form::Divided { divisor: constant? }
                }
                (None, Form::Divided { divisor }, None) if is_math_erf => Form::ErfOf { divisor },
                (Some(arith::Op::Addf), Form::ErfOf { divisor }, Some(_))
                    if constant == Some(1.0) =>
                {
                    Form::ErfGate {
                        divisor,
                        lo: f64::NEG_INFINITY,
                        hi: f64::INFINITY,
                    }
                }
                (None, Form::Negated, None) if is_math_exp => Form::NegExp,
                (Some(arith::Op::Addf), Form::NegExp, Some(_)) if constant == Some(1.0) => {
                    Form::OnePlusNegExp
                }
                // 1 / (1 + e^-x): the running value is the divisor.
                (Some(arith::Op::Divf), Form::OnePlusNegExp, Some(o))
                    if operands == [o, value] && constant == Some(1.0) =>
                {
                    Form::Sigmoid {
                        lo: f64::NEG_INFINITY,
                        hi: f64::INFINITY,
                    }
                }
                _ => return None,
            };
            value = b.results(op).next()?;
        }
        None
    }

    /// The init of `map` when its inputs are exactly `inputs` and its init a
    /// `tensor.empty` used by it alone and not yet bufferized, its result of the
    /// type of the first input.
    fn absorbable_map(&self, map: OpId, inputs: &[ValueId]) -> Option<ValueId> {
        let b = self.ir.body(self.body);
        if !tensor::Map::is(self.ctx, self.ir.op(self.body, map)) {
            return None;
        }
        let operands: Vec<ValueId> = b.operands(map).collect();
        let (init, ins) = operands.split_last()?;
        let result = b.results(map).next()?;
        let empty_init = match b.value(*init).def {
            ValueDef::Result(def, _) => tensor::Empty::is(self.ctx, self.ir.op(self.body, def)),
            _ => false,
        };
        (ins == inputs
            && empty_init
            && b.value_users(*init).count() == 1
            && !self.buffers.contains_key(init)
            && b.value_type(result) == b.value_type(inputs[0]))
        .then_some(*init)
    }

    /// The entry block of a map's region.
    fn map_block(&self, map: OpId) -> Option<acc_ir::BlockId> {
        let b = self.ir.body(self.body);
        b.op_regions(map).first().and_then(|r| b.entry_block(*r))
    }

    /// The single argument of a one-input map's region.
    fn map_arg(&self, map: OpId) -> Option<ValueId> {
        match self.ir.body(self.body).block_args(self.map_block(map)?) {
            [x] => Some(*x),
            _ => None,
        }
    }

    /// The ops of a map's region, in order (its yield last).
    fn region_ops(&self, map: OpId) -> Option<Vec<OpId>> {
        Some(
            self.ir
                .body(self.body)
                .block_ops(self.map_block(map)?)
                .collect(),
        )
    }

    /// Whether `op` is the arith op `kind` of exactly `operands`.
    fn is_arith(&self, op: OpId, kind: arith::Op, operands: &[ValueId]) -> bool {
        arith::Op::of(self.ctx, self.ir.op(self.body, op)) == Some(kind)
            && self
                .ir
                .body(self.body)
                .operands(op)
                .eq(operands.iter().copied())
    }

    /// Whether `op` is a `tensor.yield` of `value`.
    fn is_yield_of(&self, op: OpId, value: ValueId) -> bool {
        tensor::Op::of(self.ctx, self.ir.op(self.body, op)) == Some(tensor::Op::Yield)
            && self.ir.body(self.body).operands(op).eq([value])
    }
}

/// The only user of `v`, if it has exactly one.
fn single_user(z: &Bufferizer<'_>, v: ValueId) -> Option<OpId> {
    let mut users = z.ir.body(z.body).value_users(v);
    let user = users.next()?;
    users.next().is_none().then_some(user)
}
