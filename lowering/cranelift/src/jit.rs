//! Compiling a module in memory for the host and calling its functions on
//! interpreter values ([`Tensor`]s), through their packed wrappers.

use std::time::{Duration, Instant};

use acc_interp::Tensor;
use acc_ir::elements::{ElementKind, Scalar};
use acc_ir::{Context, Ir, OpId};
use cranelift_jit::{JITBuilder, JITModule};
use rustc_hash::FxHashMap;

use crate::CodegenError;
use crate::abi::Slot;
use crate::module::{Compiled, compile};
use crate::target;
use crate::types::Repr;

/// Memory for buffers made inside generated code (`loop.alloc`): the C library's
/// aligned allocator.
extern "C" fn acc_alloc(bytes: i64, alignment: i64) -> *mut u8 {
    let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
    let align = usize::try_from(alignment.max(8))
        .unwrap_or(64)
        .next_power_of_two();
    let size = usize::try_from(bytes.max(1)).unwrap_or(1);
    // SAFETY: posix_memalign writes a valid pointer or leaves `p` null on failure.
    let rc = unsafe { posix_memalign(&mut p, align, size) };
    if rc != 0 {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

extern "C" fn acc_free(p: *mut u8) {
    // SAFETY: `p` came from acc_alloc (posix_memalign) or is null.
    unsafe { free(p.cast()) }
}

/// The C library's functions generated code calls for `math` ops and `arith.remf`,
/// from Rust's (the JIT resolves them here rather than through the dynamic linker):
/// for each, the float and the double version, and their symbols in [`LIBRARY`].
macro_rules! library {
    ($(($f32_name:ident, $f64_name:ident, |$($x:ident),+| $body:expr)),* $(,)?) => {
        $(
            extern "C" fn $f32_name($($x: f32),+) -> f32 {
                $body
            }
            extern "C" fn $f64_name($($x: f64),+) -> f64 {
                $body
            }
        )*
        /// The C library's symbols and their Rust implementations.
        const LIBRARY: &[(&str, *const u8)] = &[
            $(
                (stringify!($f32_name), $f32_name as *const u8),
                (stringify!($f64_name), $f64_name as *const u8),
            )*
        ];
    };
}

library! {
    (expf, exp, |x| x.exp()),
    (logf, log, |x| x.ln()),
    (tanhf, tanh, |x| x.tanh()),
    (erff, erf, |x| Erf::erf(x)),
    (sinf, sin, |x| x.sin()),
    (cosf, cos, |x| x.cos()),
    (tanf, tan, |x| x.tan()),
    (asinf, asin, |x| x.asin()),
    (acosf, acos, |x| x.acos()),
    (atanf, atan, |x| x.atan()),
    (sinhf, sinh, |x| x.sinh()),
    (coshf, cosh, |x| x.cosh()),
    (asinhf, asinh, |x| x.asinh()),
    (acoshf, acosh, |x| x.acosh()),
    (atanhf, atanh, |x| x.atanh()),
    (powf, pow, |x, y| x.powf(y)),
    (fmodf, fmod, |x, y| x % y),
}

/// The error function of `libm` on either float width.
trait Erf {
    fn erf(self) -> Self;
}
impl Erf for f32 {
    fn erf(self) -> f32 {
        libm::erff(self)
    }
}
impl Erf for f64 {
    fn erf(self) -> f64 {
        libm::erf(self)
    }
}

/// The runtime symbols generated code may import.
fn runtime_symbols() -> [(&'static str, *const u8); 25] {
    [
        ("acc_alloc", acc_alloc as *const u8),
        ("acc_free", acc_free as *const u8),
        ("acc_sgemm", acc_runtime::sgemm::acc_sgemm as *const u8),
        (
            "acc_sgemm_nk48n",
            acc_runtime::sgemm::acc_sgemm_nk48n as *const u8,
        ),
        (
            "acc_sgemm_nk48n_bias",
            acc_runtime::sgemm::acc_sgemm_nk48n_bias as *const u8,
        ),
        (
            "acc_sgemm_nk48n_bias_act",
            acc_runtime::sgemm::acc_sgemm_nk48n_bias_act as *const u8,
        ),
        (
            "acc_sgemm_strided",
            acc_runtime::sgemm::acc_sgemm_strided as *const u8,
        ),
        ("acc_vexp", acc_runtime::elementwise::acc_vexp as *const u8),
        (
            "acc_spool2d_nchw16c",
            acc_runtime::pool::acc_spool2d_nchw16c as *const u8,
        ),
        (
            "acc_vexpneg",
            acc_runtime::elementwise::acc_vexpneg as *const u8,
        ),
        (
            "acc_parallel_for",
            acc_runtime::threads::acc_parallel_for as *const u8,
        ),
        ("acc_verf", acc_runtime::elementwise::acc_verf as *const u8),
        (
            "acc_vtanh",
            acc_runtime::elementwise::acc_vtanh as *const u8,
        ),
        ("acc_sconv2d", acc_runtime::conv::acc_sconv2d as *const u8),
        (
            "acc_sdwconv2d",
            acc_runtime::depthwise::acc_sdwconv2d as *const u8,
        ),
        (
            "acc_sconv2d_bias",
            acc_runtime::conv::acc_sconv2d_bias as *const u8,
        ),
        (
            "acc_sdwconv2d_bias",
            acc_runtime::depthwise::acc_sdwconv2d_bias as *const u8,
        ),
        (
            "acc_sconv2d_nchw16c",
            acc_runtime::blocked::acc_sconv2d_nchw16c as *const u8,
        ),
        (
            "acc_sconv2d_nchw16c_bias",
            acc_runtime::blocked::acc_sconv2d_nchw16c_bias as *const u8,
        ),
        (
            "acc_sgconv2d_nchw16c",
            acc_runtime::blocked::acc_sgconv2d_nchw16c as *const u8,
        ),
        (
            "acc_sgconv2d_nchw16c_bias",
            acc_runtime::blocked::acc_sgconv2d_nchw16c_bias as *const u8,
        ),
        (
            "acc_sconv2d_nchw_nchw16c",
            acc_runtime::blocked::acc_sconv2d_nchw_nchw16c as *const u8,
        ),
        (
            "acc_sconv2d_nchw_nchw16c_bias",
            acc_runtime::blocked::acc_sconv2d_nchw_nchw16c_bias as *const u8,
        ),
        (
            "acc_sdwconv2d_nchw16c",
            acc_runtime::blocked_depthwise::acc_sdwconv2d_nchw16c as *const u8,
        ),
        (
            "acc_sdwconv2d_nchw16c_bias",
            acc_runtime::blocked_depthwise::acc_sdwconv2d_nchw16c_bias as *const u8,
        ),
    ]
}

unsafe extern "C" {
    fn posix_memalign(out: *mut *mut std::ffi::c_void, align: usize, size: usize) -> i32;
    fn free(p: *mut std::ffi::c_void);
}

/// A module compiled for this machine.
pub struct JitModule {
    module: Option<JITModule>,
    functions: Vec<(Compiled, *const u8)>,
    /// How long compilation took.
    pub compile_time: Duration,
}

impl Drop for JitModule {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: no pointer into the module outlives it: `functions` goes with it.
            unsafe { m.free_memory() };
        }
    }
}

impl JitModule {
    /// Compiles every function of `ir` for the host.
    pub fn compile(ctx: &Context, ir: &Ir) -> Result<JitModule, CodegenError> {
        let start = Instant::now();
        let target = target::host()?;
        let mut builder =
            JITBuilder::with_isa(target.isa, cranelift_module::default_libcall_names());
        for &(name, f) in LIBRARY.iter().chain(runtime_symbols().iter()) {
            builder.symbol(name, f);
        }
        let mut module = JITModule::new(builder);
        let compiled = compile(ctx, ir, &mut module, target.features)?;
        module
            .finalize_definitions()
            .map_err(|e| CodegenError::new(format!("cannot link the generated code: {e}")))?;
        let functions = compiled
            .into_iter()
            .map(|c| {
                let p = module.get_finalized_function(c.packed);
                (c, p)
            })
            .collect();
        Ok(JitModule {
            module: Some(module),
            functions,
            compile_time: start.elapsed(),
        })
    }

    /// How many loop nests of function `name` run on the runtime's threads (each
    /// became a function of its own; `translate/outline.rs`).
    pub fn threaded_nests(&self, name: &str) -> usize {
        self.functions
            .iter()
            .filter(|(c, _)| c.name == name)
            .map(|(c, _)| c.outlined.len())
            .sum()
    }

    /// Writes `/tmp/perf-PID.map`, the file `perf report` reads to name code it has no
    /// symbols for: one symbol per top-level op of each function
    /// (`main:#12 loop.parallel @model.mlir:40`), so that a profile of a run says which
    /// op (with the loop nests inside it) the time went to. Returns the path.
    pub fn write_perf_map(&self, ctx: &Context, ir: &Ir) -> std::io::Result<std::path::PathBuf> {
        use std::fmt::Write as _;
        let module = self.module.as_ref().expect("a live module");
        let mut text = String::new();
        for (c, _) in &self.functions {
            let base = module.get_finalized_function(c.id) as usize;
            let body = ir.body(c.body);
            // Op numbers in the order of the function, for readable names.
            let order: FxHashMap<OpId, usize> = body
                .top_regions()
                .iter()
                .flat_map(|r| body.region_blocks(*r))
                .flat_map(|b| body.block_ops(b))
                .enumerate()
                .map(|(i, op)| (op, i))
                .collect();
            let outlined = c.outlined.iter().flat_map(|o| {
                let base = module.get_finalized_function(o.id) as usize;
                o.code_ranges.iter().map(move |r| (base, r))
            });
            let ranges = c.code_ranges.iter().map(|r| (base, r)).chain(outlined);
            for (base, (start, end, op)) in ranges {
                let i = order.get(op).copied().unwrap_or(0);
                let data = body.op(*op);
                let place = acc_ir::diag::file_line_col(ctx, data.loc)
                    .map(|l| format!(" @{}:{}", l.file, l.line))
                    .unwrap_or_default();
                let _ = writeln!(
                    text,
                    "{:x} {:x} {}:#{i} {}{place}",
                    base + *start as usize,
                    end - start,
                    c.name,
                    ctx.op_name_str(data.name),
                );
            }
        }
        let path = std::env::temp_dir().join(format!("perf-{}.map", std::process::id()));
        std::fs::write(&path, text)?;
        Ok(path)
    }

    /// Calls `name` on `args`; its results.
    pub fn call(
        &self,
        ctx: &Context,
        name: &str,
        args: &[Tensor],
    ) -> Result<Vec<Tensor>, CodegenError> {
        let mut frame = self.frame(ctx, name, args)?;
        frame.run();
        frame.results(ctx)
    }

    /// Prepares a call of `name` on `args` that can be run many times (benchmarks).
    pub fn frame(&self, ctx: &Context, name: &str, args: &[Tensor]) -> Result<Frame, CodegenError> {
        let (c, packed) = self
            .functions
            .iter()
            .find(|(c, _)| c.name == name)
            .ok_or_else(|| CodegenError::new(format!("no function named '@{name}'")))?;
        if args.len() != c.abi.args.len() {
            return Err(CodegenError::new(format!(
                "'@{name}' takes {} arguments, got {}",
                c.abi.args.len(),
                args.len()
            )));
        }
        let mut buffers = Vec::new();
        for (i, (slot, t)) in c.abi.args.iter().zip(args).enumerate() {
            if t.ty != slot.ty {
                return Err(CodegenError::new(format!(
                    "argument {i} of '@{name}' must be {}, got {}",
                    acc_ir::printer::type_to_string(ctx, slot.ty),
                    acc_ir::printer::type_to_string(ctx, t.ty)
                )));
            }
            buffers.push(encode(t)?);
        }
        for slot in &c.abi.results {
            buffers.push(Aligned::zeroed(bytes_of(slot)));
        }
        Ok(Frame {
            packed: *packed,
            buffers,
            results: c.abi.results.clone(),
            first_result: c.abi.args.len(),
            on_pool: true,
        })
    }
}

/// Bytes a slot's value takes.
fn bytes_of(slot: &Slot) -> usize {
    match &slot.repr {
        Repr::Scalar(t) => t.bytes() as usize,
        Repr::Memref(m) => m.len() * m.element_bytes() as usize,
    }
}

/// A byte buffer aligned for any element (vectors included).
struct Aligned {
    words: Vec<u128>,
    len: usize,
}

impl Aligned {
    fn zeroed(len: usize) -> Aligned {
        Aligned {
            words: vec![0; len.div_ceil(16).max(1)],
            len,
        }
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: the words hold at least `len` initialized bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast(), self.len) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, uniquely borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast(), self.len) }
    }

    fn ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr().cast()
    }
}

