//! `layout`: data layouts for tensor ops from a preference table.
//!
//! 0. **Split.** A grouped convolution no row takes, whose groups are at least 8
//!    channels wide, becomes one convolution per group ([`groups`]).
//! 1. **Assign.** Each op the table has a row for, and whose operands meet the row's
//!    conditions, takes the row's layouts: its operands are packed into them
//!    (`tensor.pack`), it runs on the blocked tensors, and its result is unpacked
//!    back (`tensor.unpack`) for its users.
//! 2. **Propagate.** Packs move up towards the values they pack, through the ops
//!    that do not care about layouts, until they meet an unpack or a constant:
//!    - `pack(unpack(x))` with the same tiling is `x`;
//!    - `pack(constant)` is folded into a constant (weights change layout at
//!      compile time);
//!    - `pack(tensor.empty)` is an empty tensor of the packed type;
//!    - `pack(pad(x))` is `pad(pack(x))` when the pad leaves the tiled dimensions
//!      alone;
//!    - `pack(broadcast(x))` is `broadcast(pack(x))` when the tiled dimensions come
//!      from x;
//!    - `pack(map(x, y, ...))` is `map(pack(x), pack(y), ...)` for elementwise maps;
//!    - `pack(insert_slice(x, dest))` is `insert_slice(pack(x), pack(dest))` and
//!      `pack(extract_slice(x))` is `extract_slice(pack(x))` when the slice holds
//!      whole channel blocks (concatenations along channels, the groups of a
//!      grouped convolution).
//!
//!
//!    Unpacks move down the same way ([`sink`]): `op(unpack(x))` is `unpack(op(x))`
//!    for elementwise maps (whose other inputs are unpacks alike or constants,
//!    packed at compile time), reductions and broadcasts that leave the tiled
//!    dimension alone, reshapes that only add or drop dimensions of size 1 around
//!    it, and NCHW pools (a squeeze-and-excitation block stays blocked).
//!
//!    A pack moves up only when every user of its result is the same pack (so nothing
//!    is computed twice); identical packs of one value are merged first. A move that
//!    would change the values of a partial last block (the pack's padding lanes) is
//!    made only when the tiled dimensions divide into whole blocks, or, for the
//!    cancellation, when the padding lanes are provably zeros ([`padding`];
//!    `assume-finite` lets convolutions keep them zero).
//! 3. A transpose next to a pack or unpack, moving the tiled dimension to or from the
//!    last position, becomes one transpose of the blocked tensor and a reshape
//!    ([`transpose`]: ConvNeXt's NCHW16c <-> NHWC).
//! 4. Unused tensor ops are erased. What is left: one pack where a plain value enters
//!    a run of blocked ops, one unpack where a blocked value leaves it.
//!
//! The result computes the same values as the input (`--check-semantics`).

use acc_dialects::build::BuildExt as _;
use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::layout::Layout;
use acc_ir::attrs::AttrData;
use acc_ir::elements::{self, Scalar};
use acc_ir::{
    AttrId, BodyId, Context, DiagLoc, Diagnostic, InsertPoint, Ir, OpId, TypeId, ValueDef, ValueId,
};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};

use acc_dialects::build::{Builder, i64s, shape_of, tensor_type};
use acc_dialects::ops::{arith, func, tensor};

mod constants;
mod groups;
mod padding;
mod propagate;
mod sink;
mod transpose;

