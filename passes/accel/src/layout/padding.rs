//! Which padding lanes are zeros: when a blocked value's partial last block holds
//! zeros past the real channels, `pack(unpack(x))` (which zeroes them again) is `x`.
//!
//! A value's padding lanes are zeros when it is
//! - a pack with a zero padding value of as many channels;
//! - a pad, pool or elementwise map of such values (a map whose region gives zero
//!   for zeros; a pad of the spatial dimensions by zero);
//! - a constant, or a broadcast of one, with zeros there;
//! - with `assume-finite`, a blocked convolution whose init has zero padding lanes
//!   and whose filter is a constant with zero weights for the padding channels: each
//!   padding output is the init plus inputs times zero, which is zero for finite
//!   inputs (an infinite or NaN input would make it NaN).

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
        self.zero_lanes(v, channels, DEPTH)
    }

    fn zero_lanes(&self, v: ValueId, channels: i64, depth: usize) -> bool {
        let Some(depth) = depth.checked_sub(1) else {
            return false;
        };
        let Some((shape, _)) = self.shape(v) else {
            return false;
        };
        if shape.len() != 5 || shape[4] != 16 {
            return false;
        }
        if shape[1] * 16 == channels {
            return true;
        }
        let Some(def) = self.def(v) else {
            return false;
        };
        let operands = self.operands(def);
        match self.kind(def) {
            Some(tensor::Op::Pack) => {
                let source_channels = self.shape(operands[0]).and_then(|(s, _)| s.get(1).copied());
                let zero = operands.get(2).is_none_or(|p| self.is_zero(*p));
                source_channels == Some(channels)
                    && zero
                    && self.ints(def, tensor::Pack::ATTR_INNER_DIMS_POS) == [1]
            }
            Some(tensor::Op::Pad) => {
                let (low, high) = (
                    self.ints(def, tensor::Pad::ATTR_STATIC_LOW),
                    self.ints(def, tensor::Pad::ATTR_STATIC_HIGH),
                );
                let lanes_kept = [1, 4]
                    .iter()
                    .all(|d| low.get(*d) == Some(&0) && high.get(*d) == Some(&0));
                lanes_kept && self.yields_zero(def) && self.zero_lanes(operands[0], channels, depth)
            }
            Some(tensor::Op::Pool) => self.zero_lanes(operands[0], channels, depth),
            Some(tensor::Op::Map) => {
                let (inputs, _) = operands.split_at(operands.len() - 1);
                self.maps_zeros_to_zero(def)
                    && inputs.iter().all(|x| self.zero_lanes(*x, channels, depth))
            }
            Some(tensor::Op::Broadcast) => {
                // A per-channel bias: blocks x 16 broadcast along N, H, W.
                self.ints(def, tensor::Broadcast::ATTR_DIMENSIONS) == [0, 2, 3]
                    && self.constant_zero_beyond(operands[0], 0, 1, channels)
            }
            _ if self.is_constant(def) => self.constant_zero_beyond(v, 1, 4, channels),
            Some(tensor::Op::Conv2d) if self.assume_finite => {
                let filter = self.operands(def)[1];
                let filter_rank = self.shape(filter).map_or(0, |(s, _)| s.len());
                // OIHW16i16o: output channel = [0] * 16 + [5]; OIHW16o: [0] * 16 + [4].
                let lane = if filter_rank == 6 { 5 } else { 4 };
                self.constant_zero_beyond(filter, 0, lane, channels)
                    && self.zero_lanes(operands[2], channels, depth)
            }
            _ => false,
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

    /// Whether a map's region gives zero when every input element is zero: its ops
    /// evaluated on zeros (constants, and `arith` max, min, add, sub, mul).
    fn maps_zeros_to_zero(&self, map: OpId) -> bool {
        let b = self.ir.body(self.body);
        let Some(block) = b.op_regions(map).first().and_then(|r| b.entry_block(*r)) else {
            return false;
        };
        let mut values: rustc_hash::FxHashMap<ValueId, f64> =
            b.block_args(block).iter().map(|a| (*a, 0.0)).collect();
        let value = |values: &rustc_hash::FxHashMap<ValueId, f64>, v: ValueId| {
            values
                .get(&v)
                .copied()
                .or_else(|| match self.constant_scalar(v) {
                    Some(Scalar::Float(f)) => Some(f),
                    _ => None,
                })
        };
        for op in b.block_ops(block) {
            let o = self.ir.op(self.body, op);
            let args: Option<Vec<f64>> = b.operands(op).map(|v| value(&values, v)).collect();
            let Some(args) = args else {
                return false;
            };
            let result = match (arith::Op::of(self.ctx, o), args.as_slice()) {
                (Some(arith::Op::Constant), _) => continue,
                (None, [y]) if tensor::Yield::is(self.ctx, o) => return *y == 0.0,
                (Some(arith::Op::Maximumf), [x, y]) => x.max(*y),
                (Some(arith::Op::Minimumf), [x, y]) => x.min(*y),
                (Some(arith::Op::Addf), [x, y]) => x + y,
                (Some(arith::Op::Subf), [x, y]) => x - y,
                (Some(arith::Op::Mulf), [x, y]) => x * y,
                _ => return false,
            };
            if let Some(r) = b.results(op).next() {
                values.insert(r, result);
            }
        }
        false
    }

    /// Whether `v` is a constant whose elements at channels `index[block] * 16 +
    /// index[lane]` of `channels` or more are all zero.
    fn constant_zero_beyond(&self, v: ValueId, block: usize, lane: usize, channels: i64) -> bool {
        let Some(def) = self.def(v) else {
            return false;
        };
        let Some(attr) =
            arith::Constant::of(self.ctx, self.ir.op(self.body, def)).and_then(|c| c.value_attr())
        else {
            return false;
        };
        let (Some(dense), Some((shape, _))) = (elements::dense(self.ctx, attr), self.shape(v))
        else {
            return false;
        };
        if block >= shape.len() || lane >= shape.len() {
            return false;
        }
        let mut strides = vec![1i64; shape.len()];
        for d in (0..shape.len() - 1).rev() {
            strides[d] = strides[d + 1] * shape[d + 1];
        }
        let count: i64 = shape.iter().product();
        (0..count).all(|flat| {
            let at = |d: usize| flat / strides[d] % shape[d];
            let channel = at(block) * 16 + at(lane);
            channel < channels
                || matches!(dense.get(flat as usize), Scalar::Float(f) if f == 0.0)
                || dense.get(flat as usize) == Scalar::Int(0)
        })
    }
}
