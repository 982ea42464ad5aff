//! Which padding lanes are zeros: when a blocked value's partial last block holds
//! zeros past the real channels, `pack(unpack(x))` (which zeroes them again) is `x`.
//!
//! A blocked value here has its channels in blocks along one dimension (1 for
//! NCHW16c; another after a reshape or a reduction) and the 16 lanes of a block
//! innermost. The analysis finds the one value every padding lane holds, when there
//! is one. It is
//! - a pack's padding value (of as many channels);
//! - for a pad of the other dimensions, its operand's (when the pad adds zeros
//!   and that is zero); for a pool, its operand's when that is zero;
//! - for an elementwise map, its region evaluated on its inputs' lane values (as
//!   hard-swish's `x * clip(x + 3, 0, 6) / 6` gives zero for zero); with
//!   `assume-finite`, a product with a zero factor is zero whatever the other;
//! - for a reduction that leaves the channels alone, the value its combiner gives
//!   for the input's lane value and the init's, when combining one more element
//!   leaves it unchanged (a sum of zeros into zero is zero, whatever the count);
//! - for a reshape that only adds or drops dimensions of size 1 around the
//!   channels, or a broadcast along other dimensions, its operand's;
//! - for a constant, the value it holds there;
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
    /// Whether `v`, blocked with its channels in blocks along dimension `block` and
    /// the 16 lanes innermost (NCHW16c is `[N][C/16][H][W][16]`, `block` 1), with
    /// `channels` real channels, holds zeros in the padding lanes of its last block.
    pub(super) fn zero_padding_lanes(&self, v: ValueId, block: usize, channels: i64) -> bool {
        let Some((shape, _)) = self.shape(v) else {
            return false;
        };
        if shape.len() > block + 1 && shape.last() == Some(&16) && shape[block] * 16 == channels {
            return true;
        }
        self.lane_value(v, block, channels, DEPTH) == Some(0.0)
    }

    /// The value every padding lane of `v` (blocked along `block`, 16 lanes
    /// innermost, `channels` real channels, a partial last block) holds, when the
    /// analysis finds one.
    fn lane_value(&self, v: ValueId, block: usize, channels: i64, depth: usize) -> Option<f64> {
        let depth = depth.checked_sub(1)?;
        let (shape, _) = self.shape(v)?;
        let lane = shape.len().checked_sub(1)?;
        if block >= lane || shape[lane] != 16 || shape[block] * 16 == channels {
            return None;
        }
        let def = self.def(v)?;
        let operands = self.operands(def);
        let zero_in = |x: ValueId| self.lane_value(x, block, channels, depth) == Some(0.0);
        match self.kind(def) {
            Some(tensor::Op::Pack) => {
                let source_channels = self
                    .shape(operands[0])
                    .and_then(|(s, _)| s.get(block).copied());
                let tiled_channels = source_channels == Some(channels)
                    && self.ints(def, tensor::Pack::ATTR_INNER_DIMS_POS) == [block as i64];
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
                let lanes_kept = [block, lane]
                    .iter()
                    .all(|d| low.get(*d) == Some(&0) && high.get(*d) == Some(&0));
                (lanes_kept && self.yields_zero(def) && zero_in(operands[0])).then_some(0.0)
            }
            Some(tensor::Op::Pool) if block == 1 => zero_in(operands[0]).then_some(0.0),
            Some(tensor::Op::Map) => {
                let (inputs, _) = operands.split_at(operands.len() - 1);
                let lanes: Vec<Option<f64>> = inputs
                    .iter()
                    .map(|x| self.lane_value(*x, block, channels, depth))
                    .collect();
                self.region_lanes(def, &lanes)
            }
            Some(tensor::Op::Reduce) => {
                // The input's dimension of result dimension `block`: the block-th
                // one not reduced.
                let dims = self.ints(def, tensor::Reduce::ATTR_DIMENSIONS);
                let (input_shape, _) = self.shape(operands[0])?;
                let kept: Vec<usize> = (0..input_shape.len())
                    .filter(|d| !dims.contains(&(*d as i64)))
                    .collect();
                let reduced_all_nonempty = dims
                    .iter()
                    .all(|d| input_shape.get(*d as usize).is_some_and(|n| *n > 0));
                let input_block = *kept.get(block)?;
                if dims.is_empty()
                    || !reduced_all_nonempty
                    || kept.last() != Some(&(input_shape.len() - 1))
                {
                    return None;
                }
                let input_lane = self.lane_value(operands[0], input_block, channels, depth);
                let init_lane = self.lane_value(operands[1], block, channels, depth);
                // The combiner takes an element and the accumulated value: a lane
                // value that combining another element leaves unchanged is the
                // result, however many elements there are.
                let first = self.region_lanes(def, &[input_lane, init_lane])?;
                let again = self.region_lanes(def, &[input_lane, Some(first)])?;
                (first.to_bits() == again.to_bits()).then_some(first)
            }
            Some(tensor::Op::CollapseShape | tensor::Op::ExpandShape) => {
                let groups = self.attrs(def).reassociation().ok()?;
                let (source, _) = self.shape(operands[0])?;
                let collapse = self.kind(def) == Some(tensor::Op::CollapseShape);
                let (large, small) = if collapse {
                    (&source, &shape)
                } else {
                    (&shape, &source)
                };
                // The lanes are the last group, alone on both sides.
                if groups.last() != Some(&vec![large.len() - 1]) {
                    return None;
                }
                let source_block = if collapse {
                    // The source dimension of the group that makes dimension
                    // `block`: the one of its size, the others 1.
                    let group = groups.get(block)?;
                    let kept = group.iter().copied().find(|d| large[*d] == small[block])?;
                    group
                        .iter()
                        .all(|d| *d == kept || large[*d] == 1)
                        .then_some(kept)?
                } else {
                    // The group dimension `block` is in, whose other dimensions are 1.
                    let g = groups.iter().position(|g| g.contains(&block))?;
                    groups[g]
                        .iter()
                        .all(|d| *d == block || large[*d] == 1)
                        .then_some(g)?
                };
                self.lane_value(operands[0], source_block, channels, depth)
            }
            Some(tensor::Op::Broadcast) => {
                // The operand's dimension of result dimension `block`.
                let added = self.ints(def, tensor::Broadcast::ATTR_DIMENSIONS);
                if added.contains(&(block as i64)) || added.contains(&(lane as i64)) {
                    return None;
                }
                let inner = block - added.iter().filter(|a| **a < block as i64).count();
                self.lane_value(operands[0], inner, channels, depth)
            }
            _ if self.is_constant(def) => self.constant_beyond(v, block, lane, channels),
            Some(tensor::Op::Conv2d) if self.assume_finite && block == 1 && lane == 4 => {
                let filter = self.operands(def)[1];
                let filter_rank = self.shape(filter).map_or(0, |(s, _)| s.len());
                // OIHW16i16o: output channel = [0] * 16 + [5]; OIHW16o: [0] * 16 + [4].
                let filter_lane = if filter_rank == 6 { 5 } else { 4 };
                if self.constant_beyond(filter, 0, filter_lane, channels) != Some(0.0) {
                    return None;
                }
                self.lane_value(operands[2], block, channels, depth)
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

    /// What a map's region (or a reduce's combiner) gives for arguments holding
    /// `lanes` (`None`: unknown): its ops evaluated (constants, and `arith` max, min, add, sub, mul, div, neg;
    /// a division by zero gives NaN or an infinity, which matches nothing). With
    /// `assume-finite`, a product with a zero factor is zero.
    fn region_lanes(&self, op: OpId, lanes: &[Option<f64>]) -> Option<f64> {
        let b = self.ir.body(self.body);
        let block = b.op_regions(op).first().and_then(|r| b.entry_block(*r))?;
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