/// The elements of `t` in an aligned buffer.
fn encode(t: &Tensor) -> Result<Aligned, CodegenError> {
    let bytes = crate::types::encode(t).map_err(CodegenError::new)?;
    let mut a = Aligned::zeroed(bytes.len());
    a.bytes_mut().copy_from_slice(&bytes);
    Ok(a)
}

/// A run shorter than this on one thread is not worth the runtime's threads
/// ([`Frame::time`]).
const SHORT_RUN: Duration = Duration::from_micros(100);

/// A prepared call: argument and result buffers, ready to run.
pub struct Frame {
    packed: *const u8,
    buffers: Vec<Aligned>,
    results: Vec<Slot>,
    first_result: usize,
    /// Runs go through `acc_runtime::threads::call_on_pool`, else `call_alone` (as
    /// [`Frame::time`] chooses).
    on_pool: bool,
}

impl Frame {
    /// Runs the function once (results overwrite the previous run's).
    pub fn run(&mut self) {
        let mut slots: Vec<*mut u8> = self.buffers.iter_mut().map(Aligned::ptr).collect();
        // SAFETY: `packed` is a finalized `void (void **)` function of the module,
        // which outlives the frame's use through JitModule, and every slot points to
        // a buffer of the size its argument or result needs.
        let f: unsafe extern "C" fn(*mut *mut u8) = unsafe { std::mem::transmute(self.packed) };
        if self.on_pool {
            // SAFETY: as above; generated code keeps no thread-local state.
            unsafe { acc_runtime::threads::call_on_pool(f, slots.as_mut_ptr()) };
        } else {
            // SAFETY: as above.
            unsafe { acc_runtime::threads::call_alone(f, slots.as_mut_ptr()) };
        }
    }

