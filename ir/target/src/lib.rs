//! # acc-target: the target model
//!
//! Target descriptions: what a machine has, read from a `target NAME { ... }` block
//! of a dialect file (docs/dialect-language.md, "Targets") and consulted by passes.
//! A description is a value: one compilation holds the [`Targets`] it was given, in
//! order, and the pass manager hands them to every pass; nothing here is global.
//!
//! For now a description declares the target's devices, its memories (`memory-plan`
//! checks that a function's arena fits the host's) and the library kernels of its
//! host: functions following one of the calling conventions acc's host lowering
//! knows ([`HOST_INTERFACES`], documented in docs/codegen.md). `bufferize` calls a
//! kernel wherever its target has one for an op, and generates loops
//! elsewhere; nothing about a particular machine is written in Rust.
//!
//! A description also declares the intrinsics of its accelerators ([`Intrinsic`]):
//! which ops each computes, under which conditions, at what cost and with which call.
//! `partition` places ops on devices from them; `bufferize` turns a placed op into
//! the call.

#![deny(missing_docs)]

pub mod placement;

use std::sync::Arc;

use acc_ir::{BodyId, Context, Ir, OpId, ValueId};

/// A device of a target: a host core, an accelerator, a DSP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// Its name (`cpu`).
    pub name: String,
    /// What it is: `host`, `accelerator`, `dsp`.
    pub kind: String,
    /// For the host and a programmable device: the cycles each op of its own code
    /// costs (an op the interpreter runs outside calls), which the simulator charges;
    /// `None` charges nothing.
    pub cycles_per_op: Option<i64>,
    /// For a device other than the host: the C function that starts a launch's work
    /// on it (`submit NAME`; docs/codegen.md, "Launches"); without it, the C back end
    /// runs a launch where it is issued.
    pub submit: Option<String>,
    /// For a programmable device: what builds its own C file (`compiler "CC" flags
    /// "..."`); only such a device runs code of its own (`code` rules).
    pub compiler: Option<Compiler>,
    /// For a programmable device whose compiler takes vector types: the bits of its
    /// vector registers (`vector_bits 512`, a power of two); `vectorize` runs the
    /// loops of its launches on them.
    pub vector_bits: Option<u32>,
    /// For a device whose code an external (vendor) compiler builds, the way TVM's
    /// BYOC hands a partitioned function to an external codegen: the command
    /// (`external "vendor-cc {ir} {constants} {function} {output}"`, or `{object}`
    /// instead of `{output}` for a compiler writing an object file). The ops its
    /// `code` rules place become regions (`outline-external`), each given to the
    /// command, as MLIR text and its constants as `.npy` files, when the C is emitted
    /// (docs/codegen.md, "External compilers").
    pub external: Option<String>,
}

/// The compiler of a programmable device's C file, as the target declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiler {
    /// The command (`xt-clang`).
    pub command: String,
    /// Its flags (`-O3 -std=c99`), empty when none are declared.
    pub flags: String,
}

/// A memory of a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memory {
    /// Its name (`ram`).
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
    /// The devices that reach it (all of them when empty).
    pub devices: Vec<String>,
    /// The linker section its arenas go in (`section ".sram"`), when the target
    /// names one: the emitted C gives each arena of this memory that section.
    pub section: Option<String>,
}

/// A DMA engine: the C functions that start a copy between two of its memories and
/// wait for one, and what a copy costs.
///
/// `uint32_t START(void *dst, const void *src, uint32_t bytes)` starts copying and
/// returns a ticket; `void WAIT(uint32_t ticket)` returns when that copy (and every
/// copy started before it: the engine completes them in order) is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dma {
    /// The function starting a copy (`dma_copy`).
    pub start: String,
    /// The function waiting for one (`dma_wait`).
    pub wait: String,
    /// The memories it copies between, either way.
    pub memories: Vec<String>,
    /// Cycles a copy costs before its first byte moves.
    pub setup: i64,
    /// Bytes it moves a cycle.
    pub bytes_per_cycle: i64,
}

impl Dma {
    /// The cycles a copy of `bytes` takes.
    pub fn cycles(&self, bytes: i64) -> i64 {
        let rate = self.bytes_per_cycle.max(1);
        self.setup + (bytes.max(0) + rate - 1) / rate
    }
}

