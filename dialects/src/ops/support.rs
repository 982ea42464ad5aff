//! What the generated views and builders call: the operand and result groups of an
//! op (with the verifier's rules), the readers of attribute kinds, and [`Draft`], an
//! op being built.

use std::ops::Range;

use acc_ir::TypeData;
use acc_ir::attrs::AttrData;
pub use acc_ir::builder::{Builder, NewOp};
use acc_ir::elements::{self, Scalar};
pub use acc_ir::{AttrId, BlockId, BodyId, Context, OpId, OpRef, RegionId, TypeId, ValueId};

pub use crate::lang::Quantifier;

/// A typed view of one kind of op.
pub trait OpView<'a>: Copy + Sized {
    /// The op's name, `dialect.op`.
    const NAME: &'static str;
    /// The view of `op` when it is such an op with its declared groups.
    fn of(ctx: &'a Context, op: OpRef<'a>) -> Option<Self>;
    /// The op viewed.
    fn op(self) -> OpRef<'a>;
}

/// A generated op's declaration, as the generator read it (checked against the
/// loaded definitions by a test).
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    /// `dialect.op`.
    pub name: &'static str,
    /// Operand groups.
    pub operands: &'static [(&'static str, Quantifier)],
    /// Result groups.
    pub results: &'static [(&'static str, Quantifier)],
    /// Attribute names.
    pub attributes: &'static [&'static str],
    /// How many regions.
    pub regions: usize,
    /// How many successors.
    pub successors: usize,
}

/// The `(start, end)` of each operand (or result) group of `op` declared with
/// `quantifiers`, by the verifier's rules; `None` when they do not fit.
pub fn groups(
    ctx: &Context,
    op: OpRef<'_>,
    quantifiers: &[Quantifier],
    results: bool,
) -> Option<Vec<(u32, u32)>> {
    let ranges: Vec<Range<usize>> =
        crate::lang::quantified_ranges(ctx, op, quantifiers, results).ok()?;
    ranges
        .into_iter()
        .map(|r| Some((u32::try_from(r.start).ok()?, u32::try_from(r.end).ok()?)))
        .collect()
}

/// Operand `i` of `op`.
pub fn nth_operand(op: OpRef<'_>, i: u32) -> ValueId {
    op.body_data().operand(op.op, i as usize)
}

/// Result `i` of `op`.
pub fn nth_result(op: OpRef<'_>, i: u32) -> ValueId {
    op.body_data()
        .results(op.op)
        .nth(i as usize)
        .expect("a view checked the result count")
}

/// Successor `i` of `op`.
pub fn nth_successor(op: OpRef<'_>, i: usize) -> BlockId {
    op.successors()
        .nth(i)
        .expect("a view checked the successor count")
}

/// An integer attribute (of any width) as `i64`.
pub fn int_value(ctx: &Context, a: AttrId) -> Option<i64> {
    match elements::scalar(ctx, a)? {
        (_, Scalar::Int(v)) => i64::try_from(v).ok(),
        _ => None,
    }
}

/// A `bool` (`i1`) attribute.
pub fn bool_value(ctx: &Context, a: AttrId) -> Option<bool> {
    match ctx.attr_data(a) {
        AttrData::Integer { value, .. } => Some(*value != 0),
        _ => None,
    }
}

/// A float attribute as `f64`.
pub fn float_value(ctx: &Context, a: AttrId) -> Option<f64> {
    match elements::scalar(ctx, a)? {
        (_, Scalar::Float(v)) => Some(v),
        _ => None,
    }
}

/// A string attribute's text.
pub fn str_value(ctx: &Context, a: AttrId) -> Option<&str> {
    match ctx.attr_data(a) {
        AttrData::String { value, .. } => Some(ctx.str(*value)),
        _ => None,
    }
}

/// A symbol reference's root name (`@f` is `f`).
pub fn symbol_value(ctx: &Context, a: AttrId) -> Option<&str> {
    match ctx.attr_data(a) {
        AttrData::SymbolRef { root, .. } => Some(ctx.str(*root)),
        _ => None,
    }
}

/// A type attribute's type.
pub fn type_value(ctx: &Context, a: AttrId) -> Option<TypeId> {
    match ctx.attr_data(a) {
        AttrData::Type(t) => Some(*t),
        _ => None,
    }
}

/// An `array<iN: ...>` attribute's values.
pub fn int_array(ctx: &Context, a: AttrId) -> Option<Vec<i64>> {
    let AttrData::DenseArray { element, data } = ctx.attr_data(a) else {
        return None;
    };
    let TypeData::Integer { width, .. } = ctx.type_data(*element) else {
        return None;
    };
    let bytes = (*width as usize).div_ceil(8).max(1);
    if bytes > 8 {
        // Wider than i64: not readable as such.
        return None;
    }
    Some(
        data.chunks_exact(bytes)
            .map(|c| {
                let mut raw = [0u8; 8];
                raw[..bytes].copy_from_slice(c);
                // Sign-extend from the element width.
                let v = i64::from_le_bytes(raw);
                let shift = 64 - (bytes as u32 * 8).min(64);
                if *width == 1 {
                    v & 1
                } else {
                    (v << shift) >> shift
                }
            })
            .collect(),
    )
}