    /// Runs the function `repeat` times after warm-up runs: the time of each run.
    /// The warm-up runs also choose how the runs go: a run shorter than
    /// [`SHORT_RUN`] on the calling thread alone (`call_alone`) stays there (it would
    /// lose more waking the runtime's threads than it gains); a longer one goes to
    /// the threads (`call_on_pool`), which get a few runs to settle first.
    pub fn time(&mut self, repeat: usize) -> Vec<Duration> {
        self.run();
        self.on_pool = false;
        let start = Instant::now();
        self.run();
        self.on_pool = start.elapsed() >= SHORT_RUN;
        if self.on_pool {
            for _ in 0..3 {
                self.run();
            }
        }
        (0..repeat)
            .map(|_| {
                let start = Instant::now();
                self.run();
                start.elapsed()
            })
            .collect()
    }

    /// The results of the last run.
    pub fn results(&self, ctx: &Context) -> Result<Vec<Tensor>, CodegenError> {
        self.results
            .iter()
            .zip(&self.buffers[self.first_result..])
            .map(|(slot, buf)| {
                let (_, kind) = Tensor::layout(ctx, slot.ty).map_err(CodegenError::new)?;
                let width = match &slot.repr {
                    Repr::Scalar(t) => t.bytes() as usize,
                    Repr::Memref(m) => m.element_bytes() as usize,
                };
                let data = buf
                    .bytes()
                    .chunks_exact(width)
                    .map(|c| match kind {
                        ElementKind::Int(1, _) => Scalar::Int(i128::from(c[0] & 1)),
                        k => k.decode(c),
                    })
                    .collect();
                let mut t = Tensor::new(ctx, slot.ty, data).map_err(CodegenError::new)?;
                // A memref result is returned as its elements.
                if t.view.is_some() {
                    t = t.materialized().map_err(CodegenError::new)?;
                }
                Ok(t)
            })
            .collect()
    }
}
