//! Function bodies: `func`, `cf`, `arith` and `loop` ops as Cranelift instructions.
//!
//! IR blocks become Cranelift blocks with the same arguments; `loop.for` becomes a
//! header block carrying the induction variable and the iteration values, a body and
//! an exit; `loop.parallel` a nest of such loops. A memref value is a pointer to its
//! first element, with its static layout known from its type (subviews move the
//! pointer). Buffers from `loop.alloc` come from the runtime's `acc_alloc`.

use acc_ir::elements::{self, Scalar};
use acc_ir::{BlockId, BodyId, Context, Ir, OpId, OpRef, ValueId};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, Block, FuncRef, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind,
    Type, Value, types,
};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{FuncId, Linkage, Module};
use rustc_hash::FxHashMap;

use crate::CodegenError;
use crate::abi::FnAbi;
use crate::target::Features;
use crate::types::{MemrefLayout, Repr, is_bool, repr, scalar_type};

/// A value in generated code.
#[derive(Clone, Debug)]
enum Val {
    Scalar(Value),
    Memref(Value, MemrefLayout),
}

/// How a block's ops ended.
enum Ended {
    /// A region's yield with these values.
    Yield(Vec<Val>),
    /// A return or branch: control left the block.
    Left,
}

/// The module-level facts a function body needs.
pub(crate) struct Shared<'m, M: Module> {
    pub module: &'m mut M,
    /// Every function of the module: its id and convention.
    pub functions: &'m FxHashMap<String, (FuncId, FnAbi)>,
    pub features: Features,
    pub config: TargetFrontendConfig,
}

/// Translates one function body into `b`.
pub(crate) struct FnTranslator<'a, 'b, 'm, M: Module> {
    pub ctx: &'a Context,
    pub ir: &'a Ir,
    pub body: BodyId,
    pub b: FunctionBuilder<'b>,
    pub shared: Shared<'m, M>,
    values: FxHashMap<ValueId, Val>,
    blocks: FxHashMap<BlockId, Block>,
    /// The result pointers of the function.
    results: Vec<Value>,
    abi: FnAbi,
    imported: FxHashMap<String, FuncRef>,
}

fn err(op: OpRef<'_>, message: impl Into<String>) -> CodegenError {
    CodegenError::at(op.loc(), message)
}

impl<'a, 'b, 'm, M: Module> FnTranslator<'a, 'b, 'm, M> {
    pub fn new(
        ctx: &'a Context,
        ir: &'a Ir,
        body: BodyId,
        b: FunctionBuilder<'b>,
        shared: Shared<'m, M>,
        abi: FnAbi,
    ) -> Self {
        FnTranslator {
            ctx,
            ir,
            body,
            b,
            shared,
            values: FxHashMap::default(),
            blocks: FxHashMap::default(),
            results: Vec::new(),
            abi,
            imported: FxHashMap::default(),
        }
    }

    fn ins(&mut self) -> cranelift_frontend::FuncInstBuilder<'_, 'b> {
        self.b.ins()
    }

    fn pointer(&self) -> Type {
        self.shared.config.pointer_type()
    }

    /// Translates the function whose region is `region` of `func`'s body.
    pub fn run(mut self, region: acc_ir::RegionId) -> Result<(), CodegenError> {
        let body = self.ir.body(self.body);
        let ir_blocks: Vec<BlockId> = body.region_blocks(region).collect();
        let entry_ir = *ir_blocks
            .first()
            .ok_or_else(|| CodegenError::new("the function has no body"))?;
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.blocks.insert(entry_ir, entry);
        for &blk in &ir_blocks[1..] {
            let cb = self.b.create_block();
            for &arg in body.block_args(blk) {
                let ty = body.value_type(arg);
                let t = match repr(self.ctx, ty)? {
                    Repr::Scalar(t) => t,
                    Repr::Memref(_) => self.pointer(),
                };
                self.b.append_block_param(cb, t);
            }
            self.blocks.insert(blk, cb);
        }
        self.b.switch_to_block(entry);
        let params = self.b.block_params(entry).to_vec();
        let n = self.abi.args.len();
        for (i, &arg) in body.block_args(entry_ir).iter().enumerate() {
            let v = self.wrap(body.value_type(arg), params[i])?;
            self.values.insert(arg, v);
        }
        self.results = params[n..].to_vec();
        for &blk in &ir_blocks {
            let cb = self.blocks[&blk];
            if blk != entry_ir {
                self.b.switch_to_block(cb);
                let ps = self.b.block_params(cb).to_vec();
                for (i, &arg) in body.block_args(blk).iter().enumerate() {
                    let v = self.wrap(body.value_type(arg), ps[i])?;
                    self.values.insert(arg, v);
                }
            }
            match self.ops(blk)? {
                Ended::Left => {}
                Ended::Yield(_) => {
                    return Err(CodegenError::new("a yield at the function's level"));
                }
            }
        }
        self.b.seal_all_blocks();
        self.b.finalize(self.shared.config);
        Ok(())
    }

    /// A machine value of acc type `ty` as a `Val`.
    fn wrap(&self, ty: acc_ir::TypeId, v: Value) -> Result<Val, CodegenError> {
        Ok(match repr(self.ctx, ty)? {
            Repr::Scalar(_) => Val::Scalar(v),
            Repr::Memref(m) => Val::Memref(v, m),
        })
    }

    fn get(&self, op: OpRef<'_>, v: ValueId) -> Result<Val, CodegenError> {
        self.values
            .get(&v)
            .cloned()
            .ok_or_else(|| err(op, "an operand has no value"))
    }

