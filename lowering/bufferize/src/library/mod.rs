//! Calls of the host's kernels: the functions a target names with `kernel SYMBOL
//! implements INTERFACE` (`acc_target::HOST_INTERFACES`), or the pass's options name.
//! Which kernel computes which tensor op (matrix products, packed or strided;
//! convolutions plain, depthwise or blocked; `exp` and `erf` over arrays), what a
//! library convolution takes over from the ops around it (a zero pad before it, a
//! bias broadcast into its init, a clamp after it), weights packed at compile time, and
//! the calls themselves. An op no kernel computes becomes loops (`crate::loop_nests`).

mod activation;
mod strided;

pub(crate) use activation::{Activation, Gate};

pub(crate) use strided::window;

use acc_dialects::build::BuildExt as _;
use acc_dialects::build::{Builder, dense_bytes, memref_type};
use acc_dialects::ops::{arith, loops, math, tensor};
use acc_ir::{OpId, ValueId};

use crate::loop_nests::build::{index_add, index_op, parallel};
use crate::{Bufferizer, PANEL_COLUMNS, buffer_type};

/// The host library's kernels f32 products call (`hw.intrinsic`), where it has
/// them; loop nests otherwise.
#[derive(Clone, Debug, Default)]
pub(crate) struct Library {
    /// C += A x B on row-major matrices: (a, b, c, m, n, k).
    pub(crate) gemm: Option<String>,
    /// out = clamp(out + conv(x, w), lo, hi), batch 1, NCHW, ungrouped: (x, w, out,
    /// c, h, w, m, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl, lo, hi), zero padding
    /// read as zeros (a zero pad feeding only such a convolution is not
    /// materialized), a ReLU / Clip map that is the result's only user applied as
    /// the clamp; `NAME_bias` (x, w, bias, out, ...) starts from a per-channel bias
    /// instead of out (an init that broadcasts one). Without it, convolutions use
    /// `gemm`.
    pub(crate) conv: Option<String>,
    /// out = clamp(out + the depthwise conv(x, w), lo, hi) (groups = input
    /// channels = output channels), batch 1, NCHW: (x, w, out, c, h, w, kh, kw, oh,
    /// ow, sh, sw, dh, dw, pt, pl, lo, hi), padding and clamp as for `conv`.
    /// Without it, loops.
    pub(crate) depthwise: Option<String>,
    /// As `conv`, in blocked layouts: x and out NCHW16c, w OIHW16i16o, the channel
    /// counts passed as blocks x 16 (the `layout` pass's host preference).
    /// Without it, blocked convolutions have no bufferization.
    pub(crate) blocked: Option<String>,
    /// As `depthwise`, in blocked layouts: x and out NCHW16c, w OIHW16o (one input
    /// channel per group), the channel count passed as blocks x 16.
    pub(crate) blocked_depthwise: Option<String>,
    /// As `blocked`, grouped: each group whole blocks of input and output channels,
    /// w `[M/16][C/G/16][kh][kw][16][16]`, the groups after the padding.
    pub(crate) blocked_grouped: Option<String>,
    /// As `blocked`, the input plain NCHW (any channel count) and the filter OIHW16o.
    pub(crate) blocked_nchw_input: Option<String>,
    /// As `gemm` with a constant B packed at compile time into panels of
    /// [`PANEL_COLUMNS`] columns (layout `NK48n`: ceil(n / 48) panels, each k rows of
    /// 48 floats, the last one's extra columns zero); `NAME_bias` (a, b, bias, c, m,
    /// n, k) starts each column from its bias instead of c (an init that broadcasts
    /// one along dimension 0).
    pub(crate) packed_gemm: Option<String>,
    /// C += A x B, or C = A x B when `accumulate` is 0, on matrices with any
    /// strides: (a, b, c, m, n, k, a_rs, a_cs, b_rs, b_cs, c_rs, c_cs, accumulate),
    /// for products reading transposes in place or overwriting a zero init.
    pub(crate) strided_gemm: Option<String>,
    /// A max or average pool of f32 NCHW16c buffers: (x, out, blocks, h, w, oh, ow,
    /// kh, kw, sh, sw, dh, dw, pad top, pad left, average, count_include_pad).
    pub(crate) blocked_pool: Option<String>,
    /// out[i] = e^x[i] on f32 arrays: (x, out, n), x and out possibly the same.
    pub(crate) exp: Option<String>,
    /// out[i] = e^-x[i], as `exp`: a map of exactly `exp(negf(x))` of an input.
    pub(crate) exp_neg: Option<String>,
    /// out[i] = erf(x[i]), as `exp`.
    pub(crate) erf: Option<String>,
    /// out[i] = tanh(x[i]), as `exp`.
    pub(crate) tanh: Option<String>,
}