/// An `array<fN: ...>` attribute's values.
pub fn float_array(ctx: &Context, a: AttrId) -> Option<Vec<f64>> {
    let AttrData::DenseArray { element, data } = ctx.attr_data(a) else {
        return None;
    };
    match ctx.type_data(*element) {
        TypeData::Float(k) if k.width() == 32 => Some(
            data.chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                .collect(),
        ),
        TypeData::Float(k) if k.width() == 64 => Some(
            data.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                .collect(),
        ),
        _ => None,
    }
}

/// The case of an enum attribute of the enum `full_name` (`graph.pad_mode`).
pub fn enum_case<'c>(ctx: &'c Context, full_name: &str, a: AttrId) -> Option<&'c str> {
    let def = ctx.enum_attr(full_name)?;
    match def.decode(ctx, full_name, a)?.as_slice() {
        [i] => def.cases.get(*i).map(String::as_str),
        _ => None,
    }
}

/// The cases set in a flags attribute of `full_name` (`arith.fastmath`).
pub fn flag_cases<'c>(ctx: &'c Context, full_name: &str, a: AttrId) -> Option<Vec<&'c str>> {
    let def = ctx.enum_attr(full_name)?;
    let cases = def.decode(ctx, full_name, a)?;
    cases
        .into_iter()
        .map(|i| def.cases.get(i).map(String::as_str))
        .collect()
}

/// An op being built by a generated builder: its groups, properties, regions and
/// successors, made through [`Builder::build`].
pub struct Draft {
    name: &'static str,
    operands: Vec<ValueId>,
    operand_segments: Option<Vec<i32>>,
    results: Vec<TypeId>,
    result_segments: Option<Vec<i32>>,
    props: Vec<(&'static str, AttrId)>,
    regions: Vec<Option<RegionId>>,
    successors: Vec<Option<BlockId>>,
}

impl Draft {
    /// An op named `name`; `*_segments` when the op records its group sizes (several
    /// optional or variadic groups); `regions` and `successors` it must be given.
    pub fn new(
        name: &'static str,
        operand_segments: bool,
        result_segments: bool,
        regions: usize,
        successors: usize,
    ) -> Draft {
        Draft {
            name,
            operands: Vec::new(),
            operand_segments: operand_segments.then(Vec::new),
            results: Vec::new(),
            result_segments: result_segments.then(Vec::new),
            props: Vec::new(),
            regions: vec![None; regions],
            successors: vec![None; successors],
        }
    }

    /// Appends an operand group.
    pub fn operand_group(&mut self, values: &[ValueId]) {
        self.operands.extend_from_slice(values);
        if let Some(s) = &mut self.operand_segments {
            s.push(values.len() as i32);
        }
    }

    /// Appends a result group.
    pub fn result_group(&mut self, types: &[TypeId]) {
        self.results.extend_from_slice(types);
        if let Some(s) = &mut self.result_segments {
            s.push(types.len() as i32);
        }
    }

    /// Sets a property (replacing one of that name).
    pub fn prop(&mut self, name: &'static str, value: AttrId) {
        self.props.retain(|(n, _)| *n != name);
        self.props.push((name, value));
    }

    /// Gives region `i`.
    pub fn region(&mut self, i: usize, region: RegionId) {
        self.regions[i] = Some(region);
    }

    /// Sets successor `i`.
    pub fn successor(&mut self, i: usize, block: BlockId) {
        self.successors[i] = Some(block);
    }

    /// The properties, segment sizes included.
    fn all_props(&self, ctx: &Context) -> Vec<(&'static str, AttrId)> {
        let mut props = self.props.clone();
        let segments = |sizes: &[i32]| {
            let data: Vec<u8> = sizes.iter().flat_map(|x| x.to_le_bytes()).collect();
            ctx.intern_attr(AttrData::DenseArray {
                element: ctx.int_type(32),
                data: data.into(),
            })
        };
        if let Some(s) = &self.operand_segments {
            props.push((crate::lang::segment_property(false), segments(s)));
        }
        if let Some(s) = &self.result_segments {
            props.push((crate::lang::segment_property(true), segments(s)));
        }
        props
    }

    /// Makes the op at `b`'s insertion point.
    pub fn create(self, b: &mut Builder<'_>) -> Result<OpId, String> {
        let regions: Option<Vec<RegionId>> = self.regions.iter().copied().collect();
        let regions = regions.ok_or_else(|| format!("'{}' needs its regions", self.name))?;
        let successors: Option<Vec<BlockId>> = self.successors.iter().copied().collect();
        let successors =
            successors.ok_or_else(|| format!("'{}' needs its successors", self.name))?;
        let props = self.all_props(b.ctx);
        b.build(NewOp {
            name: self.name,
            operands: &self.operands,
            results: &self.results,
            props: &props,
            regions: &regions,
            successors: &successors,
        })
    }

    /// Makes the isolated op at `b`'s insertion point, its regions in a new body.
    pub fn create_isolated(
        self,
        b: &mut Builder<'_>,
        entry_args: &[TypeId],
    ) -> Result<(OpId, BodyId), String> {
        let props = self.all_props(b.ctx);
        b.build_isolated(
            NewOp {
                props: &props,
                operands: &self.operands,
                results: &self.results,
                ..NewOp::named(self.name)
            },
            self.regions.len(),
            entry_args,
        )
    }
}