    fn scalar(&self, op: OpRef<'_>, v: ValueId) -> Result<Value, CodegenError> {
        match self.get(op, v)? {
            Val::Scalar(x) => Ok(x),
            Val::Memref(..) => Err(err(op, "expects a scalar operand, not a memref")),
        }
    }

    fn memref(&self, op: OpRef<'_>, v: ValueId) -> Result<(Value, MemrefLayout), CodegenError> {
        match self.get(op, v)? {
            Val::Memref(p, m) => Ok((p, m)),
            Val::Scalar(_) => Err(err(op, "expects a memref operand")),
        }
    }

    /// Translates the ops of `blk` in order.
    fn ops(&mut self, blk: BlockId) -> Result<Ended, CodegenError> {
        let ops: Vec<OpId> = self.ir.body(self.body).block_ops(blk).collect();
        for op in ops {
            if let Some(ended) = self.op(op)? {
                return Ok(ended);
            }
        }
        Err(CodegenError::new("a block ends without a terminator"))
    }

    /// Runs `region` of `op` with its block arguments bound to `args`; the values its
    /// yield gives.
    fn region(&mut self, op: OpId, index: usize, args: &[Val]) -> Result<Vec<Val>, CodegenError> {
        let r = self.ir.op(self.body, op);
        let blk = r
            .regions()
            .get(index)
            .and_then(|reg| self.ir.body(self.body).entry_block(*reg))
            .ok_or_else(|| err(r, format!("has no region #{index}")))?;
        let params = self.ir.body(self.body).block_args(blk).to_vec();
        if params.len() != args.len() {
            return Err(err(r, "its region takes a different number of arguments"));
        }
        for (p, a) in params.iter().zip(args) {
            self.values.insert(*p, a.clone());
        }
        match self.ops(blk)? {
            Ended::Yield(values) => Ok(values),
            Ended::Left => Err(err(r, "its region must end with a yield")),
        }
    }

    /// Translates one op; `Some` when it ends its block.
    fn op(&mut self, id: OpId) -> Result<Option<Ended>, CodegenError> {
        let op = self.ir.op(self.body, id);
        let name = self.ctx.op_name_str(op.name());
        let operands: Vec<ValueId> = op.operands().collect();
        let result_types: Vec<acc_ir::TypeId> = op.result_types().to_vec();
        let (dialect, short) = name.split_once('.').unwrap_or(("", name));
        let results: Vec<Val> = match dialect {
            "arith" => vec![self.arith(op, short, &operands, &result_types)?],
            "math" => vec![Val::Scalar(self.math(op, short, &operands)?)],
            "func" => match short {
                "return" => {
                    self.ret(op, &operands)?;
                    return Ok(Some(Ended::Left));
                }
                "call" => self.call(op, &operands, &result_types)?,
                _ => return Err(err(op, format!("no code generation for '{name}'"))),
            },
            "cf" => {
                self.branch(op, short, &operands)?;
                return Ok(Some(Ended::Left));
            }
            "loop" => match short {
                "yield" => {
                    let vals = operands
                        .iter()
                        .map(|v| self.get(op, *v))
                        .collect::<Result<_, _>>()?;
                    return Ok(Some(Ended::Yield(vals)));
                }
                _ => self.loop_op(id, short, &operands, &result_types)?,
            },
            "hw" if short == "intrinsic" => {
                self.intrinsic(op, &operands, &result_types)?;
                vec![]
            }
            _ => {
                return Err(err(
                    op,
                    format!("no code generation for '{name}' (lower it to loop and arith first)"),
                ));
            }
        };
        for (r, v) in op.results().zip(results) {
            self.values.insert(r, v);
        }
        Ok(None)
    }

    // ----- func and cf -----

    fn ret(&mut self, op: OpRef<'_>, operands: &[ValueId]) -> Result<(), CodegenError> {
        if operands.len() != self.results.len() {
            return Err(err(
                op,
                "returns a different number of values than declared",
            ));
        }
        for (i, v) in operands.iter().enumerate() {
            let dest = self.results[i];
            match self.get(op, *v)? {
                Val::Scalar(x) => {
                    self.b.ins().store(MemFlagsData::trusted(), x, dest, 0);
                }
                Val::Memref(p, m) => {
                    let out = MemrefLayout {
                        strides: row_major(&m.shape),
                        ..m.clone()
                    };
                    self.copy(p, &m, dest, &out);
                }
            }
        }
        self.b.ins().return_(&[]);
        Ok(())
    }