/// A library function that finishes a `tensor.map`: the region's `math` op it
/// replaces, the callee, and the map input it applies to directly when the region
/// is that op alone.
pub(crate) struct LibraryFunction {
    pub(crate) op: OpId,
    pub(crate) callee: String,
    pub(crate) argument: Option<usize>,
    /// When the region is exactly `exp(-x)` of an input and the library has e^-x:
    /// that function and the input, which it reads directly instead.
    pub(crate) negated_argument: Option<(String, usize)>,
}

impl Library {
    /// The kernels named by `name(interface)` (a pass option, or a target's kernel
    /// for that interface; `acc_target::HOST_INTERFACES` lists them).
    pub(crate) fn from_names(name: &dyn Fn(&str) -> Option<String>) -> Library {
        Library {
            gemm: name("gemm"),
            conv: name("conv"),
            depthwise: name("depthwise"),
            blocked: name("blocked"),
            blocked_depthwise: name("blocked-depthwise"),
            blocked_grouped: name("blocked-grouped"),
            blocked_nchw_input: name("blocked-nchw-input"),
            packed_gemm: name("packed-gemm"),
            strided_gemm: name("strided-gemm"),
            blocked_pool: name("blocked-pool"),
            exp: name("exp"),
            exp_neg: name("exp-neg"),
            erf: name("erf"),
            tanh: name("tanh"),
        }
    }
}

/// `hw.intrinsic "gemm"(a, b, c, m, n, k)`: C += A x B (row-major, contiguous).
pub(crate) fn call_gemm(
    e: &mut Builder<'_>,
    gemm: &str,
    buffers: [ValueId; 3],
    [m, n, k]: [i64; 3],
) -> Result<(), String> {
    call_library(e, gemm, &buffers, &[m, n, k], None)
}

/// `hw.intrinsic "callee"(buffers..., sizes...)`, the sizes as index constants,
/// then a convolution's activation: its clamp bounds (f32), and when `gated` the
/// gate's code (index) and two parameters (f32).
pub(crate) fn call_library(
    e: &mut Builder<'_>,
    callee: &str,
    buffers: &[ValueId],
    sizes: &[i64],
    activation: Option<(&Activation, bool)>,
) -> Result<(), String> {
    let mut operands = buffers.to_vec();
    for &size in sizes {
        operands.push(e.index(size)?);
    }
    if let Some((activation, gated)) = activation {
        let f32t = e.ctx.float_type(acc_ir::FloatKind::F32);
        for bound in activation.bounds {
            operands.push(e.scalar(f32t, bound)?);
        }
        if gated {
            let (code, params) = activation.gate.operands();
            operands.push(e.index(code)?);
            for p in params {
                operands.push(e.scalar(f32t, p)?);
            }
        }
    }
    e.intrinsic_call(callee, &operands)
}