/// One row of a preference table: the layouts an op runs fastest in, and when.
#[derive(Clone, Copy, Debug)]
pub struct Preference {
    /// The op (`tensor.conv2d`).
    pub op: tensor::Op,
    /// Its input, filter and output layouts.
    pub layouts: [&'static str; 3],
    /// The channels per block of those layouts.
    pub block: i64,
    /// The fewest input channels the row is for (below, padding would waste lanes).
    pub min_channels: i64,
    /// The most input channels the row is for.
    pub max_channels: i64,
    /// Whether the op must have batch 1 (what the host's kernel takes).
    pub batch_one: bool,
    /// Which convolutions: depthwise ones (one filter per channel), else ungrouped
    /// ones and grouped ones whose groups are whole blocks of input and output
    /// channels.
    pub depthwise: bool,
}

/// The host's table: f32 convolutions of batch 1 produce NCHW16c, channels in the
/// lanes of an AVX-512 vector: ungrouped ones with at least 16 input channels read
/// NCHW16c with OIHW16i16o filters (`acc_sconv2d_nchw16c`; grouped ones of whole
/// blocks per group `acc_sgconv2d_nchw16c`), those with fewer (a
/// network's first) read NCHW with OIHW16o filters (`acc_sconv2d_nchw_nchw16c`),
/// depthwise ones read NCHW16c with OIHW16o filters (`acc_sdwconv2d_nchw16c`).
/// Everything else keeps its layout.
pub const HOST: &[Preference] = &[
    Preference {
        op: tensor::Op::Conv2d,
        layouts: ["NCHW16c", "OIHW16i16o", "NCHW16c"],
        block: 16,
        min_channels: 16,
        max_channels: i64::MAX,
        batch_one: true,
        depthwise: false,
    },
    Preference {
        op: tensor::Op::Conv2d,
        layouts: ["NCHW", "OIHW16o", "NCHW16c"],
        block: 16,
        min_channels: 1,
        max_channels: 15,
        batch_one: true,
        depthwise: false,
    },
    Preference {
        op: tensor::Op::Conv2d,
        layouts: ["NCHW16c", "OIHW16o", "NCHW16c"],
        block: 16,
        min_channels: 16,
        max_channels: i64::MAX,
        batch_one: true,
        depthwise: true,
    },
];

/// The pass.
pub struct LayoutPass {
    table: &'static [Preference],
    assume_finite: bool,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "layout",
        title: "Layout",
        summary: "Assign blocked layouts from a preference table, propagate them, fold weight layouts at compile time",
        anchor: Some(func::Func::NAME),
        options: vec![
            acc_pass::PassOption {
                name: "table",
                description: "the preference table: host (blocked NCHW16c convolutions) or none (leave layouts alone)",
                kind: acc_pass::OptionKind::String,
                default: "host",
            },
            acc_pass::PassOption {
                name: "assume-finite",
                description: "assume no infinity or NaN reaches a convolution, so that the padding channels of its blocked result are zeros and partial blocks need no repacking",
                kind: acc_pass::OptionKind::Bool,
                default: "false",
            },
        ],
        create: |o: &PassOptions| {
            let table: &'static [Preference] = match o.get("table") {
                "host" => HOST,
                "none" => &[],
                other => {
                    return Err(format!(
                        "layout: unknown table '{other}' (expected host or none)"
                    ));
                }
            };
            Ok(Box::new(LayoutPass {
                table,
                assume_finite: o.flag("assume-finite"),
            }))
        },
    }
}

impl Pass for LayoutPass {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, _) in t.bodies() {
            let mut l = Layouts {
                ctx: t.ctx,
                ir: &mut *t.ir,
                body,
                assume_finite: self.assume_finite,
            };
            l.run(self.table).map_err(|(op, m)| {
                let loc = op.map_or(DiagLoc::Unknown, |op| DiagLoc::Loc(l.ir.op(body, op).loc()));
                Diagnostic::error(loc, format!("layout: {m}"))
            })?;
        }
        Ok(())
    }
}

/// A failure and the op it concerns.
type Failure = (Option<OpId>, String);

/// How a pack tiles: the tiled dimensions (of the plain side) and their tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tiling {
    positions: Vec<i64>,
    tiles: Vec<i64>,
}

impl Tiling {
    /// The blocked shape of a plain one: tiled dimensions counted in blocks (rounded
    /// up), the tiles appended.
    fn blocked_shape(&self, plain: &[i64]) -> Vec<i64> {
        let mut shape = plain.to_vec();
        for (p, t) in self.positions.iter().zip(&self.tiles) {
            shape[*p as usize] = (plain[*p as usize] + t - 1) / t;
        }
        shape.extend(&self.tiles);
        shape
    }

    /// Whether every tiled dimension of `plain` divides into whole blocks.
    fn whole(&self, plain: &[i64]) -> bool {
        self.positions
            .iter()
            .zip(&self.tiles)
            .all(|(p, t)| plain[*p as usize] % t == 0)
    }
}

struct Layouts<'a> {
    ctx: &'a Context,
    ir: &'a mut Ir,
    body: BodyId,
    /// No infinity or NaN reaches a convolution (see [`padding`]).
    assume_finite: bool,
}

