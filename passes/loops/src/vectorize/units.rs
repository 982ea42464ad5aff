//! Which vectors each body of a function is vectorized on: a launch on a device whose
//! `hw.device` declares `vector_bits` runs its loops on that device's vectors, lane
//! by lane (the C back end writes them so); a launch the host runs (on a device of
//! kind `host`, or one without a start function: its work is done where it is
//! issued) and the function's own body take the host's 128-bit vectors, unless the
//! pass's `host` option is false; a launch on any other device stays scalar (its
//! compiler declares no vector types).

use acc_dialects::ops::hw;
use acc_ir::{BodyId, Context, Ir, OpId};
use rustc_hash::FxHashMap;

/// The vector unit code is vectorized for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorUnit {
    /// Bits in one vector register (a power of two, at least 64).
    pub bits: u32,
    /// Whether code generation writes every elementwise op lane by lane (the C back
    /// end), so that any of them takes vectors: comparisons and selects of vector
    /// conditions, integer division, shifts, and conversions between element widths
    /// (the lanes are then those of the widest element). Otherwise only the ops
    /// Cranelift has vector instructions for, on elements of one width.
    pub lane_by_lane: bool,
}

impl VectorUnit {
    /// The host's: 128-bit vectors (SSE, NEON) for the Cranelift back end.
    pub const HOST: VectorUnit = VectorUnit {
        bits: 128,
        lane_by_lane: false,
    };
}

/// The vector unit of each body of one function.
pub(super) struct BodyUnits {
    /// Each launch's body: its unit, `None` to leave it scalar.
    launches: FxHashMap<BodyId, Option<VectorUnit>>,
    /// Any other body's.
    host: Option<VectorUnit>,
}

impl BodyUnits {
    /// The units of the bodies of function `func`, an op of `module` (the body also
    /// holding the `hw.device` declarations); `host`: whether the host's code is
    /// vectorized.
    pub(super) fn of(ctx: &Context, ir: &Ir, module: BodyId, func: OpId, host: bool) -> Self {
        let host = host.then_some(VectorUnit::HOST);
        let devices = declared_devices(ctx, ir, module);
        let mut launches = FxHashMap::default();
        ir.walk_nested(module, func, &mut |b, o| {
            let op = ir.op(b, o);
            let (Some(launch), Some(inner)) = (hw::Launch::of(ctx, op), ir.body(b).nested_body(o))
            else {
                return;
            };
            let started = op.attr(ctx, hw::Launch::ATTR_CALL).is_some();
            let unit = match launch.device().and_then(|d| devices.get(d)) {
                Some(Device {
                    vector_bits: Some(bits),
                    ..
                }) => Some(VectorUnit {
                    bits: *bits,
                    lane_by_lane: true,
                }),
                Some(Device { host: true, .. }) => host,
                _ if !started => host,
                _ => None,
            };
            launches.insert(inner, unit);
        });
        BodyUnits { launches, host }
    }

    /// The unit `body` is vectorized for; `None`: left scalar.
    pub(super) fn of_body(&self, body: BodyId) -> Option<VectorUnit> {
        self.launches.get(&body).copied().unwrap_or(self.host)
    }
}

/// What a `hw.device` declaration says of vectors.
struct Device {
    /// Its kind is `host`.
    host: bool,
    /// Its `vector_bits`.
    vector_bits: Option<u32>,
}

/// The devices `module` declares (`hw.device`), by name.
fn declared_devices(ctx: &Context, ir: &Ir, module: BodyId) -> FxHashMap<String, Device> {
    acc_dialects::hooks::hw::declared_devices(ctx, ir, module)
        .into_iter()
        .filter_map(|d| {
            let device = Device {
                host: d.kind() == Some("host"),
                vector_bits: d.vector_bits().and_then(|n| u32::try_from(n).ok()),
            };
            Some((d.sym_name()?.to_string(), device))
        })
        .collect()
}
