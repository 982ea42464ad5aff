//! Matrix products on operands read where they are (`bufferize{strided-gemm=...}`).
//!
//! A library product that takes each matrix as a pointer and two strides (element
//! (i, j) at `i * rs + j * cs`) reads a transpose of a buffer in place: the
//! transpose is never materialized, the product gets a window of its source and
//! the source's strides permuted. A zero init is not copied into the result either:
//! the product overwrites it (`accumulate` 0), and when a transpose is the only
//! reader of such a product's result, the product writes the transpose's buffer
//! through permuted strides. Attention's `Q x K^T` and `P x V` read the heads of Q,
//! K and V this way, and `P x V` writes the merged heads, without the five
//! transposes.

use acc_ir::{AttrData, OpId, TypeData, TypeId, ValueId};
use rustc_hash::FxHashSet;

use super::call_library;
use crate::Bufferizer;
use acc_dialects::build::{Builder, dense_bytes, i64s};
use acc_dialects::ops::{loops, tensor};

/// How a product reads one operand: the buffer, the strides (in elements) of each
/// of the operand's dimensions in it, and the buffer's dimension that the batch
/// index (dimension 0 of a batched operand) walks.
struct Operand {
    buffer: ValueId,
    strides: Vec<i64>,
    batch_dim: usize,
}