/// A library function of the host and the calling convention it follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The function's symbol (`acc_sgemm`).
    pub symbol: String,
    /// One of [`HOST_INTERFACES`].
    pub interface: String,
}

/// An argument of an intrinsic's C call, computed from the op it replaces.
#[derive(Clone, Debug, PartialEq)]
pub enum CallArg {
    /// A value of the matched ops (an operand or result): its buffer.
    Value(ValueId),
    /// An integer known at compile time (an `int32_t`).
    Int(i64),
    /// A table of `f32` known at compile time (a `const float *`).
    F32Table(Vec<f32>),
    /// Bytes known at compile time (a `const int8_t *`): a constant operand in the
    /// layout the device reads, such as int4 weights packed two to a byte.
    Bytes(Vec<u8>),
    /// A table of `int32_t` known at compile time (a `const int32_t *`): Q31
    /// multipliers and shifts, bias corrections.
    I32Table(Vec<i32>),
    /// A table of `int16_t` known at compile time.
    I16Table(Vec<i16>),
    /// A `float` known at compile time (a threshold).
    Float(f32),
    /// `count(%y)`: an `int32_t *` to one element, where the library writes how many
    /// rows (the size of the leading, dynamic dimension) it wrote into the buffer of
    /// the result `%y`, a value of dynamic shape the call receives as the buffer of
    /// its bound ([`Placement::bounds`]).
    Count(ValueId),
}

/// Where an intrinsic would compute an op: its cost and the arguments of its call.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// The cost the target declares (cycles), 0 when it declares none.
    pub cost: i64,
    /// The multiply-accumulates the call does and the most the device does a cycle,
    /// when the target declares them (`macs E per_cycle N`).
    pub macs: Option<(i64, i64)>,
    /// The call's arguments, in the declared order.
    pub call: Vec<CallArg>,
    /// The arguments that carry a parameter of the op's semantics, by name and
    /// position in `call` (`input_offset`, `multipliers`, `act_min`, ...: the
    /// parameters of `acc_dialects::hooks::params`, and the op's clamp): the call's
    /// semantics compute with these values, so that a wrong one shows under
    /// `--check-semantics`.
    pub params: Vec<(String, usize)>,
    /// The operands the call receives only in a form computed at compile time
    /// ([`CallArg::Bytes`]) instead of their buffers; each is a constant.
    pub compile_time: Vec<ValueId>,
    /// The values whose buffers the call reads or writes in another layout (the
    /// target's `layout %v (p0, p1, ...)` or `layout %v "NCHW" -> "NCHW16c"`).
    pub layouts: Vec<(ValueId, BufferLayout)>,
    /// Pairs `(a, b)` whose buffers share whatever layout `b`'s has (`layout %a like
    /// %b`: an elementwise function, which any layout suits).
    pub layouts_like: Vec<(ValueId, ValueId)>,
    /// The results of dynamic shape and the static shape of the buffer the call
    /// writes each into: the most it can hold (a non-maximum suppression's B x C x
    /// min(N, max_output_boxes_per_class) rows). Each has a [`CallArg::Count`] in
    /// `call`, saying how many of the leading rows the call wrote.
    pub bounds: Vec<(ValueId, Vec<i64>)>,
}

/// How a call's buffer holds a value of rank `r`: the value's dimensions permuted,
/// one of them possibly split into blocks that become the innermost stored
/// dimension (a channel-blocked layout such as NCHW16c: N x ceil(C/16) x H x W x
/// 16). It is `tensor.pack`'s rearrangement, with `outer_dims_perm = perm`,
/// `inner_dims_pos = [d]` and `inner_tiles = [size]`.
///
/// Invariants: `perm` is a permutation of `0..r`; a block's dimension is below `r`
/// and its size positive. The lanes of a partial last block (C not a multiple of
/// the size) hold zero (the stored integer 0 of a quantized value): every copy into
/// the layout writes them so, and nothing reads them as data.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BufferLayout {
    /// Stored (outer) dimension `i` is the value's dimension `perm[i]` (for the
    /// blocked dimension, its number of blocks).
    pub perm: Vec<i64>,
    /// The value's dimension split into blocks, and the block's size.
    pub block: Option<(usize, i64)>,
}

impl BufferLayout {
    /// The value transposed by `perm` (stored dimension `i` is dimension `perm[i]`).
    pub fn permutation(perm: Vec<i64>) -> BufferLayout {
        BufferLayout { perm, block: None }
    }