    fn call(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        result_types: &[acc_ir::TypeId],
    ) -> Result<Vec<Val>, CodegenError> {
        let callee = op
            .attr(self.ctx, "callee")
            .and_then(|c| match self.ctx.attr_data(c) {
                acc_ir::AttrData::SymbolRef { root, .. } => Some(self.ctx.str(*root).to_string()),
                _ => None,
            })
            .ok_or_else(|| err(op, "a call without a callee"))?;
        let (id, abi) = self
            .shared
            .functions
            .get(&callee)
            .cloned()
            .ok_or_else(|| err(op, format!("no function '@{callee}' in the module")))?;
        let fref = self.shared.module.declare_func_in_func(id, self.b.func);
        let mut args = Vec::new();
        for v in operands {
            args.push(match self.get(op, *v)? {
                Val::Scalar(x) => x,
                Val::Memref(p, _) => p,
            });
        }
        // Results go to stack slots (scalars) or fresh buffers (memrefs).
        let mut places = Vec::new();
        for (slot, ty) in abi.results.iter().zip(result_types) {
            let place = match &slot.repr {
                Repr::Scalar(t) => {
                    let ss = self.b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        t.bytes(),
                        t.bytes().trailing_zeros() as u8,
                    ));
                    let p = self.pointer();
                    self.b.ins().stack_addr(p, ss, 0)
                }
                Repr::Memref(m) => self.alloc(op, m.len() as u64 * u64::from(m.element_bytes()))?,
            };
            places.push((place, *ty, slot.repr.clone()));
            args.push(place);
        }
        self.b.ins().call(fref, &args);
        let mut out = Vec::new();
        for (place, _ty, r) in places {
            out.push(match r {
                Repr::Scalar(t) => {
                    Val::Scalar(self.b.ins().load(t, MemFlagsData::trusted(), place, 0))
                }
                Repr::Memref(m) => Val::Memref(place, m),
            });
        }
        Ok(out)
    }

    fn branch(
        &mut self,
        op: OpRef<'_>,
        short: &str,
        operands: &[ValueId],
    ) -> Result<(), CodegenError> {
        let targets: Vec<BlockId> = op.successors().collect();
        let def = self
            .ctx
            .op_def(op.name())
            .and_then(|d| d.successor_operands.clone());
        let args_of = |index: usize| -> Result<Vec<cranelift_codegen::ir::BlockArg>, CodegenError> {
            let range = def
                .as_ref()
                .and_then(|h| h(op, self.ctx, index))
                .ok_or_else(|| err(op, "cannot tell the successor's operands"))?;
            operands[range]
                .iter()
                .map(|v| {
                    Ok(match self.get(op, *v)? {
                        Val::Scalar(x) | Val::Memref(x, _) => x.into(),
                    })
                })
                .collect()
        };
        match short {
            "br" => {
                let a = args_of(0)?;
                let t = self.blocks[&targets[0]];
                self.b.ins().jump(t, &a);
            }
            "cond_br" => {
                let c = self.scalar(op, operands[0])?;
                let (a, e) = (args_of(0)?, args_of(1)?);
                let (t, f) = (self.blocks[&targets[0]], self.blocks[&targets[1]]);
                self.b.ins().brif(c, t, &a, f, &e);
            }
            other => return Err(err(op, format!("no code generation for 'cf.{other}'"))),
        }
        Ok(())
    }

    // ----- arith -----

    fn arith(
        &mut self,
        op: OpRef<'_>,
        short: &str,
        operands: &[ValueId],
        result_types: &[acc_ir::TypeId],
    ) -> Result<Val, CodegenError> {
        let ty = *result_types
            .first()
            .ok_or_else(|| err(op, "an arith op without a result"))?;
        let t = scalar_type(self.ctx, ty).map_err(|m| err(op, m))?;
        if t.is_vector() && !self.shared.features.vectors {
            return Err(err(
                op,
                "the target has no vector instructions (RISC-V needs the V extension)",
            ));
        }
        if short == "constant" {
            return self.constant(op, ty, t).map(Val::Scalar);
        }
        let x = |i: usize| self.scalar(op, operands[i]);
        let bool_result = is_bool(self.ctx, ty);
        let v = match short {
            "addi" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().iadd(a, c)
            }
            "subi" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().isub(a, c)
            }
            "muli" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().imul(a, c)
            }
            "divsi" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().sdiv(a, c)
            }
            "divui" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().udiv(a, c)
            }
            "remsi" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().srem(a, c)
            }
            "remui" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().urem(a, c)
            }
            "andi" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().band(a, c)
            }
            "ori" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().bor(a, c)
            }
            "xori" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().bxor(a, c)
            }
            "shli" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().ishl(a, c)
            }
            "shrsi" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().sshr(a, c)
            }
            "shrui" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().ushr(a, c)
            }
            "maxsi" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().smax(a, c)
            }
            "minsi" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().smin(a, c)
            }
            "maxui" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().umax(a, c)
            }
            "minui" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().umin(a, c)
            }
            "addf" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fadd(a, c)
            }
            "subf" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fsub(a, c)
            }
            "mulf" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fmul(a, c)
            }
            "divf" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fdiv(a, c)
            }
            "maximumf" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fmax(a, c)
            }
            "minimumf" => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fmin(a, c)
            }
            "maxnumf" | "minnumf" if !t.is_vector() => {
                // The non-NaN operand wins.
                let (a, c) = (x(0)?, x(1)?);
                let m = if short == "maxnumf" {
                    self.ins().fmax(a, c)
                } else {
                    self.ins().fmin(a, c)
                };
                let a_nan = self.ins().fcmp(FloatCC::Unordered, a, a);
                let c_nan = self.ins().fcmp(FloatCC::Unordered, c, c);
                let m = self.ins().select(c_nan, a, m);
                self.ins().select(a_nan, c, m)
            }
            "negf" => {
                let a = x(0)?;
                self.ins().fneg(a)
            }
            "cmpi" => {
                let (a, c) = (x(0)?, x(1)?);
                let cc =
                    int_cc(self.predicate(op)?).ok_or_else(|| err(op, "unknown cmpi predicate"))?;
                self.ins().icmp(cc, a, c)
            }
            "cmpf" => {
                let (a, c) = (x(0)?, x(1)?);
                match self.predicate(op)? {
                    0 => self.ins().iconst(types::I8, 0),
                    15 => self.ins().iconst(types::I8, 1),
                    p => {
                        let cc = float_cc(p).ok_or_else(|| err(op, "unknown cmpf predicate"))?;
                        self.ins().fcmp(cc, a, c)
                    }
                }
            }
            "select" => {
                let (c, a, d) = (x(0)?, x(1)?, x(2)?);
                self.ins().select(c, a, d)
            }
            "extsi" | "extui" | "trunci" | "index_cast" | "index_castui" => {
                let a = x(0)?;
                let from_ty = self.ir.body(self.body).value_type(operands[0]);
                let from = scalar_type(self.ctx, from_ty).map_err(|m| err(op, m))?;
                let from_bool = is_bool(self.ctx, from_ty);
                let signed = matches!(short, "extsi" | "index_cast");
                if from.bits() == t.bits() {
                    if from_bool && signed && !bool_result {
                        self.ins().ineg(a)
                    } else {
                        a
                    }
                } else if from.bits() < t.bits() {
                    let e = self.ins().uextend(t, a);
                    match (from_bool, signed) {
                        (true, true) => self.ins().ineg(e),
                        (false, true) => self.ins().sextend(t, a),
                        _ => e,
                    }
                } else {
                    self.ins().ireduce(t, a)
                }
            }
            "extf" => {
                let a = x(0)?;
                self.ins().fpromote(t, a)
            }
            "truncf" => {
                let a = x(0)?;
                self.ins().fdemote(t, a)
            }
            "sitofp" => {
                let a = x(0)?;
                self.ins().fcvt_from_sint(t, a)
            }
            "uitofp" => {
                let a = x(0)?;
                self.ins().fcvt_from_uint(t, a)
            }
            "fptosi" => {
                let a = x(0)?;
                self.ins().fcvt_to_sint_sat(t, a)
            }
            "fptoui" => {
                let a = x(0)?;
                self.ins().fcvt_to_uint_sat(t, a)
            }
            "bitcast" => {
                let a = x(0)?;
                self.ins().bitcast(t, MemFlagsData::new(), a)
            }
            other => {
                return Err(err(op, format!("no code generation for 'arith.{other}'")));
            }
        };
        // An i1 keeps only its low bit.
        let v = if bool_result && matches!(short, "addi" | "subi" | "muli" | "shli" | "trunci") {
            self.b.ins().band_imm_u(v, 1)
        } else {
            v
        };
        Ok(Val::Scalar(v))
    }

    /// The `math` functions: square root and absolute value as instructions, the others
    /// as calls to the C library (`expf`, `exp`, ...), lane by lane for vectors.
    fn math(
        &mut self,
        op: OpRef<'_>,
        short: &str,
        operands: &[ValueId],
    ) -> Result<Value, CodegenError> {
        let x = self.scalar(op, operands[0])?;
        let t = self.b.func.dfg.value_type(x);
        match short {
            "sqrt" => return Ok(self.b.ins().sqrt(x)),
            "absf" => return Ok(self.b.ins().fabs(x)),
            "rsqrt" => {
                let s = self.b.ins().sqrt(x);
                let one = if t.lane_type() == types::F32 {
                    self.b.ins().f32const(1.0)
                } else {
                    self.b.ins().f64const(1.0)
                };
                let one = if t.is_vector() {
                    self.b.ins().splat(t, one)
                } else {
                    one
                };
                return Ok(self.b.ins().fdiv(one, s));
            }
            _ => {}
        }
        let base = match short {
            "exp" | "log" | "tanh" | "erf" => short,
            "powf" => "pow",
            other => return Err(err(op, format!("no code generation for 'math.{other}'"))),
        };
        let lane = t.lane_type();
        let symbol = if lane == types::F32 {
            format!("{base}f")
        } else {
            base.to_string()
        };
        let arity = if short == "powf" { 2 } else { 1 };
        let f = self.runtime(op, &symbol, &vec![lane; arity], Some(lane))?;
        let y = if arity == 2 {
            Some(self.scalar(op, operands[1])?)
        } else {
            None
        };
        let call = |s: &mut Self, a: Value, b: Option<Value>| -> Value {
            let args: Vec<Value> = std::iter::once(a).chain(b).collect();
            let c = s.b.ins().call(f, &args);
            s.b.inst_results(c)[0]
        };
        if !t.is_vector() {
            return Ok(call(self, x, y));
        }
        let mut out = x;
        for l in 0..t.lane_count() as u8 {
            let a = self.b.ins().extractlane(x, l);
            let b = y.map(|y| self.b.ins().extractlane(y, l));
            let r = call(self, a, b);
            out = self.b.ins().insertlane(out, r, l);
        }
        Ok(out)
    }

    fn predicate(&self, op: OpRef<'_>) -> Result<i128, CodegenError> {
        match op
            .attr(self.ctx, "predicate")
            .and_then(|a| elements::scalar(self.ctx, a))
        {
            Some((_, Scalar::Int(p))) => Ok(p),
            _ => Err(err(op, "requires a predicate")),
        }
    }

    fn constant(
        &mut self,
        op: OpRef<'_>,
        ty: acc_ir::TypeId,
        t: Type,
    ) -> Result<Value, CodegenError> {
        let attr = op
            .attr(self.ctx, "value")
            .ok_or_else(|| err(op, "a constant without a value"))?;
        let values: Vec<Scalar> = match elements::scalar(self.ctx, attr) {
            Some((_, v)) => vec![v],
            None => {
                let d = elements::dense(self.ctx, attr)
                    .ok_or_else(|| err(op, "unsupported constant"))?;
                let n = elements::num_elements(self.ctx, d.ty).unwrap_or(1);
                (0..n).map(|i| d.get(i)).collect()
            }
        };
        let lane = t.lane_type();
        let bool_ty = is_bool(self.ctx, ty);
        let one = |b: &mut FunctionBuilder<'_>, v: Scalar| -> Value {
            match (v, lane) {
                (Scalar::Float(f), types::F32) => b.ins().f32const(f as f32),
                (Scalar::Float(f), _) if lane.is_float() => b.ins().f64const(f),
                (Scalar::Int(i), _) if lane.is_float() => b.ins().f64const(i as f64),
                (Scalar::Int(i), _) => {
                    let i = if bool_ty { i & 1 } else { i };
                    b.ins().iconst(lane, i as i64)
                }
                (Scalar::Float(f), _) => b.ins().iconst(lane, f as i64),
            }
        };
        if !t.is_vector() {
            let v = *values.first().ok_or_else(|| err(op, "an empty constant"))?;
            return Ok(one(&mut self.b, v));
        }
        let first = *values.first().ok_or_else(|| err(op, "an empty constant"))?;
        let s = one(&mut self.b, first);
        let mut vec = self.b.ins().splat(t, s);
        if values.len() > 1 {
            for (i, v) in values.iter().enumerate().skip(1) {
                let s = one(&mut self.b, *v);
                vec = self.b.ins().insertlane(vec, s, i as u8);
            }
        }
        Ok(vec)
    }

    // ----- loop -----

    fn loop_op(
        &mut self,
        id: OpId,
        short: &str,
        operands: &[ValueId],
        result_types: &[acc_ir::TypeId],
    ) -> Result<Vec<Val>, CodegenError> {
        let op = self.ir.op(self.body, id);
        let layout_of = |s: &Self, ty| match repr(s.ctx, ty) {
            Ok(Repr::Memref(m)) => Ok(m),
            Ok(_) => Err(err(op, "expects a memref type")),
            Err(m) => Err(err(op, m)),
        };
        Ok(match short {
            "alloc" => {
                let m = layout_of(self, result_types[0])?;
                if !operands.is_empty() {
                    return Err(err(
                        op,
                        "dynamic sizes are not supported by the code generator",
                    ));
                }
                let p = self.alloc(op, m.len() as u64 * u64::from(m.element_bytes()))?;
                vec![Val::Memref(p, m)]
            }
            "constant" => {
                let m = layout_of(self, result_types[0])?;
                vec![Val::Memref(self.constant_data(op)?, m)]
            }
            "reshape" => {
                let (p, m) = self.memref(op, operands[0])?;
                let out = layout_of(self, result_types[0])?;
                if !m.is_contiguous() {
                    return Err(err(op, "reshapes a buffer that is not contiguous"));
                }
                vec![Val::Memref(p, out)]
            }
            "dealloc" => {
                let (p, _) = self.memref(op, operands[0])?;
                let free = self.runtime(op, "acc_free", &[self.pointer()], None)?;
                self.b.ins().call(free, &[p]);
                vec![]
            }
            "subview" => vec![self.subview(op, operands, result_types[0])?],
            "load" => {
                let (p, m) = self.memref(op, operands[0])?;
                let addr = self.address(op, p, &m, &operands[1..])?;
                let v = self
                    .b
                    .ins()
                    .load(m.element, MemFlagsData::trusted(), addr, 0);
                vec![Val::Scalar(v)]
            }
            "store" => {
                let v = self.scalar(op, operands[0])?;
                let (p, m) = self.memref(op, operands[1])?;
                let addr = self.address(op, p, &m, &operands[2..])?;
                self.b.ins().store(MemFlagsData::trusted(), v, addr, 0);
                vec![]
            }
            "vload" => {
                let t = self.vector_type(op, result_types[0])?;
                let (p, m) = self.memref(op, operands[0])?;
                self.check_lanes(op, &m, t)?;
                let addr = self.address(op, p, &m, &operands[1..])?;
                let v = self
                    .b
                    .ins()
                    .load(t, MemFlagsData::new().with_notrap(), addr, 0);
                vec![Val::Scalar(v)]
            }
            "vstore" => {
                let v = self.scalar(op, operands[0])?;
                let vt = self.ir.body(self.body).value_type(operands[0]);
                let t = self.vector_type(op, vt)?;
                let (p, m) = self.memref(op, operands[1])?;
                self.check_lanes(op, &m, t)?;
                let addr = self.address(op, p, &m, &operands[2..])?;
                self.b
                    .ins()
                    .store(MemFlagsData::new().with_notrap(), v, addr, 0);
                vec![]
            }
            "fma" => {
                let (a, c, d) = (
                    self.scalar(op, operands[0])?,
                    self.scalar(op, operands[1])?,
                    self.scalar(op, operands[2])?,
                );
                let vector = self.b.func.dfg.value_type(a).is_vector();
                let v = if vector && !self.shared.features.fma {
                    let m = self.b.ins().fmul(a, c);
                    self.b.ins().fadd(m, d)
                } else {
                    self.b.ins().fma(a, c, d)
                };
                vec![Val::Scalar(v)]
            }
            "splat" => {
                let t = self.vector_type(op, result_types[0])?;
                let s = self.scalar(op, operands[0])?;
                vec![Val::Scalar(self.b.ins().splat(t, s))]
            }
            "vreduce" => vec![Val::Scalar(self.vreduce(op, operands[0])?)],
            "copy" => {
                let (src, sm) = self.memref(op, operands[0])?;
                let (dst, dm) = self.memref(op, operands[1])?;
                if sm.shape != dm.shape {
                    return Err(err(op, "copies between different shapes"));
                }
                self.copy(src, &sm, dst, &dm);
                vec![]
            }
            "for" => self.for_loop(id, operands)?,
            "parallel" => {
                self.parallel(id, operands)?;
                vec![]
            }
            other => return Err(err(op, format!("no code generation for 'loop.{other}'"))),
        })
    }

    fn vector_type(&self, op: OpRef<'_>, ty: acc_ir::TypeId) -> Result<Type, CodegenError> {
        if !self.shared.features.vectors {
            return Err(err(
                op,
                "the target has no vector instructions (RISC-V needs the V extension)",
            ));
        }
        scalar_type(self.ctx, ty).map_err(|m| err(op, m))
    }

    /// Vector accesses read consecutive elements: the innermost stride must be 1.
    fn check_lanes(&self, op: OpRef<'_>, m: &MemrefLayout, t: Type) -> Result<(), CodegenError> {
        if m.strides.last() != Some(&1) || t.lane_type() != m.element {
            return Err(err(
                op,
                "vector accesses need unit-stride elements of the vector's type",
            ));
        }
        Ok(())
    }

    fn vreduce(&mut self, op: OpRef<'_>, v: ValueId) -> Result<Value, CodegenError> {
        let x = self.scalar(op, v)?;
        let t = self.b.func.dfg.value_type(x);
        let kind = op
            .attr(self.ctx, "kind")
            .map(|a| acc_ir::printer::attr_to_string(self.ctx, a))
            .unwrap_or_default();
        let kind = ["add", "mul", "max", "min"]
            .into_iter()
            .find(|k| kind.contains(&format!("<{k}>")) || kind == *k)
            .ok_or_else(|| err(op, "unknown reduction"))?;
        let float = t.lane_type().is_float();
        let mut acc = self.b.ins().extractlane(x, 0);
        for lane in 1..t.lane_count() {
            let e = self.b.ins().extractlane(x, lane as u8);
            acc = match (kind, float) {
                ("add", true) => self.b.ins().fadd(acc, e),
                ("mul", true) => self.b.ins().fmul(acc, e),
                ("max", true) => self.b.ins().fmax(acc, e),
                ("min", true) => self.b.ins().fmin(acc, e),
                ("add", false) => self.b.ins().iadd(acc, e),
                ("mul", false) => self.b.ins().imul(acc, e),
                ("max", false) => self.b.ins().smax(acc, e),
                _ => self.b.ins().smin(acc, e),
            };
        }
        Ok(acc)
    }

    /// The address of element `indices` of a memref at `p`.
    fn address(
        &mut self,
        op: OpRef<'_>,
        p: Value,
        m: &MemrefLayout,
        indices: &[ValueId],
    ) -> Result<Value, CodegenError> {
        if indices.len() != m.shape.len() {
            return Err(err(op, "needs one index per dimension"));
        }
        let mut addr = p;
        for (d, idx) in indices.iter().enumerate() {
            let i = self.scalar(op, *idx)?;
            let bytes = m.strides[d] as i64 * i64::from(m.element_bytes());
            let off = self.b.ins().imul_imm_s(i, bytes);
            addr = self.b.ins().iadd(addr, off);
        }
        Ok(addr)
    }

    fn subview(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        result: acc_ir::TypeId,
    ) -> Result<Val, CodegenError> {
        let (p, m) = self.memref(op, operands[0])?;
        let attrs = acc_dialects::hooks::attr_read::Attrs::of_op(self.ctx, op);
        let list = |name: &str| -> Result<Vec<i64>, CodegenError> {
            attrs
                .ints(name)
                .map_err(|e| err(op, e))?
                .ok_or_else(|| err(op, format!("requires '{name}'")))
        };
        let (offsets, sizes, steps) = (
            list("static_offsets")?,
            list("static_sizes")?,
            list("static_strides")?,
        );
        let dynamic = acc_dialects::hooks::attr_read::is_dyn;
        if sizes.iter().chain(&steps).any(|v| dynamic(*v)) {
            return Err(err(
                op,
                "dynamic sizes and strides are not supported by the code generator",
            ));
        }
        let mut next = operands[1..].iter();
        let mut addr = p;
        for (d, off) in offsets.iter().enumerate() {
            let bytes = m.strides[d] as i64 * i64::from(m.element_bytes());
            if dynamic(*off) {
                let v = next
                    .next()
                    .ok_or_else(|| err(op, "missing a dynamic offset"))?;
                let i = self.scalar(op, *v)?;
                let o = self.b.ins().imul_imm_s(i, bytes);
                addr = self.b.ins().iadd(addr, o);
            } else if *off != 0 {
                addr = self.b.ins().iadd_imm_s(addr, off * bytes);
            }
        }
        let out = match repr(self.ctx, result).map_err(|e| err(op, e))? {
            Repr::Memref(r) => r,
            Repr::Scalar(_) => return Err(err(op, "a subview gives a memref")),
        };
        Ok(Val::Memref(addr, out))
    }

    /// Copies every element of (`src`, `sm`) into (`dst`, `dm`): one `memcpy` when
    /// both are contiguous, else a loop nest.
    fn copy(&mut self, src: Value, sm: &MemrefLayout, dst: Value, dm: &MemrefLayout) {
        if sm.is_contiguous() && dm.is_contiguous() {
            let bytes = sm.len() as i64 * i64::from(sm.element_bytes());
            let p = self.pointer();
            let size = self.b.ins().iconst(p, bytes);
            self.b.call_memcpy(self.shared.config, dst, src, size);
            return;
        }
        let shape = sm.shape.clone();
        let flags = MemFlagsData::trusted();
        self.nest(&shape, &mut |s, idx| {
            let a = s.offset_address(src, sm, idx);
            let v = s.b.ins().load(sm.element, flags, a, 0);
            let b = s.offset_address(dst, dm, idx);
            s.b.ins().store(flags, v, b, 0);
        });
    }

    fn offset_address(&mut self, p: Value, m: &MemrefLayout, idx: &[Value]) -> Value {
        let mut addr = p;
        for (d, i) in idx.iter().enumerate() {
            let bytes = m.strides[d] as i64 * i64::from(m.element_bytes());
            let o = self.b.ins().imul_imm_s(*i, bytes);
            addr = self.b.ins().iadd(addr, o);
        }
        addr
    }

    /// A loop nest over `shape` (constant bounds, step 1) running `body` with the
    /// indices.
    fn nest(&mut self, shape: &[usize], body: &mut dyn FnMut(&mut Self, &[Value])) {
        fn level<'a, 'b, 'm, M: Module>(
            s: &mut FnTranslator<'a, 'b, 'm, M>,
            shape: &[usize],
            idx: &mut Vec<Value>,
            body: &mut dyn FnMut(&mut FnTranslator<'a, 'b, 'm, M>, &[Value]),
        ) {
            let Some((&n, rest)) = shape.split_first() else {
                body(s, idx);
                return;
            };
            let lb = s.b.ins().iconst(types::I64, 0);
            let ub = s.b.ins().iconst(types::I64, n as i64);
            let (header, body_block, exit) = s.loop_blocks(&[]);
            s.b.ins().jump(header, &[lb.into()]);
            s.b.switch_to_block(header);
            let iv = s.b.block_params(header)[0];
            let c = s.b.ins().icmp(IntCC::SignedLessThan, iv, ub);
            s.b.ins().brif(c, body_block, &[], exit, &[]);
            s.b.switch_to_block(body_block);
            idx.push(iv);
            level(s, rest, idx, body);
            idx.pop();
            let next = s.b.ins().iadd_imm_s(iv, 1);
            s.b.ins().jump(header, &[next.into()]);
            s.b.switch_to_block(exit);
        }
        let mut idx = Vec::new();
        level(self, shape, &mut idx, body);
    }

    /// A loop's header (induction variable and carried values), body and exit blocks.
    fn loop_blocks(&mut self, carried: &[Type]) -> (Block, Block, Block) {
        let header = self.b.create_block();
        self.b.append_block_param(header, types::I64);
        for t in carried {
            self.b.append_block_param(header, *t);
        }
        let body = self.b.create_block();
        let exit = self.b.create_block();
        for t in carried {
            self.b.append_block_param(exit, *t);
        }
        (header, body, exit)
    }

    /// `loop.for`: the results are the exit block's parameters.
    fn for_loop(&mut self, id: OpId, operands: &[ValueId]) -> Result<Vec<Val>, CodegenError> {
        let op = self.ir.op(self.body, id);
        let (lb, ub, step) = (
            self.scalar(op, operands[0])?,
            self.scalar(op, operands[1])?,
            self.scalar(op, operands[2])?,
        );
        let inits: Vec<Val> = operands[3..]
            .iter()
            .map(|v| self.get(op, *v))
            .collect::<Result<_, _>>()?;
        let machine = |v: &Val| match v {
            Val::Scalar(x) | Val::Memref(x, _) => *x,
        };
        let types: Vec<Type> = inits
            .iter()
            .map(|v| self.b.func.dfg.value_type(machine(v)))
            .collect();
        let (header, body, exit) = self.loop_blocks(&types);
        let mut args: Vec<cranelift_codegen::ir::BlockArg> = vec![lb.into()];
        args.extend(
            inits
                .iter()
                .map(|v| cranelift_codegen::ir::BlockArg::from(machine(v))),
        );
        self.b.ins().jump(header, &args);
        self.b.switch_to_block(header);
        let ps = self.b.block_params(header).to_vec();
        let iv = ps[0];
        let carried: Vec<Val> = inits
            .iter()
            .zip(&ps[1..])
            .map(|(init, p)| match init {
                Val::Scalar(_) => Val::Scalar(*p),
                Val::Memref(_, m) => Val::Memref(*p, m.clone()),
            })
            .collect();
        let c = self.b.ins().icmp(IntCC::SignedLessThan, iv, ub);
        let carried_args: Vec<cranelift_codegen::ir::BlockArg> =
            ps[1..].iter().map(|v| (*v).into()).collect();
        self.b.ins().brif(c, body, &[], exit, &carried_args);
        self.b.switch_to_block(body);
        let mut region_args = vec![Val::Scalar(iv)];
        region_args.extend(carried.iter().cloned());
        let yielded = self.region(id, 0, &region_args)?;
        let next = self.b.ins().iadd(iv, step);
        let mut back: Vec<cranelift_codegen::ir::BlockArg> = vec![next.into()];
        back.extend(
            yielded
                .iter()
                .map(|v| cranelift_codegen::ir::BlockArg::from(machine(v))),
        );
        self.b.ins().jump(header, &back);
        self.b.switch_to_block(exit);
        let outs = self.b.block_params(exit).to_vec();
        Ok(carried
            .iter()
            .zip(outs)
            .map(|(c, v)| match c {
                Val::Scalar(_) => Val::Scalar(v),
                Val::Memref(_, m) => Val::Memref(v, m.clone()),
            })
            .collect())
    }

    /// `loop.parallel`: a nest of loops, outermost first (run on one thread).
    fn parallel(&mut self, id: OpId, operands: &[ValueId]) -> Result<(), CodegenError> {
        let op = self.ir.op(self.body, id);
        let n = operands.len() / 3;
        let bounds: Vec<(Value, Value, Value)> = (0..n)
            .map(|d| {
                Ok((
                    self.scalar(op, operands[d])?,
                    self.scalar(op, operands[n + d])?,
                    self.scalar(op, operands[2 * n + d])?,
                ))
            })
            .collect::<Result<_, CodegenError>>()?;
        let mut ivs = Vec::new();
        let mut exits = Vec::new();
        for (lb, ub, step) in &bounds {
            let (header, body, exit) = self.loop_blocks(&[]);
            self.b.ins().jump(header, &[(*lb).into()]);
            self.b.switch_to_block(header);
            let iv = self.b.block_params(header)[0];
            let c = self.b.ins().icmp(IntCC::SignedLessThan, iv, *ub);
            self.b.ins().brif(c, body, &[], exit, &[]);
            self.b.switch_to_block(body);
            ivs.push(Val::Scalar(iv));
            exits.push((header, exit, iv, *step));
        }
        self.region(id, 0, &ivs)?;
        for (header, exit, iv, step) in exits.into_iter().rev() {
            let next = self.b.ins().iadd(iv, step);
            self.b.ins().jump(header, &[next.into()]);
            self.b.switch_to_block(exit);
        }
        Ok(())
    }

    /// A read-only data object holding `op`'s `value`, and its address.
    fn constant_data(&mut self, op: OpRef<'_>) -> Result<Value, CodegenError> {
        let value = op
            .attr(self.ctx, "value")
            .ok_or_else(|| err(op, "a constant without a value"))?;
        let t = acc_interp::Tensor::from_attr(self.ctx, value).map_err(|m| err(op, m))?;
        let bytes = crate::types::encode(&t).map_err(|m| err(op, m))?;
        let module = &mut *self.shared.module;
        let id = module
            .declare_anonymous_data(false, false)
            .map_err(|e| err(op, format!("cannot declare the constant: {e}")))?;
        let mut data = cranelift_module::DataDescription::new();
        data.define(bytes.into_boxed_slice());
        data.set_align(64);
        module
            .define_data(id, &data)
            .map_err(|e| err(op, format!("cannot define the constant: {e}")))?;
        let gv = module.declare_data_in_func(id, self.b.func);
        let p = self.pointer();
        Ok(self.b.ins().symbol_value(p, gv))
    }

    /// `hw.intrinsic "NAME"(operands)`: a call to the function NAME of the program
    /// (a library's: the host's GEMM, a vendor's HWlib), memrefs as pointers to their
    /// first element, scalars by value.
    fn intrinsic(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        result_types: &[acc_ir::TypeId],
    ) -> Result<(), CodegenError> {
        if !result_types.is_empty() {
            return Err(err(
                op,
                "intrinsics with results have no code generation yet",
            ));
        }
        let callee = op
            .attr(self.ctx, "callee")
            .and_then(|c| match self.ctx.attr_data(c) {
                acc_ir::AttrData::String { value, .. } => Some(self.ctx.str(*value).to_string()),
                _ => None,
            })
            .ok_or_else(|| err(op, "an intrinsic without a callee"))?;
        let mut args = Vec::new();
        let mut params = Vec::new();
        for v in operands {
            let (x, t) = match self.get(op, *v)? {
                Val::Scalar(x) => (x, self.b.func.dfg.value_type(x)),
                Val::Memref(p, _) => (p, self.pointer()),
            };
            args.push(x);
            params.push(t);
        }
        let f = self.runtime(op, &callee, &params, None)?;
        self.b.ins().call(f, &args);
        Ok(())
    }

    // ----- runtime -----

    /// `bytes` bytes from `acc_alloc` (64-byte aligned).
    fn alloc(&mut self, op: OpRef<'_>, bytes: u64) -> Result<Value, CodegenError> {
        let p = self.pointer();
        let f = self.runtime(op, "acc_alloc", &[types::I64, types::I64], Some(p))?;
        let size = self.b.ins().iconst(types::I64, bytes as i64);
        let align = self.b.ins().iconst(types::I64, 64);
        let call = self.b.ins().call(f, &[size, align]);
        Ok(self.b.inst_results(call)[0])
    }

    /// The runtime function `name`, imported into this function once.
    fn runtime(
        &mut self,
        op: OpRef<'_>,
        name: &str,
        params: &[Type],
        ret: Option<Type>,
    ) -> Result<FuncRef, CodegenError> {
        if let Some(f) = self.imported.get(name) {
            return Ok(*f);
        }
        let mut sig = Signature::new(self.shared.module.isa().default_call_conv());
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        sig.returns.extend(ret.map(AbiParam::new));
        let id = self
            .shared
            .module
            .declare_function(name, Linkage::Import, &sig)
            .map_err(|e| err(op, format!("cannot declare '{name}': {e}")))?;
        let f = self.shared.module.declare_func_in_func(id, self.b.func);
        self.imported.insert(name.to_string(), f);
        Ok(f)
    }
}