/// A batch-1, ungrouped NCHW convolution as one matrix product: the filter
/// (M x C*kh*kw) times the input's patches (C*kh*kw x OH*OW, gathered into a new
/// buffer, or the input itself for a 1x1 convolution with unit strides), added into
/// the output seen as M x OH*OW.
#[allow(clippy::too_many_arguments)]
pub(crate) fn conv_as_gemm(
    e: &mut Builder<'_>,
    gemm: &str,
    [x, w, out]: [ValueId; 3],
    sx: &[i64],
    sw: &[i64],
    so: &[i64],
    strides: &[i64],
    dilations: &[i64],
) -> Result<(), String> {
    let (c, h, wd) = (sx[1], sx[2], sx[3]);
    let (m, kh, kw) = (sw[0], sw[2], sw[3]);
    let (oh, ow) = (so[2], so[3]);
    let f32t = e.ctx.float_type(acc_ir::FloatKind::F32);
    let depth = c * kh * kw;
    let plane = oh * ow;
    let as_matrix = |e: &mut Builder<'_>, v: ValueId, rows: i64, cols: i64| {
        let ty = memref_type(e.ctx, &[rows, cols], f32t);
        loops::Reshape::build(e, v, ty).result()
    };
    let filter = as_matrix(e, w, m, depth)?;
    let output = as_matrix(e, out, m, plane)?;
    let direct = kh == 1 && kw == 1 && strides == [1, 1] && oh == h && ow == wd;
    let patches = if direct {
        as_matrix(e, x, c, plane)?
    } else {
        // patches[(ci, i, j), (y, x)] = input[0, ci, y * sh + i * dh, x * sw + j * dw]
        let ty = memref_type(e.ctx, &[c, kh, kw, oh, ow], f32t);
        let buf = loops::Alloc::build(e, &[], ty).result()?;
        parallel(e, &[c, kh, kw, oh, ow], &mut |e, ivs| {
            let zero = e.index(0)?;
            let y0 = index_op(e, arith::Op::Muli, ivs[3], strides[0])?;
            let di = index_op(e, arith::Op::Muli, ivs[1], dilations[0])?;
            let iy = index_add(e, y0, di)?;
            let x0 = index_op(e, arith::Op::Muli, ivs[4], strides[1])?;
            let dj = index_op(e, arith::Op::Muli, ivs[2], dilations[1])?;
            let ix = index_add(e, x0, dj)?;
            let v = loops::Load::build(e, x, &[zero, ivs[0], iy, ix], f32t).result()?;
            loops::Store::build(e, v, buf, ivs).create()?;
            Ok(())
        })?;
        as_matrix(e, buf, depth, plane)?
    };
    call_gemm(e, gemm, [filter, patches, output], [m, plane, depth])
}

/// Which library convolution a `tensor.conv2d` calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConvKind {
    /// Ungrouped: every output channel reads every input channel.
    Full,
    /// One filter per channel, output channel c reading input channel c.
    Depthwise,
    /// Ungrouped in NCHW16c / OIHW16i16o.
    Blocked,
    /// Grouped in NCHW16c / OIHW16i16o, whole blocks per group.
    BlockedGrouped,
    /// Depthwise in NCHW16c / OIHW16o.
    BlockedDepthwise,
    /// Ungrouped from NCHW into NCHW16c, the filter OIHW16o.
    BlockedOutput,
}

