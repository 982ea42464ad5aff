//! Which padding lanes are zeros: when a blocked value's partial last block holds
//! zeros past the real channels, `pack(unpack(x))` (which zeroes them again) is `x`.
//!
//! The analysis finds the one value every padding lane of a blocked value holds,
//! when there is one. It is
//! - a pack's padding value (of as many channels);
//! - for a pad of the spatial dimensions, its operand's (when the pad adds zeros
//!   and that is zero); for a pool, its operand's when that is zero;
//! - for an elementwise map, its region evaluated on its inputs' lane values (as
//!   hard-swish's `x * clip(x + 3, 0, 6) / 6` gives zero for zero); with
//!   `assume-finite`, a product with a zero factor is zero whatever the other;
//! - for a constant, or a per-channel broadcast of one, the value it holds there;
//! - with `assume-finite`, for a blocked convolution whose filter is a constant with
//!   zero weights for the padding channels, its init's: each padding output is the
//!   init plus inputs times zero, which is the init for finite inputs (an infinite
//!   or NaN input would make it NaN).

use acc_ir::elements::{self, Scalar};
use acc_ir::{OpId, ValueId};

use super::Layouts;
use acc_dialects::ops::{arith, tensor};

/// How deep the proof follows operands before giving up.
const DEPTH: usize = 64;