impl Layouts<'_> {
    fn run(&mut self, table: &[Preference]) -> Result<(), Failure> {
        self.split_groups(table).map_err(|m| (None, m))?;
        for op in self.top_ops() {
            let kind = self.kind(op);
            if let Some(row) = table
                .iter()
                .find(|r| Some(r.op) == kind && self.meets(op, r))
            {
                self.assign(op, row).map_err(|m| (Some(op), m))?;
            }
        }
        // Every round moves some pack up or unpack down, towards the ends of the
        // body, so it settles within a few rounds per op; the bound turns a rule
        // pair that undid each other into an error instead of a hang.
        let rounds = 4 * self.top_ops().len() + 16;
        for round in 0.. {
            if round == rounds {
                return Err((
                    None,
                    format!("the propagation did not settle in {rounds} rounds"),
                ));
            }
            let mut changed = false;
            for op in self.top_ops() {
                if self.ir.body(self.body).is_erased(op) {
                    continue;
                }
                match self.kind(op) {
                    Some(tensor::Op::Pack) => {
                        changed |= self.bubble(op).map_err(|m| (Some(op), m))?
                    }
                    Some(
                        tensor::Op::Map
                        | tensor::Op::Reduce
                        | tensor::Op::Broadcast
                        | tensor::Op::CollapseShape
                        | tensor::Op::ExpandShape
                        | tensor::Op::Pool,
                    ) => changed |= self.sink(op).map_err(|m| (Some(op), m))?,
                    _ => {}
                }
            }
            if !changed {
                break;
            }
        }
        self.fuse_transposes().map_err(|m| (None, m))?;
        self.erase_unused();
        Ok(())
    }

    /// The ops of the body's blocks, in order (not those nested in regions).
    fn top_ops(&self) -> Vec<OpId> {
        let b = self.ir.body(self.body);
        b.top_regions()
            .iter()
            .flat_map(|r| b.region_blocks(*r))
            .flat_map(|bl| b.block_ops(bl).collect::<Vec<_>>())
            .collect()
    }

    fn name(&self, op: OpId) -> &str {
        self.ctx.op_name_str(self.ir.body(self.body).op(op).name)
    }

    /// The kind of `op` when it is a `tensor` op.
    fn kind(&self, op: OpId) -> Option<tensor::Op> {
        tensor::Op::of(self.ctx, self.ir.op(self.body, op))
    }

    /// Whether `op` is an `arith.constant`.
    fn is_constant(&self, op: OpId) -> bool {
        arith::Constant::is(self.ctx, self.ir.op(self.body, op))
    }

    fn attrs(&self, op: OpId) -> Attrs<'_> {
        Attrs::of_op(self.ctx, self.ir.op(self.body, op))
    }

    fn ints(&self, op: OpId, name: &str) -> Vec<i64> {
        self.attrs(op).ints(name).ok().flatten().unwrap_or_default()
    }

    fn shape(&self, v: ValueId) -> Option<(Vec<i64>, TypeId)> {
        self.shape_of_type(self.ir.body(self.body).value_type(v))
    }

    fn shape_of_type(&self, ty: TypeId) -> Option<(Vec<i64>, TypeId)> {
        shape_of(self.ctx, ty).ok()
    }

    fn operands(&self, op: OpId) -> Vec<ValueId> {
        self.ir.body(self.body).operands(op).collect()
    }

    fn result(&self, op: OpId) -> ValueId {
        self.ir
            .body(self.body)
            .results(op)
            .next()
            .expect("a tensor op has a result")
    }

    fn def(&self, v: ValueId) -> Option<OpId> {
        match self.ir.body(self.body).value(v).def {
            ValueDef::Result(op, _) => Some(op),
            _ => None,
        }
    }

    /// Whether a layout attribute is absent or the plain one.
    fn plain_layout(&self, op: OpId, name: &str, plain: &str) -> bool {
        match self.ir.op(self.body, op).attr(self.ctx, name) {
            None => true,
            Some(a) => Layout::of_attr(self.ctx, a).ok() == Layout::parse(plain).ok(),
        }
    }

    /// Whether a convolution meets a row's conditions.
    fn meets(&self, op: OpId, row: &Preference) -> bool {
        let operands = self.operands(op);
        let [x, w, init] = operands[..] else {
            return false;
        };
        let (Some((sx, ex)), Some((sw, _)), Some((so, _))) =
            (self.shape(x), self.shape(w), self.shape(init))
        else {
            return false;
        };
        let f32 = self.ctx.float_type(acc_ir::FloatKind::F32);
        let plain = self.plain_layout(op, tensor::Conv2d::ATTR_INPUT_LAYOUT, "NCHW")
            && self.plain_layout(op, tensor::Conv2d::ATTR_FILTER_LAYOUT, "OIHW")
            && self.plain_layout(op, tensor::Conv2d::ATTR_OUTPUT_LAYOUT, "NCHW");
        plain
            && ex == f32
            && sx.len() == 4
            && sw.len() == 4
            && so.len() == 4
            && sx.iter().chain(&sw).chain(&so).all(|d| *d > 0)
            && self.grouping_fits(op, row, &sx, &sw)
            && (row.min_channels..=row.max_channels).contains(&sx[1])
            && (!row.batch_one || sx[0] == 1)
    }

    /// Whether a convolution's groups are the row's: one (ungrouped) or whole blocks
    /// of input and output channels each, or one filter per channel (depthwise).
    fn grouping_fits(&self, op: OpId, row: &Preference, sx: &[i64], sw: &[i64]) -> bool {
        let groups = self
            .attrs(op)
            .int(tensor::Conv2d::ATTR_GROUPS)
            .ok()
            .flatten()
            .unwrap_or(1);
        if row.depthwise {
            groups == sx[1] && sw[0] == sx[1] && sw[1] == 1
        } else {
            let whole_blocks = |channels: i64| channels % (groups * row.block) == 0;
            groups == 1 || (groups > 1 && whole_blocks(sx[1]) && whole_blocks(sw[0]))
        }
    }

    /// Runs a convolution in the row's layouts: its operands packed, its result
    /// unpacked for its users.
    fn assign(&mut self, op: OpId, row: &Preference) -> Result<(), String> {
        let operands = self.operands(op);
        let (x, w, init) = (operands[0], operands[1], operands[2]);
        let b = row.block;
        let [input, filter, output] = [
            (row.layouts[0], "NCHW"),
            (row.layouts[1], "OIHW"),
            (row.layouts[2], "NCHW"),
        ]
        .map(|(layout, plain)| tiling_of(layout, plain));
        let (input, filter, channels) = (input?, filter?, output?.ok_or("a plain output layout")?);
        let xb = match &input {
            Some(t) => self.pack(op, x, t)?,
            None => x,
        };
        let wb = match &filter {
            Some(t) => self.pack(op, w, t)?,
            None => w,
        };
        let ib = self.pack(op, init, &channels)?;
        let result = self.result(op);
        let (plain_shape, element) = self.shape(result).ok_or("an unranked result")?;
        let blocked_ty = tensor_type(self.ctx, &channels.blocked_shape(&plain_shape), element);
        let body = self.ir.body_mut(self.body);
        body.set_operand(op, 0, xb);
        body.set_operand(op, 1, wb);
        body.set_operand(op, 2, ib);
        body.set_value_type(result, blocked_ty);
        let mut props: Vec<(&str, AttrId)> = [
            tensor::Conv2d::ATTR_INPUT_LAYOUT,
            tensor::Conv2d::ATTR_FILTER_LAYOUT,
            tensor::Conv2d::ATTR_OUTPUT_LAYOUT,
        ]
        .into_iter()
        .zip(row.layouts)
        .map(|(name, text)| (name, layout_attr(self.ctx, text)))
        .collect();
        if row.depthwise {
            // One group per channel of the blocks, padding channels included.
            let channels = channels.blocked_shape(&plain_shape)[1] * b;
            props.push((
                tensor::Conv2d::ATTR_GROUPS,
                acc_dialects::build::i64_attr(self.ctx, channels),
            ));
        }
        self.set_props(op, &props)?;
        // The result unpacked after the op, for every other user.
        let next = self
            .ir
            .body(self.body)
            .next_op(op)
            .ok_or("a convolution ends its block")?;
        let plain_ty = tensor_type(self.ctx, &plain_shape, element);
        let mut e = self.emitter(op, InsertPoint::Before(next));
        let dest = tensor::Empty::build(&mut e, &[], plain_ty).result()?;
        let unpacked = unpack_op(&mut e, result, dest, &channels, plain_ty)?;
        let users: Vec<OpId> = self.ir.body(self.body).value_users(result).collect();
        let unpack = self.def(unpacked).ok_or("no unpack")?;
        for user in users {
            if user == unpack {
                continue;
            }
            for (i, v) in self.operands(user).into_iter().enumerate() {
                if v == result {
                    self.ir.body_mut(self.body).set_operand(user, i, unpacked);
                }
            }
        }
        Ok(())
    }

    fn emitter(&mut self, near: OpId, point: InsertPoint) -> Builder<'_> {
        let loc = self.ir.op(self.body, near).loc();
        Builder::new(self.ctx, &mut *self.ir, self.body, point, loc)
    }

    /// `tensor.pack` of `v` with `tiling` before `before` (zero padding for a partial
    /// block).
    fn pack(&mut self, before: OpId, v: ValueId, tiling: &Tiling) -> Result<ValueId, String> {
        let (shape, element) = self.shape(v).ok_or("an unranked operand")?;
        let ty = tensor_type(self.ctx, &tiling.blocked_shape(&shape), element);
        let whole = tiling.whole(&shape);
        let mut e = self.emitter(before, InsertPoint::Before(before));
        let dest = tensor::Empty::build(&mut e, &[], ty).result()?;
        if whole {
            return pack_op(&mut e, v, dest, None, tiling, ty);
        }
        let zero = e.scalar(element, 0.0)?;
        pack_op(&mut e, v, dest, Some(zero), tiling, ty)
    }

    /// A pack's tiling, its source and its padding value (if any).
    fn pack_parts(&self, pack: OpId) -> (Tiling, ValueId, Option<ValueId>) {
        let operands = self.operands(pack);
        (
            Tiling {
                positions: self.ints(pack, tensor::Pack::ATTR_INNER_DIMS_POS),
                tiles: self.ints(pack, tensor::Pack::ATTR_INNER_TILES),
            },
            operands[0],
            operands.get(2).copied(),
        )
    }

    fn constant_scalar(&self, v: ValueId) -> Option<Scalar> {
        let def = self.def(v)?;
        let attr = self
            .ir
            .op(self.body, def)
            .attr(self.ctx, arith::Constant::ATTR_VALUE)?;
        elements::scalar(self.ctx, attr).map(|(_, s)| s)
    }

    /// Sets (replaces) properties of an op.
    fn set_props(&mut self, op: OpId, props: &[(&str, AttrId)]) -> Result<(), String> {
        acc_dialects::build::set_props(self.ctx, self.ir, self.body, op, props, &[])
    }

    /// Erases tensor ops and constants whose results nothing uses (the moved ops,
    /// the unpacks that found no user), last first.
    fn erase_unused(&mut self) {
        loop {
            let mut erased = false;
            for op in self.top_ops().into_iter().rev() {
                let pure = self.name(op).starts_with("tensor.") || self.is_constant(op);
                let b = self.ir.body(self.body);
                if pure && b.results(op).len() > 0 && b.results(op).all(|r| !b.has_uses(r)) {
                    self.ir.erase_op(self.body, op);
                    erased = true;
                }
            }
            if !erased {
                break;
            }
        }
    }
}

