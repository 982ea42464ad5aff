//! Verifiers of the `hw` dialect (`defs/hw.acc`): symbols name the right kind of op,
//! buffers fit their memory, launches pass what their region takes.

use crate::ops::hw;
use acc_ir::attrs::AttrData;
use acc_ir::{AttrId, BodyId, Context, DiagLoc, Diagnostic, Ir, OpRef, TypeData, TypeId};

use super::attr_read::Attrs;
use crate::syntax::lookup_symbol;

type Check = Result<(), String>;

fn report(op: OpRef<'_>, ctx: &Context, result: Check) -> Vec<Diagnostic> {
    match result {
        Ok(()) => Vec::new(),
        Err(m) => vec![Diagnostic::error(
            DiagLoc::Loc(op.loc()),
            format!("'{}' op {m}", ctx.op_name_str(op.name())),
        )],
    }
}

/// The op a symbol reference attribute names, checked to be a `want` op.
fn resolve<'a>(op: OpRef<'a>, ctx: &Context, a: AttrId, want: &str) -> Result<OpRef<'a>, String> {
    let AttrData::SymbolRef { root, nested } = ctx.attr_data(a) else {
        return Err(format!("expects a symbol naming a '{want}'"));
    };
    let name = ctx.str(*root);
    let found = lookup_symbol(op, ctx, *root)
        .filter(|_| nested.is_empty())
        .ok_or_else(|| format!("refers to @{name}, which is not defined"))?;
    if ctx.op_name_str(found.name()) != want {
        return Err(format!("refers to @{name}, which is not a '{want}'"));
    }
    Ok(found)
}

/// The `hw.device` declarations among the ops of the module body `module`, in order.
pub fn declared_devices<'a>(ctx: &'a Context, ir: &'a Ir, module: BodyId) -> Vec<hw::Device<'a>> {
    let b = ir.body(module);
    b.top_regions()
        .iter()
        .flat_map(|r| b.region_blocks(*r))
        .flat_map(|bl| b.block_ops(bl))
        .filter_map(|o| hw::Device::of(ctx, ir.op(module, o)))
        .collect()
}

/// Whether `op` is an external compiler's region on tensors: `outline-external`'s
/// `hw.intrinsic` with a `compiler` and results, before `bufferize` makes it a call
/// on buffers.
pub fn is_external_region(ctx: &Context, op: OpRef<'_>) -> bool {
    hw::Intrinsic::of(ctx, op).is_some_and(|i| i.compiler().is_some())
        && op.results().next().is_some()
}

/// The widths a device's vector registers may have (`vector_bits`): a power of two
/// from 64 bits (a DSP's SIMD pairs) to 4096 (HVX pairs are 2048).
pub const VECTOR_BITS: std::ops::RangeInclusive<i64> = 64..=4096;

/// Whether `bits` is a width a device's vector registers may have ([`VECTOR_BITS`]).
pub fn valid_vector_bits(bits: i64) -> bool {
    VECTOR_BITS.contains(&bits) && bits & (bits - 1) == 0
}

pub(crate) fn verify_device(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let kind = op
        .attr(ctx, hw::Device::ATTR_KIND)
        .map(|a| ctx.attr_data(a));
    let result = match kind {
        Some(AttrData::String { value, .. }) if !ctx.str(*value).is_empty() => Ok(()),
        _ => Err("needs a non-empty 'kind' (\"host\", \"accelerator\", \"dsp\", ...)".to_string()),
    }
    .and_then(|()| {
        let attrs = Attrs::of_op(ctx, op);
        match attrs.int(hw::Device::ATTR_VECTOR_BITS)? {
            Some(bits) if !valid_vector_bits(bits) => Err(format!(
                "vector_bits must be a power of two from {} to {}, but is {bits}",
                VECTOR_BITS.start(),
                VECTOR_BITS.end()
            )),
            Some(_) if op.attr(ctx, hw::Device::ATTR_COMPILER).is_none() => Err(
                "vector_bits is the vector types of a programmable device's compiler: it needs 'compiler'"
                    .to_string(),
            ),
            _ => Ok(()),
        }
    });
    report(op, ctx, result)
}