impl Bufferizer<'_> {
    /// Decides, before the walk, which transposes are read in place (their result
    /// to their source and permutation), which inits are never bufferized (the
    /// transposes' empties, zero constants only products overwrite), and which
    /// products take the strided call.
    pub(crate) fn plan_strided_products(&mut self, ops: &[OpId]) {
        if self.library.strided_gemm.is_none() {
            return;
        }
        let b = self.ir.body(self.body);
        let is_transpose = |op: OpId| tensor::Transpose::is(self.ctx, self.ir.op(self.body, op));
        // Transposes whose every user reads them as A or B of a product that can
        // take strided operands; not of another transpose (whose buffer would be
        // strided itself).
        for &op in ops {
            if !is_transpose(op) {
                continue;
            }
            let operands: Vec<ValueId> = b.operands(op).collect();
            let Some(result) = b.results(op).next() else {
                continue;
            };
            let source_is_transpose = matches!(b.value(operands[0]).def,
                acc_ir::ValueDef::Result(def, _) if is_transpose(def));
            let mut users = b.value_users(result).peekable();
            let read_by_products = users.peek().is_some()
                && users.all(|u| {
                    let o: Vec<ValueId> = b.operands(u).collect();
                    self.strided_candidate(u) && o[2] != result
                });
            if source_is_transpose || !read_by_products || !self.all_f32(&operands) {
                continue;
            }
            let perm = self.ints(op, tensor::Transpose::ATTR_PERMUTATION);
            self.absorbed_transposes.insert(result, (operands[0], perm));
            if b.value_users(operands[1]).count() == 1 {
                self.absorbed_empties.insert(operands[1]);
            }
        }
        // Products reading an absorbed transpose or overwriting a zero init.
        for &op in ops {
            if !self.strided_candidate(op) {
                continue;
            }
            let o: Vec<ValueId> = b.operands(op).collect();
            let transposed = o[..2]
                .iter()
                .any(|v| self.absorbed_transposes.contains_key(v));
            if transposed || self.zero_constant(o[2]) {
                self.strided_products.insert(op);
            }
        }
        // Zero constants every user of which overwrites: never bufferized.
        let unread: FxHashSet<ValueId> = self
            .strided_products
            .iter()
            .map(|&op| b.operand(op, 2))
            .filter(|&init| {
                self.zero_constant(init)
                    && b.value_users(init).all(|u| {
                        self.strided_products.contains(&u)
                            && b.operand(u, 0) != init
                            && b.operand(u, 1) != init
                    })
            })
            .collect();
        self.unread_constants.extend(unread);
        // Transposes of an overwriting product's result, its only use, that keep
        // the last dimension last (C's rows stay contiguous, as the fast kernel
        // needs): the product writes the transpose's buffer through permuted
        // strides.
        for &op in &self.strided_products {
            let Some(result) = b.results(op).next() else {
                continue;
            };
            let mut users = b.value_users(result);
            let (Some(t), None) = (users.next(), users.next()) else {
                continue;
            };
            let t_operands: Vec<ValueId> = b.operands(t).collect();
            let t_result = b.results(t).next();
            let perm = self.ints(t, tensor::Transpose::ATTR_PERMUTATION);
            let keeps_last = perm.last().is_some_and(|&d| d as usize + 1 == perm.len());
            if is_transpose(t)
                && keeps_last
                && t_operands[0] == result
                && t_result.is_some_and(|r| !self.absorbed_transposes.contains_key(&r))
                && self.zero_constant(b.operand(op, 2))
                && b.value_users(t_operands[1]).count() == 1
            {
                self.transposed_outputs.insert(op, t);
                self.absorbed_empties.insert(t_operands[1]);
            }
        }
    }

    /// A 2-D or batched f32 product the strided call can compute (not one whose B
    /// is packed at compile time).
    fn strided_candidate(&self, op: OpId) -> bool {
        let b = self.ir.body(self.body);
        let kind = tensor::Op::of(self.ctx, self.ir.op(self.body, op));
        let o: Vec<ValueId> = b.operands(op).collect();
        if !matches!(kind, Some(tensor::Op::Matmul | tensor::Op::BatchMatmul)) || o.len() != 3 {
            return false;
        }
        let rank = self.shape(o[0]).map_or(0, |s| s.len());
        self.all_f32(&o)
            && (2..=3).contains(&rank)
            && o.iter()
                .all(|v| self.shape(*v).is_ok_and(|s| s.len() == rank))
            && !self.packable_weight(o[1])
    }

    /// A constant whose every element is +0.0.
    fn zero_constant(&self, v: ValueId) -> bool {
        dense_bytes(self.ctx, self.ir, self.body, v)
            .is_some_and(|(bytes, _)| bytes.iter().all(|x| *x == 0))
    }

    /// `op` (planned by [`Self::plan_strided_products`]) as one strided call per
    /// batch: its result's buffer.
    pub(crate) fn strided_matmul(&mut self, op: OpId) -> Result<ValueId, String> {
        let callee = self.library.strided_gemm.clone().ok_or("no strided-gemm")?;
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let (a, b, init) = (operands[0], operands[1], operands[2]);
        // A zero init (bufferized or not, when other ops use it) is never read.
        let overwrite = self.zero_constant(init);
        // Written through a transpose that follows (planned above), or in place.
        let transpose = self.transposed_outputs.get(&op).copied();
        let dest = if overwrite {
            let result = match transpose {
                Some(t) => self.ir.body(self.body).results(t).next(),
                None => self.ir.body(self.body).results(op).next(),
            }
            .ok_or("no result")?;
            let ty = super::buffer_type(self.ctx, self.ir.body(self.body).value_type(result));
            let fresh = loops::Alloc::build(&mut self.emitter(op), &[], ty).result()?;
            self.writable.insert(fresh);
            if transpose.is_some() {
                self.buffers.insert(result, fresh);
            }
            fresh
        } else {
            self.destination(op, init, true)?
        };
        let c = match transpose {
            Some(t) => {
                // Result dimension d of the transpose is the product's perm[d].
                let perm = self.ints(t, tensor::Transpose::ATTR_PERMUTATION);
                let strides = buffer_strides(self.ctx, self.ir.body(self.body).value_type(dest))?;
                let mut permuted = vec![0; perm.len()];
                let mut batch_dim = 0;
                for (d, &p) in perm.iter().enumerate() {
                    *permuted.get_mut(p as usize).ok_or("a bad permutation")? = strides[d];
                    if p == 0 {
                        batch_dim = d;
                    }
                }
                Operand {
                    buffer: dest,
                    strides: permuted,
                    batch_dim,
                }
            }
            None => Operand {
                buffer: dest,
                strides: row_major_strides(&self.shape(init)?),
                batch_dim: 0,
            },
        };
        let (sa, sb) = (self.shape(a)?, self.shape(b)?);
        let batched = sa.len() == 3;
        let (m, k, n) = if batched {
            (sa[1], sa[2], sb[2])
        } else {
            (sa[0], sa[1], sb[1])
        };
        let [a, b] = [self.operand(a)?, self.operand(b)?];
        let batch = if batched { sa[0] } else { 1 };
        let mut e = self.emitter(op);
        for i in 0..batch {
            let mut buffers = Vec::new();
            let mut strides = Vec::new();
            for x in [&a, &b, &c] {
                let at = x.strides.len() - 2;
                buffers.push(if batched {
                    window(&mut e, x.buffer, x.batch_dim, i)?
                } else {
                    x.buffer
                });
                strides.extend_from_slice(&x.strides[at..]);
            }
            let sizes = [&[m, n, k][..], &strides, &[i64::from(!overwrite)]].concat();
            call_library(&mut e, &callee, &buffers, &sizes, None)?;
        }
        Ok(dest)
    }

    /// How the product reads `v`: an absorbed transpose in its source's buffer,
    /// anything else in its own.
    fn operand(&self, v: ValueId) -> Result<Operand, String> {
        let buffer_of = |v: ValueId| {
            self.buffers
                .get(&v)
                .copied()
                .ok_or("an operand has no buffer")
        };
        if let Some((source, perm)) = self.absorbed_transposes.get(&v) {
            let buffer = buffer_of(*source)?;
            let strides = buffer_strides(self.ctx, self.ir.body(self.body).value_type(buffer))?;
            let permuted = perm
                .iter()
                .map(|&d| strides.get(d as usize).copied().ok_or("a bad permutation"))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Operand {
                buffer,
                strides: permuted,
                batch_dim: perm.first().copied().unwrap_or(0) as usize,
            });
        }
        let buffer = buffer_of(v)?;
        Ok(Operand {
            buffer,
            strides: buffer_strides(self.ctx, self.ir.body(self.body).value_type(buffer))?,
            batch_dim: 0,
        })
    }
}

