//! Scalars a device's work makes for ops outside its run (a non-maximum
//! suppression's count of selected boxes, returned by the function) come back
//! through memory, since a launch returns only its token: the work stores the
//! scalar into a one-element buffer of the host's memory, and the host loads it
//! just before its first use outside (the load waits for the launch, as any host
//! access of what a launch writes). When `memory-plan` has run, the buffer gets
//! [`ALIGNMENT`] bytes appended to the host's arena.

use acc_dialects::build::{BuildExt, Builder, i64_attr, memref_type};
use acc_dialects::hooks::func::{ARENA_SIZE, ARENA_SIZES};
use acc_dialects::hooks::hw::ALIGNMENT;
use acc_dialects::ops::loops;
use acc_ir::{BodyId, InsertPoint, OpId, TypeData, ValueId};
use acc_target::placement::DEVICE_ATTR;
use rustc_hash::{FxHashMap, FxHashSet};

use super::{Run, Scheduler, nested_ops};

impl Scheduler<'_> {
    /// Sends through memory every scalar a run's op makes that an op outside the run
    /// uses; true when it changed anything (the runs are then to be found again).
    /// `function` is the function's op in `outer`, whose arena grows.
    pub(super) fn scalars_through_memory(
        &mut self,
        runs: &[Run],
        top: &FxHashMap<OpId, OpId>,
        function: Option<(BodyId, OpId)>,
    ) -> Result<bool, String> {
        let mut changed = false;
        for run in runs {
            // A run that stays with the host anyway keeps its scalars.
            if self.unlaunchable_but(run, true).is_some() {
                continue;
            }
            let inside: FxHashSet<OpId> = run
                .ops
                .iter()
                .flat_map(|o| nested_ops(self.ir, self.body, *o))
                .collect();
            for op in &run.ops {
                let results: Vec<ValueId> = self.ir.body(self.body).results(*op).collect();
                for v in results {
                    let outside = self.uses_outside(v, &inside);
                    if outside.is_empty() || !self.is_scalar(v) {
                        continue;
                    }
                    // The first top-level op using it, in block order.
                    let tops: FxHashSet<OpId> = outside
                        .iter()
                        .filter_map(|(u, _)| top.get(u).copied())
                        .collect();
                    let b = self.ir.body(self.body);
                    let block = b.op_block(*op).ok_or("a device's op outside a block")?;
                    let Some(first) = b.block_ops(block).find(|o| tops.contains(o)) else {
                        continue;
                    };
                    self.send(run, *op, v, first, &outside, function)?;
                    changed = true;
                }
            }
        }
        Ok(changed)
    }

    /// The uses of `v` by ops not `inside`: (user, operand index).
    fn uses_outside(&self, v: ValueId, inside: &FxHashSet<OpId>) -> Vec<(OpId, usize)> {
        let b = self.ir.body(self.body);
        let mut users: Vec<OpId> = b.value_users(v).filter(|u| !inside.contains(u)).collect();
        users.dedup();
        users
            .into_iter()
            .flat_map(|u| {
                b.operands(u)
                    .enumerate()
                    .filter(|(_, w)| *w == v)
                    .map(move |(i, _)| (u, i))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    pub(super) fn is_scalar(&self, v: ValueId) -> bool {
        let ty = self.ir.body(self.body).value_type(v);
        matches!(
            self.ctx.type_data(ty),
            TypeData::Index | TypeData::Integer { .. } | TypeData::Float(_)
        )
    }

    /// Stores `v` (made by `op` of `run`) into a new one-element buffer after `op`, on
    /// the run's device; loads it before `first` for the `outside` uses.
    fn send(
        &mut self,
        run: &Run,
        op: OpId,
        v: ValueId,
        first: OpId,
        outside: &[(OpId, usize)],
        function: Option<(BodyId, OpId)>,
    ) -> Result<(), String> {
        let ctx = self.ctx;
        let element = self.ir.body(self.body).value_type(v);
        let cell_type = memref_type(ctx, &[1], element);
        let loc = self.ir.op(self.body, op).loc();
        let offset = match function {
            Some((outer, f)) => self.grow_host_arena(outer, f)?,
            None => None,
        };
        let (cell, zero) = {
            let mut e = Builder::new(
                ctx,
                self.ir,
                self.body,
                InsertPoint::Before(run.ops[0]),
                loc,
            );
            let mut alloc = loops::Alloc::build(&mut e, &[], cell_type);
            if let Some(o) = offset {
                alloc = alloc.offset(i64_attr(ctx, o));
            }
            let cell = alloc.result()?;
            (cell, e.index(0)?)
        };
        let next = {
            let b = self.ir.body(self.body);
            let block = b.op_block(op).ok_or("a device's op outside a block")?;
            let mut ops = b.block_ops(block).skip_while(|o| *o != op);
            ops.next();
            ops.next().ok_or("a device's op ends its block")?
        };
        {
            let mut e = Builder::new(ctx, self.ir, self.body, InsertPoint::Before(next), loc);
            let store = loops::Store::build(&mut e, v, cell, &[zero]).create()?;
            e.set_attr(store, DEVICE_ATTR, ctx.string_attr(&run.device))?;
        }
        let loaded = {
            let mut e = Builder::new(ctx, self.ir, self.body, InsertPoint::Before(first), loc);
            let loaded = loops::Load::build(&mut e, cell, &[zero], element).result()?;
            loops::Dealloc::build(&mut e, cell).create()?;
            loaded
        };
        for (user, i) in outside {
            self.ir.body_mut(self.body).set_operand(*user, *i, loaded);
        }
        Ok(())
    }

    /// With an arena planned (`memory-plan` has run): [`ALIGNMENT`] more bytes of the
    /// host's arena, their offset.
    fn grow_host_arena(&mut self, outer: BodyId, f: OpId) -> Result<Option<i64>, String> {
        let ctx = self.ctx;
        let attrs = self.ir.body(outer).op(f).attrs;
        if ctx.dict_get(attrs, ARENA_SIZE).is_none() && ctx.dict_get(attrs, ARENA_SIZES).is_none() {
            return Ok(None);
        }
        let size = ctx
            .dict_get(attrs, ARENA_SIZE)
            .and_then(|a| acc_ir::elements::scalar(ctx, a))
            .map_or(0, |(_, s)| match s {
                acc_ir::elements::Scalar::Int(i) => i as i64,
                acc_ir::elements::Scalar::Float(x) => x as i64,
            });
        let offset = (size as u64).div_ceil(ALIGNMENT) * ALIGNMENT;
        let grown = offset + ALIGNMENT;
        let host = self
            .targets
            .iter()
            .find_map(|t| t.host_memory().map(|m| (m.name.clone(), m.size)));
        if let Some((name, bytes)) = host
            && grown > bytes
        {
            return Err(format!(
                "the host's arena needs {grown} bytes with the cell of a launch's scalar, more than memory '{name}' holds ({bytes} bytes)"
            ));
        }
        let key = ctx.sym(ARENA_SIZE);
        let mut entries: Vec<_> = ctx
            .dict_entries(attrs)
            .iter()
            .filter(|(k, _)| *k != key)
            .copied()
            .collect();
        entries.push((key, i64_attr(ctx, grown as i64)));
        self.ir.body_mut(outer).op_mut(f).attrs = ctx
            .dict_attr(entries)
            .map_err(|_| "duplicate function attributes".to_string())?;
        Ok(Some(offset as i64))
    }
}