pub(crate) fn verify_memory(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let attrs = Attrs::of_op(ctx, op);
        let size = attrs.req_int(hw::Memory::ATTR_SIZE)?;
        let alignment = attrs.int(hw::Memory::ATTR_ALIGNMENT)?.unwrap_or(1);
        if size <= 0 {
            return Err(format!("size must be positive, but is {size}"));
        }
        if alignment <= 0 || alignment & (alignment - 1) != 0 {
            return Err(format!(
                "alignment must be a power of two, but is {alignment}"
            ));
        }
        if let Some(devices) = attrs.get(hw::Memory::ATTR_DEVICES) {
            let AttrData::Array(items) = ctx.attr_data(devices) else {
                return Err("'devices' must list device symbols".into());
            };
            for d in items.iter() {
                resolve(op, ctx, *d, hw::Device::NAME)?;
            }
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// Bytes a statically shaped buffer of `t` takes (sub-byte elements packed).
pub fn buffer_bytes(ctx: &Context, t: TypeId) -> Option<i64> {
    let data = ctx.type_data(t);
    let count: i64 = data
        .shape()?
        .iter()
        .try_fold(1i64, |n, &d| (d >= 0).then(|| n.saturating_mul(d)))?;
    let bits = match ctx.type_data(data.element_type()?) {
        TypeData::Integer { width, .. } => i64::from(*width),
        TypeData::Float(k) => i64::from(k.width()),
        TypeData::Index => 64,
        _ => return None,
    };
    Some((count.saturating_mul(bits) + 7) / 8)
}

/// The name of the memory a memref lives in: its string memory space (`"sram"`).
pub fn memory_space(ctx: &Context, t: TypeId) -> Option<&str> {
    let TypeData::MemRef { memory_space, .. } = ctx.type_data(t) else {
        return None;
    };
    match ctx.attr_data((*memory_space)?) {
        AttrData::String { value, ty: None } => Some(ctx.str(*value)),
        _ => None,
    }
}

pub(crate) fn verify_buffer(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let attrs = Attrs::of_op(ctx, op);
        let memory_ref = attrs
            .get(hw::Buffer::ATTR_MEMORY)
            .ok_or("requires attribute 'memory'")?;
        let memory = resolve(op, ctx, memory_ref, hw::Memory::NAME)?;
        let mem_attrs = Attrs::of_op(ctx, memory);
        let size = mem_attrs.req_int(hw::Memory::ATTR_SIZE)?;
        let alignment = mem_attrs
            .int(hw::Memory::ATTR_ALIGNMENT)?
            .unwrap_or(1)
            .max(1);
        let offset = attrs.req_int(hw::Buffer::ATTR_OFFSET)?;
        let t = op.result_types()[0];
        let AttrData::SymbolRef { root, .. } = ctx.attr_data(memory_ref) else {
            return Err("'memory' must name an hw.memory".into());
        };
        let name = ctx.str(*root);
        if memory_space(ctx, t) != Some(name) {
            return Err(format!(
                "the buffer's type must have its memory's name \"{name}\" as memory space"
            ));
        }
        let bytes = buffer_bytes(ctx, t).ok_or("a buffer needs a static shape of numbers")?;
        if offset < 0 || offset % alignment != 0 {
            return Err(format!(
                "offset {offset} is not a multiple of the memory's alignment {alignment}"
            ));
        }
        if offset.saturating_add(bytes) > size {
            return Err(format!(
                "{bytes} bytes at offset {offset} do not fit in the memory's {size} bytes"
            ));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

pub(crate) fn verify_launch(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let device = op
            .attr(ctx, hw::Launch::ATTR_DEVICE)
            .ok_or("requires attribute 'device'")?;
        resolve(op, ctx, device, hw::Device::NAME)?;
        let body = op.ir.body(op.region_body());
        let region = *op.regions().first().ok_or("needs a body")?;
        let block = body.entry_block(region).ok_or("needs a body block")?;
        let args: Vec<TypeId> = body
            .block_args(block)
            .iter()
            .map(|v| body.value_type(*v))
            .collect();
        let launch = hw::Launch::of(ctx, op).ok_or("needs its token and one region")?;
        let passed: Vec<TypeId> = launch
            .args()
            .iter()
            .map(|v| op.ir.body(op.body).value_type(*v))
            .collect();
        if args != passed {
            return Err("the body's arguments must have the types of the values passed".into());
        }
        if let Some(last) = body.block_ops(block).last()
            && body.operands(last).len() != 0
        {
            return Err("the body's hw.yield gives no values".into());
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// The shape and element type of a tensor or memref (a scalar is itself, rank 0).
fn shaped(ctx: &Context, t: TypeId) -> (Vec<i64>, TypeId) {
    match ctx.type_data(t) {
        TypeData::RankedTensor { shape, element, .. } | TypeData::MemRef { shape, element, .. } => {
            (shape.to_vec(), *element)
        }
        _ => (Vec::new(), t),
    }
}

/// An intrinsic with a `semantics` region lists the operands the region reads
/// (`inputs`, one per block argument, of the argument's shape and elements) and those
/// it writes (`outputs`, one per yielded value); without the region it lists neither.
pub(crate) fn verify_intrinsic(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let attrs = Attrs::of_op(ctx, op);
        let (inputs, outputs) = (
            attrs.ints(hw::Intrinsic::ATTR_INPUTS)?,
            attrs.ints(hw::Intrinsic::ATTR_OUTPUTS)?,
        );
        let body = op.ir.body(op.region_body());
        let block = op.regions().first().and_then(|r| body.entry_block(*r));
        let Some(block) = block else {
            if inputs.is_some() || outputs.is_some() {
                return Err("lists 'inputs' and 'outputs' without a semantics region".into());
            }
            return Ok(());
        };
        let (Some(inputs), Some(outputs)) = (inputs, outputs) else {
            return Err("with a semantics region needs 'inputs' and 'outputs'".into());
        };
        let operands = op.operand_types();
        let operand = |i: i64| -> Result<TypeId, String> {
            usize::try_from(i)
                .ok()
                .and_then(|i| operands.get(i).copied())
                .ok_or_else(|| format!("lists operand {i}, but has {}", operands.len()))
        };
        let args = body.block_args(block);
        if args.len() != inputs.len() {
            return Err(format!(
                "semantics region takes {} arguments for {} inputs",
                args.len(),
                inputs.len()
            ));
        }
        for (a, i) in args.iter().zip(&inputs) {
            if shaped(ctx, body.value_type(*a)) != shaped(ctx, operand(*i)?) {
                return Err(format!(
                    "semantics argument of input {i} differs from the operand in shape or elements"
                ));
            }
        }
        let last = body
            .block_ops(block)
            .last()
            .ok_or("empty semantics region")?;
        let yielded: Vec<TypeId> = body.operands(last).map(|v| body.value_type(v)).collect();
        // On tensors (an external region before `bufferize`), the results are what the
        // region yields.
        let results = op.result_types();
        let wanted = if results.is_empty() {
            outputs.len()
        } else if outputs.is_empty() {
            results.len()
        } else {
            return Err("with results, yields them: its 'outputs' are empty".into());
        };
        if ctx.op_name_str(body.op(last).name) != hw::Yield::NAME || yielded.len() != wanted {
            return Err(format!(
                "semantics region must end with a hw.yield of {wanted} values"
            ));
        }
        for (i, (t, r)) in yielded.iter().zip(results.iter()).enumerate() {
            if t != r {
                return Err(format!(
                    "semantics result {i} differs from the op's result in type"
                ));
            }
        }
        for (t, i) in yielded.iter().zip(&outputs) {
            if shaped(ctx, *t) != shaped(ctx, operand(*i)?) {
                return Err(format!(
                    "semantics result for output {i} differs from the operand in shape or elements"
                ));
            }
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// Byte alignment of every buffer of a memory's arena (`memory-plan`), and so the unit
/// a staged buffer's size is rounded to: a cache line, and the widest vector.
pub const ALIGNMENT: u64 = 64;

/// The discardable attribute of a library call (`hw.intrinsic`, `hw.dma_start`,
/// `hw.dma_wait`): the C headers declaring its function (the target's
/// `header "..."`), an array of strings. The C back end includes them instead of
/// declaring the function.
pub const HEADERS_ATTR: &str = "hw.headers";

/// Whether `text` can stand in C source as a quoted header name or section name:
/// printable ASCII, no quote, backslash or angle bracket, not empty.
pub fn is_plain_c_string(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|b| {
            (b.is_ascii_graphic() && !matches!(b, b'"' | b'\\' | b'<' | b'>')) || b == b' '
        })
}

/// Marks the call `op` with [`HEADERS_ATTR`] (nothing for no headers).
pub fn set_headers(
    ctx: &Context,
    ir: &mut acc_ir::Ir,
    body: acc_ir::BodyId,
    op: acc_ir::OpId,
    headers: &[String],
) -> Result<(), String> {
    if headers.is_empty() {
        return Ok(());
    }
    let items: Vec<AttrId> = headers.iter().map(|h| ctx.string_attr(h)).collect();
    let array = ctx.intern_attr(AttrData::Array(items.into()));
    let key = ctx.sym(HEADERS_ATTR);
    let mut entries: Vec<_> = ctx
        .dict_entries(ir.body(body).op(op).attrs)
        .iter()
        .filter(|(k, _)| *k != key)
        .copied()
        .collect();
    entries.push((key, array));
    ir.body_mut(body).op_mut(op).attrs = ctx
        .dict_attr(entries)
        .map_err(|_| "duplicate attributes".to_string())?;
    Ok(())
}

/// The bytes of a static, contiguous buffer type and its memory space (`None`: the
/// host's), if it is one. Elements narrower than a byte take a byte each, as the
/// code generators store them.
pub fn stored_bytes(ctx: &Context, ty: TypeId) -> Option<(u64, Option<String>)> {
    let TypeData::MemRef {
        shape,
        element,
        layout: None,
        memory_space,
    } = ctx.type_data(ty)
    else {
        return None;
    };
    let space = match memory_space {
        None => None,
        Some(_) => Some(self::memory_space(ctx, ty)?.to_string()),
    };
    let bits = match ctx.type_data(*element) {
        TypeData::Float(k) => u64::from(k.width()),
        TypeData::Integer { width, .. } => u64::from(*width),
        TypeData::Index => 64,
        TypeData::QuantUniform(q) => u64::from(q.storage_width),
        _ => return None,
    };
    let mut n = 1u64;
    for d in shape.iter() {
        n = n.checked_mul(u64::try_from(*d).ok()?)?;
    }
    Some((n.checked_mul(bits.div_ceil(8))?, space))
}

/// `!hw.token`: what a transfer or a launch returns, to be waited for.
pub fn token_type(ctx: &Context) -> TypeId {
    ctx.intern_type(TypeData::Declared {
        dialect: ctx.sym("hw"),
        name: ctx.sym("token"),
        params: Box::new([]),
    })
}

/// The device an op runs on as `partition` placed it (its `hw.device` attribute, see
/// `acc_target::placement`), if any: ops on different devices are not merged.
pub fn placed_device(ctx: &Context, op: OpRef<'_>) -> Option<AttrId> {
    ctx.dict_get(op.attrs(), acc_target::placement::DEVICE_ATTR)
}