impl Bufferizer<'_> {
    /// The library matrix product, if there is one and `values` are all f32.
    pub(crate) fn library_gemm(&self, values: &[ValueId]) -> Result<Option<String>, String> {
        Ok(self.library.gemm.clone().filter(|_| self.all_f32(values)))
    }

    /// A library call's name and buffers: `callee(inputs..., dest)`, or, when the
    /// init was a bias broadcast absorbed by [`Self::absorbable_bias`],
    /// `callee_bias(inputs..., bias, dest)`.
    pub(crate) fn biased_call(
        &self,
        init: ValueId,
        callee: String,
        inputs: &[ValueId],
        dest: ValueId,
    ) -> Result<(String, Vec<ValueId>), String> {
        let mut buffers = inputs.to_vec();
        let callee = match self.absorbed_biases.get(&init) {
            Some(bias) => {
                buffers.push(*self.buffers.get(bias).ok_or("the bias has no buffer")?);
                format!("{callee}_bias")
            }
            None => callee,
        };
        buffers.push(dest);
        Ok((callee, buffers))
    }

    /// True when constant `v` is the B of 2-D f32 matrix products only and the
    /// library takes such a B packed (`packed-gemm`).
    pub(crate) fn packable_weight(&self, v: ValueId) -> bool {
        if self.library.packed_gemm.is_none()
            || dense_bytes(self.ctx, self.ir, self.body, v).is_none()
        {
            return false;
        }
        let b = self.ir.body(self.body);
        let mut users = b.value_users(v).peekable();
        users.peek().is_some()
            && users.all(|u| {
                let operands: Vec<ValueId> = b.operands(u).collect();
                tensor::Matmul::is(self.ctx, self.ir.op(self.body, u))
                    && operands.len() == 3
                    && operands[0] != v
                    && operands[1] == v
                    && operands
                        .iter()
                        .all(|x| self.shape(*x).is_ok_and(|s| s.len() == 2))
                    && self.all_f32(&operands)
            })
    }

    /// Constant `b` (k x n) packed into panels: a `loop.constant` of shape
    /// [ceil(n / 48), k, 48], columns past n zero.
    pub(crate) fn packed_constant(&mut self, op: OpId, b: ValueId) -> Result<ValueId, String> {
        let (bytes, splat) =
            dense_bytes(self.ctx, self.ir, self.body, b).ok_or("B is not a dense constant")?;
        let sb = self.shape(b)?;
        let (k, n) = (sb[0] as usize, sb[1] as usize);
        let width = PANEL_COLUMNS as usize;
        let panels = n.div_ceil(width);
        let mut out = vec![0u8; panels * k * width * 4];
        for i in 0..k {
            for j in 0..n {
                let from = if splat { 0 } else { (i * n + j) * 4 };
                let to = ((j / width * k + i) * width + j % width) * 4;
                out[to..to + 4]
                    .copy_from_slice(bytes.get(from..from + 4).ok_or("a short constant")?);
            }
        }
        let f32t = self.element(b);
        let shape = [panels as i64, k as i64, PANEL_COLUMNS];
        let ty = acc_dialects::build::tensor_type(self.ctx, &shape, f32t);
        let value = self
            .ctx
            .intern_attr(acc_ir::attrs::AttrData::DenseElements {
                ty,
                data: acc_ir::attrs::DenseData::Elements(out.into()),
            });
        let buffer = buffer_type(self.ctx, ty);
        loops::Constant::build(&mut self.emitter(op), buffer)
            .value(value)
            .result()
    }

    /// For an `init` that is an f32 splat constant, a `loop.constant` of `n` copies
    /// of its value: the per-column bias a packed product starts from instead.
    pub(crate) fn splat_bias(
        &mut self,
        op: OpId,
        init: ValueId,
        n: i64,
    ) -> Result<Option<ValueId>, String> {
        let f32t = self.ctx.float_type(acc_ir::FloatKind::F32);
        let Some((bytes, true)) = dense_bytes(self.ctx, self.ir, self.body, init) else {
            return Ok(None);
        };
        if self.element(init) != f32t || bytes.len() != 4 {
            return Ok(None);
        }
        let ty = acc_dialects::build::tensor_type(self.ctx, &[n], f32t);
        let value = self
            .ctx
            .intern_attr(acc_ir::attrs::AttrData::DenseElements {
                ty,
                data: acc_ir::attrs::DenseData::Splat(bytes.into()),
            });
        let buffer = buffer_type(self.ctx, ty);
        loops::Constant::build(&mut self.emitter(op), buffer)
            .value(value)
            .result()
            .map(Some)
    }

    /// The library function that can finish map `op`: its region yields an f32
    /// `math.exp` / `math.erf` result used nowhere else, and the library has that
    /// function.
    pub(crate) fn library_function_of_map(&self, op: OpId) -> Option<LibraryFunction> {
        let b = self.ir.body(self.body);
        let region = *self.ir.op(self.body, op).regions().first()?;
        let block = b.entry_block(region)?;
        let yield_op = b.block_ops(block).last()?;
        let y = b.operands(yield_op).next()?;
        let acc_ir::ValueDef::Result(f, 0) = b.value(y).def else {
            return None;
        };
        let callee = match math::Op::of(self.ctx, self.ir.op(self.body, f)) {
            Some(math::Op::Exp) => self.library.exp.clone()?,
            Some(math::Op::Erf) => self.library.erf.clone()?,
            Some(math::Op::Tanh) => self.library.tanh.clone()?,
            _ => return None,
        };
        let f32t = self.ctx.float_type(acc_ir::FloatKind::F32);
        if b.value_type(y) != f32t || b.value_users(y).count() != 1 {
            return None;
        }
        let x = b.operand(f, 0);
        let params = b.block_args(block);
        // The function of an input alone (its element type f32, as the result's).
        let argument = (b.block_ops(block).count() == 2)
            .then(|| params.iter().position(|p| *p == x))
            .flatten();
        // e^-x of an input alone: negf, exp, yield.
        let negated_argument = match b.value(x).def {
            acc_ir::ValueDef::Result(neg, 0)
                if b.block_ops(block).count() == 3
                    && math::Op::of(self.ctx, self.ir.op(self.body, f)) == Some(math::Op::Exp)
                    && arith::Negf::is(self.ctx, self.ir.op(self.body, neg)) =>
            {
                let input = params.iter().position(|p| *p == b.operand(neg, 0));
                self.library.exp_neg.clone().zip(input)
            }
            _ => None,
        };
        Some(LibraryFunction {
            op: f,
            callee,
            argument,
            negated_argument,
        })
    }

    /// The library call a convolution becomes, if any: batch 1, f32, NCHW/OIHW, and
    /// either ungrouped (the `conv` library) or depthwise, one filter per channel
    /// (the `depthwise` library).
    pub(crate) fn conv_library(&self, op: OpId) -> Option<(String, ConvKind)> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let [x, w, init] = <[ValueId; 3]>::try_from(operands).ok()?;
        let in_layouts = |layouts: [&str; 3]| {
            [
                tensor::Conv2d::ATTR_INPUT_LAYOUT,
                tensor::Conv2d::ATTR_FILTER_LAYOUT,
                tensor::Conv2d::ATTR_OUTPUT_LAYOUT,
            ]
            .iter()
            .zip(layouts)
            .all(|(name, want)| {
                let l = self.text(op, name);
                (l.is_empty() && want.len() == 4) || l.contains(&format!("\"{want}\""))
            })
        };
        let (sx, sw, so) = (
            self.shape(x).ok()?,
            self.shape(w).ok()?,
            self.shape(init).ok()?,
        );
        let groups = self.int(op, tensor::Conv2d::ATTR_GROUPS).unwrap_or(1);
        if !self.all_f32(&[x, w, init]) || so.first() != Some(&1) {
            return None;
        }
        if in_layouts(["NCHW16c", "OIHW16i16o", "NCHW16c"]) {
            if groups == 1 {
                return Some((self.library.blocked.clone()?, ConvKind::Blocked));
            }
            // Whole input and output blocks per group.
            let whole = sx.len() == 5
                && sw.len() == 6
                && groups > 1
                && sx[1] % groups == 0
                && sw[0] % groups == 0
                && sw[1] * groups == sx[1];
            return whole
                .then(|| self.library.blocked_grouped.clone())
                .flatten()
                .map(|callee| (callee, ConvKind::BlockedGrouped));
        }
        if in_layouts(["NCHW", "OIHW16o", "NCHW16c"]) {
            return (groups == 1 && sx.len() == 4)
                .then(|| self.library.blocked_nchw_input.clone())
                .flatten()
                .map(|callee| (callee, ConvKind::BlockedOutput));
        }
        if in_layouts(["NCHW16c", "OIHW16o", "NCHW16c"]) {
            // One filter per (padded) channel: groups = blocks x 16, one input
            // channel per group.
            let depthwise = sx.len() == 5
                && sw.len() == 5
                && groups == sx[1] * sx[4]
                && sw[0] == sx[1]
                && sw[1] == 1;
            return depthwise
                .then(|| self.library.blocked_depthwise.clone())
                .flatten()
                .map(|callee| (callee, ConvKind::BlockedDepthwise));
        }
        if !in_layouts(["NCHW", "OIHW", "NCHW"]) || sw.len() != 4 {
            return None;
        }
        if groups == 1 {
            return Some((self.library.conv.clone()?, ConvKind::Full));
        }
        let depthwise = sx.get(1) == Some(&groups) && sw[0] == groups && sw[1] == 1;
        depthwise
            .then(|| self.library.depthwise.clone())
            .flatten()
            .map(|callee| (callee, ConvKind::Depthwise))
    }

    /// A pad the library convolution reading it does itself: zeros around the
    /// spatial dimensions only (static amounts), and that convolution its only
    /// user, taking it as its input. Gives the pad's source and [top, left].
    pub(crate) fn absorbable_pad(&self, op: OpId) -> Option<(ValueId, [i64; 2])> {
        let b = self.ir.body(self.body);
        let [source] = <[ValueId; 1]>::try_from(b.operands(op).collect::<Vec<_>>()).ok()?;
        let result = b.results(op).next()?;
        let mut users = b.value_users(result);
        let conv = users.next()?;
        if users.next().is_some()
            || !tensor::Conv2d::is(self.ctx, self.ir.op(self.body, conv))
            || b.operands(conv).position(|v| v == result) != Some(0)
        {
            return None;
        }
        let (low, high) = (
            self.ints(op, tensor::Pad::ATTR_STATIC_LOW),
            self.ints(op, tensor::Pad::ATTR_STATIC_HIGH),
        );
        // N, C (blocks), H, W and, blocked, the channels within a block.
        let spatial_only = matches!(low.len(), 4 | 5)
            && high.len() == low.len()
            && low[..2] == [0, 0]
            && high[..2] == [0, 0]
            && low[4..].iter().chain(&high[4..]).all(|p| *p == 0);
        if !spatial_only || low.iter().chain(&high).any(|p| *p < 0) || !self.pad_value_is_zero(op) {
            return None;
        }
        self.conv_library(conv)?;
        Some((source, [low[2], low[3]]))
    }

    /// The bias a library call can start from itself: a broadcast, used only as
    /// the init of that call's op, of an f32 tensor along the channels of an NCHW
    /// convolution that calls the library (dimensions [0, 2, 3] added; blocks x 16
    /// into NCHW16c), or along the columns of a 2-D matrix product whose constant B
    /// the library takes packed (dimension [0] added: one value per column).
    pub(crate) fn absorbable_bias(&self, op: OpId) -> Option<ValueId> {
        let b = self.ir.body(self.body);
        let [input, _init] = <[ValueId; 2]>::try_from(b.operands(op).collect::<Vec<_>>()).ok()?;
        let result = b.results(op).next()?;
        let mut users = b.value_users(result);
        let user = users.next()?;
        let ranks = (
            self.shape(input).ok()?.len(),
            self.shape(result).ok()?.len(),
        );
        let dims = self.ints(op, tensor::Broadcast::ATTR_DIMENSIONS);
        let is_init = b.operands(user).position(|v| v == result) == Some(2);
        (users.next().is_none()
            && is_init
            && self.all_f32(&[input])
            && self.buffers.contains_key(&input))
        .then_some(())?;
        match tensor::Op::of(self.ctx, self.ir.op(self.body, user)) {
            // A 1-D bias into NCHW, or blocks x 16 into NCHW16c.
            Some(tensor::Op::Conv2d) if dims == [0, 2, 3] && matches!(ranks, (1, 4) | (2, 5)) => {
                self.conv_library(user)?;
            }
            // A bias per column of a product with packed weights.
            Some(tensor::Op::Matmul) if dims == [0] && ranks == (1, 2) => {
                self.packable_weight(b.operand(user, 1)).then_some(())?;
            }
            _ => return None,
        }
        Some(input)
    }

    /// The value of a float `arith.constant` (a NaN refuses: no clamp by NaN).
    pub(crate) fn float_constant(&self, v: ValueId) -> Option<f64> {
        let b = self.ir.body(self.body);
        let acc_ir::ValueDef::Result(def, _) = b.value(v).def else {
            return None;
        };
        if !arith::Constant::is(self.ctx, self.ir.op(self.body, def)) {
            return None;
        }
        let attr = self
            .ir
            .op(self.body, def)
            .attr(self.ctx, arith::Constant::ATTR_VALUE)?;
        match acc_ir::elements::scalar(self.ctx, attr)? {
            (_, acc_ir::elements::Scalar::Float(f)) if !f.is_nan() => Some(f),
            _ => None,
        }
    }

    /// Whether a pad's region yields the constant 0.0 (made in the region).
    pub(crate) fn pad_value_is_zero(&self, op: OpId) -> bool {
        let b = self.ir.body(self.body);
        let Some(block) = b.op_regions(op).first().and_then(|r| b.entry_block(*r)) else {
            return false;
        };
        let Some(terminator) = b.block_ops(block).last() else {
            return false;
        };
        let values: Vec<ValueId> = b.operands(terminator).collect();
        let [value] = values[..] else {
            return false;
        };
        let acc_ir::ValueDef::Result(def, _) = b.value(value).def else {
            return false;
        };
        let constant = arith::Constant::is(self.ctx, self.ir.op(self.body, def));
        let attr = self
            .ir
            .op(self.body, def)
            .attr(self.ctx, arith::Constant::ATTR_VALUE);
        constant
            && matches!(
                attr.and_then(|a| acc_ir::elements::scalar(self.ctx, a)),
                Some((_, acc_ir::elements::Scalar::Float(f))) if f == 0.0
            )
    }
}
