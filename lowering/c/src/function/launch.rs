//! `hw.launch` and `hw.wait` as C (docs/codegen.md, "Launches").
//!
//! A launch's region becomes a work function `void acc_launchN(void *)` reading its
//! arguments from a static struct the host fills where the launch is issued. With
//! the target's start function (`call`, the device's `submit`), the host hands the
//! work to the device: `submit(acc_launchN, &acc_launchN_args, after, n_after,
//! &acc_eventN)` returns at once, the device runs the work once the events `after`
//! are done and then marks `acc_eventN` done; `hw.wait` is `acc_event_wait` on each
//! event. The work function then goes to the device's own C file. Without a start
//! function the host calls the work function where the launch is (the order the
//! program is written in is one the tokens allow), and `hw.wait` is nothing.

use super::{FnEmitter, LaunchC, Val, dead_ops, fail, layout};
use acc_dialects::hooks::hw::HEADERS_ATTR;
use acc_dialects::ops::hw;
use acc_ir::{Diagnostic, OpRef, TypeData, ValueId};
use rustc_hash::FxHashMap;

use crate::expr::CType;

impl FnEmitter<'_> {
    /// `hw.launch`: the work function, its arguments, and its start.
    pub(super) fn launch(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        token: ValueId,
    ) -> Result<(), Diagnostic> {
        let view = hw::Launch::of(self.ctx, op).ok_or_else(|| fail(op, "a malformed hw.launch"))?;
        let device = view.device().unwrap_or("device").to_string();
        let submit = match view.op().attr(self.ctx, hw::Launch::ATTR_CALL) {
            None => None,
            Some(_) => Some(self.call_attr(op, hw::Launch::ATTR_CALL)?),
        };
        if submit.is_some() && self.ctx.dict_get(op.attrs(), HEADERS_ATTR).is_none() {
            return Err(fail(
                op,
                "a launch started by the target's submit function needs the target's header (declaring acc_event, acc_event_wait and the function): give the target a `header \"...\"`",
            ));
        }
        self.shared.launch_count += 1;
        let n = self.shared.launch_count;
        let work = format!("acc_launch{n}");
        let args = format!("acc_launch{n}_args");
        let deps = view.deps().len();
        let inner = op.region_body();
        let body = self.ir.body(inner);
        let block = body
            .entry_block(view.body())
            .ok_or_else(|| fail(op, "a launch without its block"))?;
        // The struct of the arguments and the work function's view of them.
        let mut fields = Vec::new();
        let mut bound = FxHashMap::default();
        for (i, a) in body.block_args(block).iter().enumerate() {
            let ty = body.value_type(*a);
            match self.ctx.type_data(ty) {
                TypeData::MemRef { .. } => {
                    let (elem, shape, strides) = layout(self.ctx, ty).map_err(|m| fail(op, m))?;
                    fields.push(format!("void *a{i};"));
                    let ptr = format!("(({} *)acc_a->a{i})", elem.name());
                    bound.insert(
                        *a,
                        Val::Memref {
                            ptr,
                            elem,
                            shape,
                            strides,
                        },
                    );
                }
                _ => {
                    let t = CType::of(self.ctx, ty).map_err(|m| fail(op, m))?;
                    fields.push(format!("{} a{i};", t.name()));
                    bound.insert(*a, Val::Scalar(format!("acc_a->a{i}"), t));
                }
            }
        }
        let mut e = FnEmitter {
            ctx: self.ctx,
            ir: self.ir,
            body: inner,
            shared: &mut *self.shared,
            out: String::new(),
            indent: 1,
            values: bound,
            next: 0,
            arena_name: format!("{}_{work}", self.arena_name),
            results: Vec::new(),
            in_result: FxHashMap::default(),
            dead: dead_ops(self.ctx, self.ir, inner),
            events: FxHashMap::default(),
        };
        e.line(&format!(
            "const struct {args} *acc_a = (const struct {args} *)acc_ctx;"
        ));
        e.block(block, None)?;
        let out = e.out;
        let runs_on = if submit.is_some() {
            format!("device @{device}")
        } else {
            format!("the host (@{device} has no submit function)")
        };
        let struct_def = if fields.is_empty() {
            format!("struct {args} {{ char unused; }};")
        } else {
            format!("struct {args} {{ {} }};", fields.join(" "))
        };
        self.shared.launches.push(LaunchC {
            device: submit.as_ref().map(|_| device.clone()),
            declaration: format!(
                "/* The work of a launch on @{device}, run by {runs_on}. */\n{struct_def}\nvoid {work}(void *acc_ctx);\n"
            ),
            definition: format!("void {work}(void *acc_ctx) {{\n{out}}}\n"),
        });
        self.shared
            .statics
            .push(format!("static struct {args} {args};"));
        // Where the launch is issued: its arguments, then its start.
        for (i, v) in operands[deps..].iter().enumerate() {
            match self.get(op, *v)? {
                Val::Memref { ptr, .. } => self.line(&format!("{args}.a{i} = (void *){ptr};")),
                Val::Scalar(x, _) => self.line(&format!("{args}.a{i} = {x};")),
                Val::Vector(..) => return Err(fail(op, "passes a vector to a launch")),
            }
        }
        let Some(submit) = submit else {
            self.line(&format!("{work}(&{args});"));
            self.events.insert(token, None);
            return Ok(());
        };
        let event = format!("acc_event{n}");
        self.shared
            .statics
            .push(format!("static acc_event {event};"));
        let after: Vec<String> = operands[..deps]
            .iter()
            .filter_map(|t| self.events.get(t).cloned().flatten())
            .map(|e| format!("&{e}"))
            .collect();
        self.declare(
            op,
            &submit,
            "void",
            vec![
                "void (*)(void *)".into(),
                "void *".into(),
                "acc_event *const *".into(),
                "uint32_t".into(),
                "acc_event *".into(),
            ],
        )?;
        if after.is_empty() {
            self.line(&format!("{submit}({work}, &{args}, 0, 0u, &{event});"));
        } else {
            let list = self.fresh("after");
            self.line(&format!(
                "acc_event *const {list}[] = {{{}}};",
                after.join(", ")
            ));
            self.line(&format!(
                "{submit}({work}, &{args}, {list}, {}u, &{event});",
                after.len()
            ));
        }
        self.events.insert(token, Some(event));
        Ok(())
    }

    /// `hw.wait`: `acc_event_wait` on the event of each launch a device runs.
    pub(super) fn wait(&mut self, op: OpRef<'_>, operands: &[ValueId]) -> Result<(), Diagnostic> {
        for t in operands {
            match self.events.get(t) {
                Some(Some(event)) => {
                    let event = event.clone();
                    self.line(&format!("acc_event_wait(&{event});"));
                }
                Some(None) => {}
                None => return Err(fail(op, "waits for a token that is not a launch's")),
            }
        }
        Ok(())
    }
}