impl Layouts<'_> {
    /// Whether `v`, blocked NCHW16c (`[N][C/16][H][W][16]`) with `channels` real
    /// channels, holds zeros in the padding lanes of its last block.
    pub(super) fn zero_padding_lanes(&self, v: ValueId, channels: i64) -> bool {
        let Some((shape, _)) = self.shape(v) else {
            return false;
        };
        if shape.len() == 5 && shape[4] == 16 && shape[1] * 16 == channels {
            return true;
        }
        self.lane_value(v, channels, DEPTH) == Some(0.0)
    }

    /// The value every padding lane of `v` (blocked NCHW16c with `channels` real
    /// channels, a partial last block) holds, when the analysis finds one.
    fn lane_value(&self, v: ValueId, channels: i64, depth: usize) -> Option<f64> {
        let depth = depth.checked_sub(1)?;
        let (shape, _) = self.shape(v)?;
        if shape.len() != 5 || shape[4] != 16 || shape[1] * 16 == channels {
            return None;
        }
        let def = self.def(v)?;
        let operands = self.operands(def);
        let zero_in = |x: ValueId| self.lane_value(x, channels, depth) == Some(0.0);
        match self.kind(def) {
            Some(tensor::Op::Pack) => {
                let source_channels = self.shape(operands[0]).and_then(|(s, _)| s.get(1).copied());
                let tiled_channels = source_channels == Some(channels)
                    && self.ints(def, tensor::Pack::ATTR_INNER_DIMS_POS) == [1];
                if !tiled_channels {
                    return None;
                }
                match operands.get(2) {
                    None => Some(0.0),
                    Some(p) => match self.constant_scalar(*p) {
                        Some(Scalar::Float(f)) => Some(f),
                        _ => None,
                    },
                }
            }
            Some(tensor::Op::Pad) => {
                let (low, high) = (
                    self.ints(def, tensor::Pad::ATTR_STATIC_LOW),
                    self.ints(def, tensor::Pad::ATTR_STATIC_HIGH),
                );
                let lanes_kept = [1, 4]
                    .iter()
                    .all(|d| low.get(*d) == Some(&0) && high.get(*d) == Some(&0));
                (lanes_kept && self.yields_zero(def) && zero_in(operands[0])).then_some(0.0)
            }
            Some(tensor::Op::Pool) => zero_in(operands[0]).then_some(0.0),
            Some(tensor::Op::Map) => {
                let (inputs, _) = operands.split_at(operands.len() - 1);
                let lanes: Vec<Option<f64>> = inputs
                    .iter()
                    .map(|x| self.lane_value(*x, channels, depth))
                    .collect();
                self.map_lanes(def, &lanes)
            }
            Some(tensor::Op::Broadcast) => {
                // A per-channel bias: blocks x 16 broadcast along N, H, W.
                if self.ints(def, tensor::Broadcast::ATTR_DIMENSIONS) != [0, 2, 3] {
                    return None;
                }
                self.constant_beyond(operands[0], 0, 1, channels)
            }
            _ if self.is_constant(def) => self.constant_beyond(v, 1, 4, channels),
            Some(tensor::Op::Conv2d) if self.assume_finite => {
                let filter = self.operands(def)[1];
                let filter_rank = self.shape(filter).map_or(0, |(s, _)| s.len());
                // OIHW16i16o: output channel = [0] * 16 + [5]; OIHW16o: [0] * 16 + [4].
                let lane = if filter_rank == 6 { 5 } else { 4 };
                if self.constant_beyond(filter, 0, lane, channels) != Some(0.0) {
                    return None;
                }
                self.lane_value(operands[2], channels, depth)
            }
            _ => None,
        }
    }

    fn is_zero(&self, v: ValueId) -> bool {
        matches!(self.constant_scalar(v), Some(Scalar::Float(f)) if f == 0.0)
    }

    /// Whether a pad's region yields a zero constant.
    fn yields_zero(&self, pad: OpId) -> bool {
        let b = self.ir.body(self.body);
        let Some(block) = b.op_regions(pad).first().and_then(|r| b.entry_block(*r)) else {
            return false;
        };
        let Some(last) = b.block_ops(block).last() else {
            return false;
        };
        b.operands(last).all(|v| self.is_zero(v))
    }

    /// What a map's region gives for inputs holding `lanes` (`None`: unknown):
    /// its ops evaluated (constants, and `arith` max, min, add, sub, mul, div, neg;
    /// a division by zero gives NaN or an infinity, which matches nothing). With
    /// `assume-finite`, a product with a zero factor is zero.
    fn map_lanes(&self, map: OpId, lanes: &[Option<f64>]) -> Option<f64> {
        let b = self.ir.body(self.body);
        let block = b.op_regions(map).first().and_then(|r| b.entry_block(*r))?;
        let args = b.block_args(block);
        if args.len() != lanes.len() {
            return None;
        }
        let mut values: rustc_hash::FxHashMap<ValueId, Option<f64>> =
            args.iter().copied().zip(lanes.iter().copied()).collect();
        let value = |values: &rustc_hash::FxHashMap<ValueId, Option<f64>>, v: ValueId| {
            values
                .get(&v)
                .copied()
                .unwrap_or_else(|| match self.constant_scalar(v) {
                    Some(Scalar::Float(f)) => Some(f),
                    _ => None,
                })
        };
        for op in b.block_ops(block) {
            let o = self.ir.op(self.body, op);
            let args: Vec<Option<f64>> = b.operands(op).map(|v| value(&values, v)).collect();
            if tensor::Yield::is(self.ctx, o) {
                return match args[..] {
                    [y] => y,
                    _ => None,
                };
            }
            let kind = arith::Op::of(self.ctx, o);
            let result = match (kind, args.as_slice()) {
                (Some(arith::Op::Constant), _) => continue,
                (Some(arith::Op::Mulf), [Some(z), _] | [_, Some(z)])
                    if *z == 0.0 && self.assume_finite =>
                {
                    Some(0.0)
                }
                (Some(arith::Op::Maximumf), [Some(x), Some(y)]) => Some(x.max(*y)),
                (Some(arith::Op::Minimumf), [Some(x), Some(y)]) => Some(x.min(*y)),
                (Some(arith::Op::Addf), [Some(x), Some(y)]) => Some(x + y),
                (Some(arith::Op::Subf), [Some(x), Some(y)]) => Some(x - y),
                (Some(arith::Op::Mulf), [Some(x), Some(y)]) => Some(x * y),
                (Some(arith::Op::Divf), [Some(x), Some(y)]) => Some(x / y),
                (Some(arith::Op::Negf), [Some(x)]) => Some(-x),
                _ => None,
            };
            if let Some(r) = b.results(op).next() {
                values.insert(r, result.filter(|v| !v.is_nan()));
            }
        }
        None
    }

    /// The one value constant `v` holds at every channel `index[block] * 16 +
    /// index[lane]` of `channels` or more, if it holds one there.
    fn constant_beyond(&self, v: ValueId, block: usize, lane: usize, channels: i64) -> Option<f64> {
        let def = self.def(v)?;
        let attr = arith::Constant::of(self.ctx, self.ir.op(self.body, def))
            .and_then(|c| c.value_attr())?;
        let (dense, (shape, _)) = (elements::dense(self.ctx, attr)?, self.shape(v)?);
        if block >= shape.len() || lane >= shape.len() {
            return None;
        }
        let mut strides = vec![1i64; shape.len()];
        for d in (0..shape.len() - 1).rev() {
            strides[d] = strides[d + 1] * shape[d + 1];
        }
        let count: i64 = shape.iter().product();
        let mut found: Option<f64> = None;
        for flat in 0..count {
            let at = |d: usize| flat / strides[d] % shape[d];
            if at(block) * 16 + at(lane) < channels {
                continue;
            }
            let x = match dense.get(flat as usize) {
                Scalar::Float(f) => f,
                Scalar::Int(i) => i as f64,
            };
            match found {
                Some(f) if f.to_bits() != x.to_bits() => return None,
                _ => found = Some(x),
            }
        }
        found.filter(|f| !f.is_nan())
    }
}