    /// The rank of the values it holds.
    pub fn rank(&self) -> usize {
        self.perm.len()
    }

    /// The shape of the buffer holding a value of `shape` (of this rank).
    pub fn stored_shape(&self, shape: &[i64]) -> Vec<i64> {
        let mut outer = shape.to_vec();
        if let Some((d, size)) = self.block
            && let Some(dim) = outer.get_mut(d)
        {
            *dim = (*dim + size - 1) / size;
        }
        let mut stored: Vec<i64> = self
            .perm
            .iter()
            .map(|p| outer.get(*p as usize).copied().unwrap_or(1))
            .collect();
        if let Some((_, size)) = self.block {
            stored.push(size);
        }
        stored
    }

    /// The permutation undoing `perm`: the stored outer dimension holding the
    /// value's dimension `i` is `inverse()[i]`.
    pub fn inverse(&self) -> Vec<i64> {
        let mut inv = vec![0; self.perm.len()];
        for (i, p) in self.perm.iter().enumerate() {
            if let Some(slot) = inv.get_mut(*p as usize) {
                *slot = i as i64;
            }
        }
        inv
    }
}

impl std::fmt::Display for BufferLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.perm)?;
        if let Some((d, size)) = self.block {
            write!(f, " with dimension {d} in blocks of {size}")?;
        }
        Ok(())
    }
}

/// What decides whether an intrinsic computes an op: the match, conditions, cost and
/// call written in a target file (compiled by the dialect language).
pub trait IntrinsicRule: Send + Sync {
    /// The name of the op the match is rooted at (`graph.qconv2d`).
    fn root(&self) -> &str;

    /// How the intrinsic computes `op` (of `body`), or why it cannot: the condition
    /// that failed, as written, with the values it compared.
    fn place(&self, ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Result<Placement, String> {
        self.place_with(ctx, ir, body, op, None)
    }

    /// As [`IntrinsicRule::place`] (which is `place_with(.., None)`: an implementation
    /// computes every argument itself then), with the call's compile-time arguments (each a
    /// [`CallArg::F32Table`] or [`CallArg::Bytes`], in call order) taken from
    /// `prepared`, as the `weight-prep` pass made them, instead of computed again; an
    /// error when they do not fit the call (one missing, extra, or of the other kind).
    fn place_with(
        &self,
        ctx: &Context,
        ir: &Ir,
        body: BodyId,
        op: OpId,
        prepared: Option<&[CallArg]>,
    ) -> Result<Placement, String>;
}

/// An intrinsic of a device: a function of the target's library (its name is the C
/// symbol) computing the ops its rule accepts.
#[derive(Clone)]
pub struct Intrinsic {
    /// Its name and C symbol (`conv_tile_s8`).
    pub name: String,
    /// The device that runs it.
    pub device: String,
    /// The memory its buffers must be in (`memory NAME` in its declaration), when it
    /// cannot read the host's: `bufferize` stages them there by DMA.
    pub memory: Option<String>,
    /// A `code` rule rather than a library function: the device computes the op
    /// with loops of its own (in its C file), so there is no call, and `partition`
    /// records only the device (`hw.device`).
    pub compiled: bool,
    /// When and how it applies.
    pub rule: Arc<dyn IntrinsicRule>,
}

impl std::fmt::Debug for Intrinsic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "intrinsic {} on {} ({})",
            self.name,
            self.device,
            self.rule.root()
        )
    }
}

/// The pipeline a target file names (`pipeline "accel-pipeline{bits=4}"`): what
/// `acc-opt --pipeline target` runs. The tools check it against their registry when
/// they load the file, and report a mistake at `span`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetPipeline {
    /// The pass list, in `--pass` syntax (usually one named pipeline with options).
    pub text: String,
    /// The file it is written in.
    pub file: acc_ir::diag::FileId,
    /// Where, in that file.
    pub span: std::ops::Range<usize>,
}