/// Row-major strides of `shape`.
fn row_major_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// The strides of a memref type: row-major for the identity layout, else its
/// `strided<...>` layout's.
fn buffer_strides(ctx: &acc_ir::Context, ty: TypeId) -> Result<Vec<i64>, String> {
    strided_layout(ctx, ty).map(|(strides, _)| strides)
}

/// A memref type's strides and offset (row-major and 0 for the identity layout).
fn strided_layout(ctx: &acc_ir::Context, ty: TypeId) -> Result<(Vec<i64>, i64), String> {
    match ctx.type_data(ty) {
        TypeData::MemRef { shape, layout, .. } => match layout.map(|l| ctx.attr_data(l)) {
            None => Ok((row_major_strides(shape), 0)),
            Some(AttrData::Strided { strides, offset }) => Ok((strides.to_vec(), *offset)),
            Some(_) => Err("a buffer with a layout that is not strided".into()),
        },
        _ => Err("not a buffer".into()),
    }
}

/// The window of `buffer` at index `i` of dimension `dim` (size 1 there, the rest
/// whole): its first element is where batch `i` of a product's operand starts.
pub(crate) fn window(
    e: &mut Builder<'_>,
    buffer: ValueId,
    dim: usize,
    i: i64,
) -> Result<ValueId, String> {
    let ty = e.type_of(buffer);
    let (strides, offset) = strided_layout(e.ctx, ty)?;
    let TypeData::MemRef {
        shape,
        element,
        memory_space,
        ..
    } = e.ctx.type_data(ty)
    else {
        return Err("a window of something that is not a buffer".into());
    };
    let (shape, element, memory_space) = (shape.to_vec(), *element, *memory_space);
    let mut offsets = vec![0; shape.len()];
    let mut sizes = shape.clone();
    offsets[dim] = i;
    sizes[dim] = 1;
    let layout = e.ctx.intern_attr(AttrData::Strided {
        strides: strides.clone().into(),
        offset: offset + i * strides[dim],
    });
    let window_type = e.ctx.intern_type(TypeData::MemRef {
        shape: sizes.clone().into(),
        element,
        layout: Some(layout),
        memory_space,
    });
    let ones = vec![1; shape.len()];
    let (static_offsets, static_sizes, static_strides) = (
        i64s(e.ctx, &offsets),
        i64s(e.ctx, &sizes),
        i64s(e.ctx, &ones),
    );
    // The builder records the groups' sizes (`operandSegmentSizes`: 1, 0, 0, 0).
    loops::Subview::build(e, buffer, &[], &[], &[], window_type)
        .static_offsets(static_offsets)
        .static_sizes(static_sizes)
        .static_strides(static_strides)
        .result()
}
