//! Library parameters: the integers (and floats) a library function is given for a
//! quantized op, in place of those the op derives from its types.
//!
//! A requantizing op (`qconv2d`, `qmatmul`, `qadd`, `qmul`, `qavg_pool`,
//! `requantize`) computes its zero points, multipliers and shifts from the scales and
//! zero points of its types. A library is passed them as numbers (CMSIS-NN's
//! `input_offset`, `output_mult`, `output_shift`, a bias with the input offset folded
//! in). Its optional `params` attribute holds such numbers (`{input_offset = 3 : i64,
//! multipliers = array<i32: ...>}`); the op then computes with them where it would have
//! derived its own, which the interpreter applies. An accelerator call's semantics
//! region (`bufferize`) sets them from the arguments the target file computes for the
//! call (`call(..., input_offset: 0 - zero_point(%x), ...)`), so that
//! `--check-semantics` runs the op as the library will, and a wrong argument shows as
//! a wrong result.
//!
//! Invariant: an op holds only the parameters [`PARAMS`] lists for it, of their
//! kinds, each multiplier with its shift; a table has one entry per output channel
//! (checked where it is applied). The lowering to loops does not read them: an op
//! carrying them is refused there.

use acc_ir::attrs::AttrData;
use acc_ir::elements::{self, Scalar};
use acc_ir::requant::{FixedPointMultiplier, Scheme};
use acc_ir::{AttrId, Context, OpRef, TypeData};

use crate::ops::graph;

/// The name of the attribute.
pub const PARAMS_ATTR: &str = "params";

/// What a parameter holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An integer (an `i64` attribute; an `int32_t` argument).
    Int,
    /// A table of `int32_t`, one per output channel (`array<i32: ...>`).
    I32Table,
    /// A table of `float`, one per output channel (`array<f32: ...>`).
    F32Table,
}

/// A parameter: its name, kind, the scheme it belongs to (`None`: either) and what
/// it replaces.
pub struct ParamDef {
    /// Its name (`input_offset`).
    pub name: &'static str,
    /// What it holds.
    pub kind: ParamKind,
    /// The scheme it belongs to, `None` for both.
    pub scheme: Option<Scheme>,
    /// What it stands for, for diagnostics and docs.
    pub meaning: &'static str,
}

const fn def(
    name: &'static str,
    kind: ParamKind,
    scheme: Option<Scheme>,
    meaning: &'static str,
) -> ParamDef {
    ParamDef {
        name,
        kind,
        scheme,
        meaning,
    }
}

use ParamKind::{F32Table, I32Table, Int};
const FIXED: Option<Scheme> = Some(Scheme::FixedPoint);

/// A convolution's and a matrix product's parameters.
const ACCUMULATING: &[ParamDef] = &[
    def(
        "input_offset",
        Int,
        None,
        "added to each stored input (minus the input's zero point)",
    ),
    def(
        "bias",
        I32Table,
        None,
        "added to each output channel's accumulator (the bias operand)",
    ),
    def(
        "kernel_sum",
        I32Table,
        None,
        "added to each output channel's accumulator of the stored inputs, no input offset applied (bias - zero point * sum of the channel's weights)",
    ),
    def(
        "multipliers",
        I32Table,
        FIXED,
        "each output channel's Q31 multiplier",
    ),
    def("shifts", I32Table, FIXED, "each output channel's shift"),
    def(
        "scales",
        F32Table,
        Some(Scheme::Float),
        "each output channel's float multiplier",
    ),
    def(
        "output_offset",
        Int,
        None,
        "added to each scaled result (the result's zero point)",
    ),
];

/// The offsets of a two-input op's inputs.
const INPUT1_OFFSET: ParamDef = def(
    "input1_offset",
    Int,
    FIXED,
    "added to each stored left-hand input (minus its zero point)",
);
const INPUT2_OFFSET: ParamDef = def(
    "input2_offset",
    Int,
    FIXED,
    "added to each stored right-hand input (minus its zero point)",
);