/// Row-major strides of `shape`.
pub(crate) fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

fn int_cc(p: i128) -> Option<IntCC> {
    Some(match p {
        0 => IntCC::Equal,
        1 => IntCC::NotEqual,
        2 => IntCC::SignedLessThan,
        3 => IntCC::SignedLessThanOrEqual,
        4 => IntCC::SignedGreaterThan,
        5 => IntCC::SignedGreaterThanOrEqual,
        6 => IntCC::UnsignedLessThan,
        7 => IntCC::UnsignedLessThanOrEqual,
        8 => IntCC::UnsignedGreaterThan,
        9 => IntCC::UnsignedGreaterThanOrEqual,
        _ => return None,
    })
}

fn float_cc(p: i128) -> Option<FloatCC> {
    Some(match p {
        1 => FloatCC::Equal,
        2 => FloatCC::GreaterThan,
        3 => FloatCC::GreaterThanOrEqual,
        4 => FloatCC::LessThan,
        5 => FloatCC::LessThanOrEqual,
        6 => FloatCC::OrderedNotEqual,
        7 => FloatCC::Ordered,
        8 => FloatCC::UnorderedOrEqual,
        9 => FloatCC::UnorderedOrGreaterThan,
        10 => FloatCC::UnorderedOrGreaterThanOrEqual,
        11 => FloatCC::UnorderedOrLessThan,
        12 => FloatCC::UnorderedOrLessThanOrEqual,
        13 => FloatCC::NotEqual,
        14 => FloatCC::Unordered,
        _ => return None,
    })
}
