//! An external compiler's region on tensors (`outline-external`'s `hw.intrinsic` with
//! results) as a call on buffers: its operands' buffers, then a new buffer for each
//! result, which the call writes (`inputs` then `outputs`); the semantics region and
//! the device carried over.

use acc_dialects::build::i64s;
use acc_dialects::ops::{hw, loops};
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::{OpId, ValueId};
use acc_target::placement::{code_device, set_device};

use crate::{Bufferizer, buffer_type};

impl Bufferizer<'_> {
    /// Whether `op` is an external compiler's region on tensors.
    pub(crate) fn is_external_region(&self, op: OpId) -> bool {
        acc_dialects::hooks::hw::is_external_region(self.ctx, self.ir.op(self.body, op))
    }

    /// Replaces the external region `op` by its call on buffers.
    pub(crate) fn external_region(&mut self, op: OpId) -> Result<(), String> {
        let (ctx, body) = (self.ctx, self.body);
        let r = self.ir.op(body, op);
        let loc = r.loc();
        let intrinsic = hw::Intrinsic::of(ctx, r).ok_or("not an intrinsic")?;
        let callee = intrinsic.callee_attr().ok_or("no callee")?;
        let compiler = intrinsic.compiler_attr().ok_or("no compiler")?;
        let device = code_device(ctx, self.ir, body, op);
        let operands: Vec<ValueId> = r.operands().collect();
        let results: Vec<ValueId> = r.results().collect();
        let b = self.ir.body(body);
        let region = *b.op_regions(op).first().ok_or("no semantics region")?;
        let block = b.entry_block(region).ok_or("an empty semantics region")?;
        let old_args = b.block_args(block).to_vec();
        let arg_types: Vec<_> = old_args.iter().map(|a| b.value_type(*a)).collect();
        let inner: Vec<OpId> = b.block_ops(block).collect();
        let mut args = Vec::new();
        for v in &operands {
            args.push(self.buffer(loc, *v).map_err(|d| d.message)?);
        }
        for v in &results {
            let ty = buffer_type(ctx, self.ir.body(body).value_type(*v));
            let buf = loops::Alloc::build(&mut self.emitter(op), &[], ty).result()?;
            self.writable.insert(buf);
            self.buffers.insert(*v, buf);
            args.push(buf);
        }
        let n = operands.len() as i64;
        let inputs: Vec<i64> = (0..n).collect();
        let outputs: Vec<i64> = (n..n + results.len() as i64).collect();
        let mut e = self.emitter(op);
        let semantics = e.region(&arg_types, hw::Yield::NAME, &mut |e, new_args| {
            let mut map = ValueMap::default();
            for (old, new) in old_args.iter().zip(new_args) {
                map.values.insert(*old, *new);
            }
            let (last, ops) = inner.split_last().ok_or("an empty semantics region")?;
            for o in ops {
                clone_op(e.ir, body, *o, body, e.point, &mut map);
            }
            let yielded: Vec<ValueId> = e.ir.body(body).operands(*last).collect();
            Ok(yielded
                .iter()
                .map(|v| map.values.get(v).copied().unwrap_or(*v))
                .collect())
        })?;
        let made = hw::Intrinsic::build(&mut e, &args, &[])
            .callee(callee)
            .inputs(i64s(ctx, &inputs))
            .outputs(i64s(ctx, &outputs))
            .compiler(compiler)
            .semantics(semantics)
            .create()?;
        if let Some(device) = device {
            set_device(ctx, self.ir, body, made, &device).map_err(|d| d.message)?;
        }
        Ok(())
    }
}