/// An addition's parameters (CMSIS-NN's `arm_elementwise_add_s8`).
const ADDING: &[ParamDef] = &[
    INPUT1_OFFSET,
    def(
        "input1_multiplier",
        Int,
        FIXED,
        "the left-hand input's Q31 multiplier",
    ),
    def("input1_shift", Int, FIXED, "the left-hand input's shift"),
    INPUT2_OFFSET,
    def(
        "input2_multiplier",
        Int,
        FIXED,
        "the right-hand input's Q31 multiplier",
    ),
    def("input2_shift", Int, FIXED, "the right-hand input's shift"),
    def(
        "left_shift",
        Int,
        FIXED,
        "the headroom each offset input is shifted left by (0 to 31)",
    ),
    def("output_multiplier", Int, FIXED, "the sum's Q31 multiplier"),
    def("output_shift", Int, FIXED, "the sum's shift"),
    def(
        "output_offset",
        Int,
        FIXED,
        "added to each scaled sum (the result's zero point)",
    ),
];

/// A product's parameters.
const MULTIPLYING: &[ParamDef] = &[
    INPUT1_OFFSET,
    INPUT2_OFFSET,
    def("multiplier", Int, FIXED, "the product's Q31 multiplier"),
    def("shift", Int, FIXED, "the product's shift"),
    def(
        "output_offset",
        Int,
        FIXED,
        "added to each scaled product (the result's zero point)",
    ),
];

/// The parameters of a one-input rescaling: a mean (an average pool into another
/// quantization) or a requantization.
const SCALING: &[ParamDef] = &[
    def(
        "input_offset",
        Int,
        FIXED,
        "added to each stored input (minus its zero point)",
    ),
    def(
        "multiplier",
        Int,
        FIXED,
        "the Q31 multiplier (of the window's sum, for a mean)",
    ),
    def("shift", Int, FIXED, "the shift"),
    def(
        "output_offset",
        Int,
        FIXED,
        "added to each scaled result (the result's zero point)",
    ),
];

/// The ops taking parameters and theirs.
pub const PARAMS: &[(&str, &[ParamDef])] = &[
    (graph::Qconv2d::NAME, ACCUMULATING),
    (graph::Qmatmul::NAME, ACCUMULATING),
    (graph::Qadd::NAME, ADDING),
    (graph::Qmul::NAME, MULTIPLYING),
    (graph::QavgPool::NAME, SCALING),
    (graph::Requantize::NAME, SCALING),
];

/// The multipliers that need their shift, and the shift of each.
const PAIRS: &[(&str, &str)] = &[
    ("multipliers", "shifts"),
    ("multiplier", "shift"),
    ("input1_multiplier", "input1_shift"),
    ("input2_multiplier", "input2_shift"),
    ("output_multiplier", "output_shift"),
];

/// The parameters `op_name` takes (empty for an op taking none).
pub fn params_of(op_name: &str) -> &'static [ParamDef] {
    PARAMS
        .iter()
        .find(|(n, _)| *n == op_name)
        .map_or(&[], |(_, p)| p)
}

/// Checks that `names` (with their kinds) are parameters `op_name` takes under
/// `scheme` ([`check_name`] for each) and go together ([`check_set`]).
pub fn check_names(
    op_name: &str,
    scheme: Scheme,
    names: &[(&str, ParamKind)],
) -> Result<(), String> {
    for (k, (name, kind)) in names.iter().enumerate() {
        let before: Vec<&str> = names[..k].iter().map(|(n, _)| *n).collect();
        check_name(op_name, scheme, &before, name, *kind)?;
    }
    let names: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
    check_set(&names)
}

