//! The machines code is generated for: the host (for the JIT, with the features the
//! running CPU has) or a named architecture (for object files, with a baseline feature
//! set). What an ISA lacks is checked before code that needs it is emitted: vector
//! code needs 128-bit SIMD (x86-64 and AArch64 always have it; RISC-V needs the V
//! extension, `has_v`), and without fused multiply-add `loop.fma` on vectors becomes
//! a multiply and an add.

use cranelift_codegen::isa::{self, OwnedTargetIsa};
use cranelift_codegen::settings::{self, Configurable};

/// The architectures `acc-translate --emit-object --target` accepts.
pub const ARCHITECTURES: [&str; 3] = ["x86_64", "aarch64", "riscv64"];

/// What the generated code may use.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    /// 128-bit vector registers and instructions.
    pub vectors: bool,
    /// A fused multiply-add instruction.
    pub fma: bool,
    /// Large `loop.parallel` nests are split among the runtime's threads: their body
    /// becomes a function `acc_parallel_for` calls on parts of the outer range. Set
    /// for the JIT, whose runtime is in the process; objects keep every nest on the
    /// calling thread (they need only `acc_alloc` and `acc_free`).
    pub threaded_loops: bool,
}

/// An ISA and its features.
pub struct Target {
    /// The Cranelift ISA.
    pub isa: OwnedTargetIsa,
    /// What code for it may use.
    pub features: Features,
}

fn flags(pic: bool) -> Result<settings::Flags, String> {
    let mut b = settings::builder();
    let set = |b: &mut settings::Builder, k: &str, v: &str| {
        b.set(k, v).map_err(|e| format!("setting {k}: {e}"))
    };
    set(&mut b, "opt_level", "speed")?;
    set(&mut b, "use_colocated_libcalls", "false")?;
    set(&mut b, "is_pic", if pic { "true" } else { "false" })?;
    Ok(settings::Flags::new(b))
}

fn flag(isa: &OwnedTargetIsa, name: &str) -> bool {
    isa.isa_flags()
        .iter()
        .any(|v| v.name == name && v.as_bool() == Some(true))
}

fn features(isa: &OwnedTargetIsa, arch: &str, threaded_loops: bool) -> Features {
    Features {
        threaded_loops,
        vectors: match arch {
            "riscv64" => flag(isa, "has_v"),
            _ => true,
        },
        fma: match arch {
            "x86_64" => flag(isa, "has_fma"),
            _ => true,
        },
    }
}

/// The machine this process runs on, with the features its CPU reports.
pub fn host() -> Result<Target, String> {
    let builder = cranelift_native::builder().map_err(|e| format!("unsupported host: {e}"))?;
    let isa = builder
        .finish(flags(false)?)
        .map_err(|e| format!("cannot configure the host ISA: {e}"))?;
    let arch = isa.triple().architecture.to_string();
    let features = features(&isa, &arch, true);
    Ok(Target { isa, features })
}

/// A named architecture (`x86_64`, `aarch64`, `riscv64`) for ELF objects, with its
/// baseline features.
pub fn named(arch: &str) -> Result<Target, String> {
    if !ARCHITECTURES.contains(&arch) {
        return Err(format!(
            "unknown target '{arch}' (expected one of {})",
            ARCHITECTURES.join(", ")
        ));
    }
    let triple = format!("{arch}-unknown-linux-gnu");
    let builder = isa::lookup_by_name(&triple).map_err(|e| format!("target '{arch}': {e}"))?;
    let isa = builder
        .finish(flags(true)?)
        .map_err(|e| format!("cannot configure target '{arch}': {e}"))?;
    let features = features(&isa, arch, false);
    Ok(Target { isa, features })
}

/// `isa` with Cranelift's single-pass register allocator instead of the backtracking
/// one: linear in the code where the backtracking allocator is quadratic in the
/// values live at once, which a function of thousands of arguments (and its packed
/// wrapper, which loads them all for one call) has. Its code spills more: it is used
/// only there ([`crate::module`]).
pub fn single_pass(isa: &dyn isa::TargetIsa) -> Result<OwnedTargetIsa, String> {
    let set = |b: &mut dyn Configurable, k: &str, v: &str| {
        b.set(k, v).map_err(|e| format!("setting {k}: {e}"))
    };
    let mut shared = settings::builder();
    for v in isa.flags().iter() {
        if v.name != "regalloc_algorithm" {
            set(&mut shared, v.name, &v.value_string())?;
        }
    }
    set(&mut shared, "regalloc_algorithm", "single_pass")?;
    let mut b = isa::lookup(isa.triple().clone()).map_err(|e| e.to_string())?;
    for v in isa.isa_flags() {
        set(&mut b, v.name, &v.value_string())?;
    }
    b.finish(settings::Flags::new(shared))
        .map_err(|e| format!("cannot configure the single-pass ISA: {e}"))
}