/// How `layout` tiles the dimensions of `plain` (the same letters, outermost in
/// the same order, then the blocks): `None` when it does not.
fn tiling_of(layout: &str, plain: &str) -> Result<Option<Tiling>, String> {
    let parsed = Layout::parse(layout)?;
    let outer: String = parsed
        .dims
        .iter()
        .filter(|d| d.block.is_none())
        .map(|d| d.letter)
        .collect();
    if outer != plain {
        return Err(format!("layout {layout} does not tile {plain}"));
    }
    let mut t = Tiling {
        positions: Vec::new(),
        tiles: Vec::new(),
    };
    for d in parsed.dims.iter().filter(|d| d.block.is_some()) {
        let at = plain
            .find(d.letter)
            .ok_or(format!("layout {layout} does not tile {plain}"))?;
        t.positions.push(at as i64);
        t.tiles.push(d.block.unwrap_or(1));
    }
    Ok((!t.positions.is_empty()).then_some(t))
}

/// `tensor.pack` of `v` into `dest` by the tiling `t` (`padding` filling a partial
/// block), of type `ty`.
fn pack_op(
    e: &mut Builder<'_>,
    v: ValueId,
    dest: ValueId,
    padding: Option<ValueId>,
    t: &Tiling,
    ty: TypeId,
) -> Result<ValueId, String> {
    let ctx = e.ctx;
    tensor::Pack::build(e, v, dest, padding, ty)
        .inner_dims_pos(i64s(ctx, &t.positions))
        .inner_tiles(i64s(ctx, &t.tiles))
        .result()
}

/// `tensor.unpack` of `v` into `dest` by the tiling `t`, of type `ty`.
fn unpack_op(
    e: &mut Builder<'_>,
    v: ValueId,
    dest: ValueId,
    t: &Tiling,
    ty: TypeId,
) -> Result<ValueId, String> {
    let ctx = e.ctx;
    tensor::Unpack::build(e, v, dest, ty)
        .inner_dims_pos(i64s(ctx, &t.positions))
        .inner_tiles(i64s(ctx, &t.tiles))
        .result()
}

/// `#tensor.layout<"text">`.
fn layout_attr(ctx: &Context, text: &str) -> AttrId {
    ctx.intern_attr(AttrData::Declared {
        dialect: ctx.sym("tensor"),
        name: ctx.sym("layout"),
        params: vec![ctx.string_attr(text)].into(),
    })
}