/// Checks that `name`, of `kind`, is a parameter `op_name` takes under `scheme`, and
/// not one of those given `before`.
pub fn check_name(
    op_name: &str,
    scheme: Scheme,
    before: &[&str],
    name: &str,
    kind: ParamKind,
) -> Result<(), String> {
    let known = params_of(op_name);
    let Some(d) = known.iter().find(|d| d.name == name) else {
        let list: Vec<&str> = known.iter().map(|d| d.name).collect();
        return Err(if list.is_empty() {
            format!("'{op_name}' takes no library parameters ('{name}')")
        } else {
            format!(
                "'{name}' is not a parameter of '{op_name}': it takes {}",
                list.join(", ")
            )
        });
    };
    if d.kind != kind {
        return Err(format!(
            "'{name}' must be {}: {}",
            match d.kind {
                Int => "an integer",
                I32Table => "an int32 table",
                F32Table => "a float table",
            },
            d.meaning
        ));
    }
    if let Some(s) = d.scheme
        && s != scheme
    {
        return Err(format!(
            "'{name}' is a parameter of the {} requantization scheme, not of {}",
            scheme_name(s),
            scheme_name(scheme)
        ));
    }
    if before.contains(&name) {
        return Err(format!("'{name}' is given twice"));
    }
    Ok(())
}

/// Checks that the parameters `names` go together: each multiplier with its shift,
/// and a kernel sum with neither a bias nor an input offset.
pub fn check_set(names: &[&str]) -> Result<(), String> {
    let has = |n: &str| names.contains(&n);
    for (m, s) in PAIRS {
        if has(m) != has(s) {
            return Err(format!("'{m}' and '{s}' are given together or not at all"));
        }
    }
    if has("kernel_sum") && (has("bias") || has("input_offset")) {
        return Err(
            "'kernel_sum' already holds the bias and the input offset: not with 'bias' or 'input_offset'"
                .into(),
        );
    }
    Ok(())
}

fn scheme_name(s: Scheme) -> &'static str {
    match s {
        Scheme::Float => "float",
        Scheme::FixedPoint => "fixed_point",
    }
}

/// A parameter's value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// An int32 table.
    I32s(Vec<i32>),
    /// A float table.
    F32s(Vec<f32>),
}

impl ParamValue {
    /// Its kind.
    pub fn kind(&self) -> ParamKind {
        match self {
            ParamValue::Int(_) => Int,
            ParamValue::I32s(_) => I32Table,
            ParamValue::F32s(_) => F32Table,
        }
    }

    /// As an attribute: `v : i64`, `array<i32: ...>`, `array<f32: ...>`.
    pub fn attr(&self, ctx: &Context) -> AttrId {
        match self {
            ParamValue::Int(v) => {
                elements::scalar_attr(ctx, ctx.int_type(64), Scalar::Int((*v).into()))
                    .expect("an i64")
            }
            ParamValue::I32s(t) => ctx.intern_attr(AttrData::DenseArray {
                element: ctx.int_type(32),
                data: t.iter().flat_map(|x| x.to_le_bytes()).collect(),
            }),
            ParamValue::F32s(t) => ctx.intern_attr(AttrData::DenseArray {
                element: ctx.float_type(acc_ir::FloatKind::F32),
                data: t.iter().flat_map(|x| x.to_le_bytes()).collect(),
            }),
        }
    }