/// A target description.
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// Its name.
    pub name: String,
    /// Its one-line description.
    pub summary: String,
    /// The pipeline it asks for, if it names one.
    pub pipeline: Option<TargetPipeline>,
    /// Its devices, in declaration order.
    pub devices: Vec<Device>,
    /// Its memories, in declaration order.
    pub memories: Vec<Memory>,
    /// Its host's library kernels, at most one per interface.
    pub kernels: Vec<Kernel>,
    /// The intrinsics of its devices, in declaration order.
    pub intrinsics: Vec<Intrinsic>,
    /// Its DMA engines.
    pub dmas: Vec<Dma>,
    /// The C headers that declare its library's functions (`header "npu.h"`): the
    /// emitted C includes them instead of declaring the functions itself.
    pub headers: Vec<String>,
    /// The device-side signals (`signal dla -> dsp`): pairs (from, to) of devices
    /// started by `submit`, where work on `to` can start when work on `from` is done
    /// without the host (a DLA raising the DSP's semaphore). Between two such
    /// devices without a signal the host waits for the first and then starts the
    /// second (`schedule-devices`).
    pub signals: Vec<(String, String)>,
}

impl Target {
    /// The memory the host's buffers live in: the first one its host device (kind
    /// `host`) reaches, if the target declares memories.
    pub fn host_memory(&self) -> Option<&Memory> {
        let host = self.devices.iter().find(|d| d.kind == "host")?;
        self.memories
            .iter()
            .find(|m| m.devices.is_empty() || m.devices.contains(&host.name))
    }

    /// The memory named `name`.
    pub fn memory(&self, name: &str) -> Option<&Memory> {
        self.memories.iter().find(|m| m.name == name)
    }

    /// The DMA engine copying between memories `a` and `b`, either way.
    pub fn dma_between(&self, a: &str, b: &str) -> Option<&Dma> {
        self.dmas
            .iter()
            .find(|d| d.memories.iter().any(|m| m == a) && d.memories.iter().any(|m| m == b))
    }

    /// Whether work on device `to` can start when work on `from` is done without the
    /// host (`signal FROM -> TO`).
    pub fn signals(&self, from: &str, to: &str) -> bool {
        self.signals.iter().any(|(f, t)| f == from && t == to)
    }

    /// The DMA engine whose start function is `start`.
    pub fn dma_named(&self, start: &str) -> Option<&Dma> {
        self.dmas.iter().find(|d| d.start == start)
    }

    /// The device named `name`.
    pub fn device(&self, name: &str) -> Option<&Device> {
        self.devices.iter().find(|d| d.name == name)
    }

    /// The host device: the first of kind `host`.
    pub fn host(&self) -> Option<&Device> {
        self.devices.iter().find(|d| d.kind == "host")
    }

    /// The symbol of the kernel implementing `interface`, if the target has one.
    pub fn kernel(&self, interface: &str) -> Option<&str> {
        self.kernels
            .iter()
            .find(|k| k.interface == interface)
            .map(|k| k.symbol.as_str())
    }
}

/// The calling conventions of host kernels that acc's lowering can call, with what
/// each computes (docs/codegen.md gives the arguments).
pub const HOST_INTERFACES: [(&str, &str); 14] = [
    ("gemm", "f32 C += A x B, row-major"),
    (
        "packed-gemm",
        "gemm with a constant B packed into 48-column panels",
    ),
    (
        "strided-gemm",
        "gemm on operands of any strides, accumulating or not",
    ),
    (
        "conv",
        "f32 convolution, batch 1, NCHW, ungrouped, with a clamp",
    ),
    (
        "depthwise",
        "f32 depthwise convolution, batch 1, NCHW, with a clamp",
    ),
    ("blocked", "conv in NCHW16c / OIHW16i16o"),
    (
        "blocked-grouped",
        "grouped conv in NCHW16c / OIHW16i16o, whole blocks per group",
    ),
    ("blocked-depthwise", "depthwise in NCHW16c / OIHW16o"),
    ("blocked-pool", "f32 max or average pool in NCHW16c"),
    (
        "blocked-nchw-input",
        "conv from a plain NCHW input into NCHW16c",
    ),
    ("exp", "f32 e^x over an array"),
    ("exp-neg", "f32 e^-x over an array"),
    ("erf", "f32 erf(x) over an array"),
    ("tanh", "f32 tanh(x) over an array"),
];

/// The targets of one compilation, in the order they were given (`--target FILE`,
/// repeatable). Passes get them from the pass manager; a pass that consults one
/// target picks it with its `target` option ([`Targets::select`]), and what a placed
/// op names (its device, its intrinsic, a memory, a DMA engine) is looked up across
/// all of them, the first declaration winning.
///
/// Invariant: no two targets have the same name.
#[derive(Clone, Debug, Default)]
pub struct Targets {
    targets: Vec<Arc<Target>>,
}