    fn of_attr(ctx: &Context, a: AttrId) -> Option<ParamValue> {
        match ctx.attr_data(a) {
            AttrData::Integer { value, .. } => i64::try_from(*value).ok().map(ParamValue::Int),
            AttrData::DenseArray { element, data } => match ctx.type_data(*element) {
                TypeData::Integer { width: 32, .. } => Some(ParamValue::I32s(
                    data.chunks_exact(4)
                        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect(),
                )),
                TypeData::Float(k) if k.width() == 32 => Some(ParamValue::F32s(
                    data.chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect(),
                )),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The parameters an op holds, checked ([`check_names`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    entries: Vec<(String, ParamValue)>,
}

impl Params {
    /// The parameters of `op` (none without the attribute); an error when they are
    /// not parameters it takes, as [`check_names`] says.
    pub fn of(ctx: &Context, op: OpRef<'_>) -> Result<Params, String> {
        let Some(a) = op.attr(ctx, PARAMS_ATTR) else {
            return Ok(Params::default());
        };
        let AttrData::Dictionary(entries) = ctx.attr_data(a) else {
            return Err(format!("'{PARAMS_ATTR}' must be a dictionary"));
        };
        let entries = entries
            .iter()
            .map(|(k, v)| {
                let name = ctx.str(*k).to_string();
                ParamValue::of_attr(ctx, *v)
                    .map(|v| (name.clone(), v))
                    .ok_or_else(|| {
                        format!("parameter '{name}' must be an integer, array<i32: ...> or array<f32: ...>")
                    })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let names: Vec<(&str, ParamKind)> = entries
            .iter()
            .map(|(n, v)| (n.as_str(), v.kind()))
            .collect();
        let scheme = crate::hooks::requant_scheme(ctx, op);
        check_names(ctx.op_name_str(op.name()), scheme, &names)?;
        Ok(Params { entries })
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the parameter `name` is given.
    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    fn get(&self, name: &str) -> Option<&ParamValue> {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// An integer parameter.
    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name) {
            Some(ParamValue::Int(v)) => Some(*v),
            _ => None,
        }
    }

    /// An int32 table of `channels` entries; an error when it has another length.
    pub fn i32s(&self, name: &str, channels: usize) -> Result<Option<&[i32]>, String> {
        match self.get(name) {
            Some(ParamValue::I32s(t)) if t.len() == channels => Ok(Some(t)),
            Some(ParamValue::I32s(t)) => Err(format!(
                "'{name}' has {} entries for {channels} channels",
                t.len()
            )),
            _ => Ok(None),
        }
    }

    /// A float table of `channels` entries; an error when it has another length.
    pub fn f32s(&self, name: &str, channels: usize) -> Result<Option<&[f32]>, String> {
        match self.get(name) {
            Some(ParamValue::F32s(t)) if t.len() == channels => Ok(Some(t)),
            Some(ParamValue::F32s(t)) => Err(format!(
                "'{name}' has {} entries for {channels} channels",
                t.len()
            )),
            _ => Ok(None),
        }
    }

    /// The multiplier `multiplier` with its shift `shift` (both integers), when given:
    /// an error when they are not a Q31 multiplier and a shift in [-31, 30].
    pub fn multiplier(
        &self,
        multiplier: &str,
        shift: &str,
    ) -> Result<Option<FixedPointMultiplier>, String> {
        match (self.int(multiplier), self.int(shift)) {
            (Some(m), Some(s)) => FixedPointMultiplier::checked(m, s)
                .map(Some)
                .map_err(|e| format!("'{multiplier}' and '{shift}': {e}")),
            _ => Ok(None),
        }
    }

    /// The per-channel multipliers and shifts, when given, `channels` of each.
    pub fn multipliers(
        &self,
        channels: usize,
    ) -> Result<Option<Vec<FixedPointMultiplier>>, String> {
        let (Some(m), Some(s)) = (
            self.i32s("multipliers", channels)?,
            self.i32s("shifts", channels)?,
        ) else {
            return Ok(None);
        };
        m.iter()
            .zip(s)
            .enumerate()
            .map(|(c, (m, s))| {
                FixedPointMultiplier::checked(i64::from(*m), i64::from(*s))
                    .map_err(|e| format!("channel {c}: {e}"))
            })
            .collect::<Result<Vec<_>, String>>()
            .map(Some)
    }
}

/// The `params` attribute of `entries` (an error for a name given twice).
pub fn params_attr(ctx: &Context, entries: &[(String, ParamValue)]) -> Result<AttrId, String> {
    ctx.dict_attr(
        entries
            .iter()
            .map(|(n, v)| (ctx.sym(n), v.attr(ctx)))
            .collect(),
    )
    .map_err(|_| "a parameter is given twice".to_string())
}