impl Targets {
    /// No target: the host lowering without library kernels, no accelerator.
    pub fn new() -> Targets {
        Targets::default()
    }

    /// Adds `target` after the others; an error when one of its name is there.
    pub fn add(&mut self, target: Arc<Target>) -> Result<(), String> {
        if self.get(&target.name).is_some() {
            return Err(format!("target '{}' is given twice", target.name));
        }
        self.targets.push(target);
        Ok(())
    }

    /// The targets, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Target>> {
        self.targets.iter()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// The target named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<Target>> {
        self.targets.iter().find(|t| t.name == name)
    }

    /// The target a pass's `target` option names: the one of that name, or the
    /// first one for an empty name. `None` when there is no such target; the caller
    /// says what it needed it for ([`Targets::missing`]).
    pub fn select(&self, name: &str) -> Option<&Arc<Target>> {
        if name.is_empty() {
            self.targets.first()
        } else {
            self.get(name)
        }
    }

    /// Why [`Targets::select`] found nothing for `name`, for a pass's error:
    /// `what` says what the pass needs the target for.
    pub fn missing(&self, name: &str, what: &str) -> String {
        if name.is_empty() {
            format!("{what}: no target (give one with --target FILE)")
        } else {
            let known: Vec<&str> = self.targets.iter().map(|t| t.name.as_str()).collect();
            format!(
                "{what}: no target named '{name}' (the compilation has {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )
        }
    }

    /// The intrinsic `name` of `device` and the target declaring it (the first that
    /// does): its memories and DMA engines are the ones the call's buffers go
    /// through.
    pub fn intrinsic(&self, device: &str, name: &str) -> Option<(&Target, &Intrinsic)> {
        self.targets.iter().find_map(|t| {
            let i = t
                .intrinsics
                .iter()
                .find(|i| i.device == device && i.name == name)?;
            Some((&**t, i))
        })
    }

    /// The intrinsic `name` (its C symbol), of whatever device, from the first target
    /// declaring it.
    pub fn intrinsic_named(&self, name: &str) -> Option<&Intrinsic> {
        self.targets
            .iter()
            .flat_map(|t| &t.intrinsics)
            .find(|i| i.name == name)
    }

    /// The memory `name`, from the first target declaring it.
    pub fn memory(&self, name: &str) -> Option<&Memory> {
        self.targets.iter().find_map(|t| t.memory(name))
    }

    /// The DMA engine whose start function is `start`, from the first target
    /// declaring it.
    pub fn dma_named(&self, start: &str) -> Option<&Dma> {
        self.targets.iter().find_map(|t| t.dma_named(start))
    }
}

#[cfg(test)]
mod tests {
    use super::BufferLayout;

    #[test]
    fn a_blocked_layout_pads_the_last_block_and_puts_it_innermost() {
        // NCHW16c of 1 x 20 x 4 x 5: two blocks of channels, the lanes innermost.
        let nchw16c = BufferLayout {
            perm: vec![0, 1, 2, 3],
            block: Some((1, 16)),
        };
        assert_eq!(nchw16c.stored_shape(&[1, 20, 4, 5]), [1, 2, 4, 5, 16]);
        assert_eq!(nchw16c.stored_shape(&[1, 32, 4, 5]), [1, 2, 4, 5, 16]);
        // NHWC16c: the blocks' count takes C's place after W.
        let nhwc16c = BufferLayout {
            perm: vec![0, 2, 3, 1],
            block: Some((1, 16)),
        };
        assert_eq!(nhwc16c.stored_shape(&[1, 20, 4, 5]), [1, 4, 5, 2, 16]);
        assert_eq!(nhwc16c.inverse(), [0, 3, 1, 2]);
        let nhwc = BufferLayout::permutation(vec![0, 2, 3, 1]);
        assert_eq!(nhwc.stored_shape(&[1, 20, 4, 5]), [1, 4, 5, 20]);
        assert_eq!(nhwc.to_string(), "[0, 2, 3, 1]");
        assert_eq!(
            nhwc16c.to_string(),
            "[0, 2, 3, 1] with dimension 1 in blocks of 16"
        );
    }
}
