//! Runtime values: tensors of numbers. A scalar (`i32`, `f32`) is a tensor of rank 0
//! whose type is the scalar type itself.
//!
//! A quantized tensor (`tensor<4x!quant.uniform<i8:f32, 0.5>>`) holds its stored
//! integers; its type carries the scales and zero points.
//!
//! Invariant: `data.len()` is the product of `shape`, and every element is normalized
//! for `kind` (integers wrapped to their width, floats rounded to their format).

use std::sync::{Arc, Mutex};

use acc_ir::elements::{self, ElementKind, Scalar};
use acc_ir::{AttrId, Context, Signedness, TypeData, TypeId};

/// A value of the interpreter.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Its IR type (`tensor<2x3xf32>`, or `f32` for a scalar).
    pub ty: TypeId,
    /// Its static shape (empty for a scalar).
    pub shape: Vec<usize>,
    /// How its elements are stored.
    pub kind: ElementKind,
    /// The elements, row-major (empty for a `memref`, whose elements are in its view).
    pub data: Vec<Scalar>,
    /// Which elements are unspecified (`tensor.empty` and what is built from it);
    /// `None` when all are defined.
    pub undefined: Option<Vec<bool>>,
    /// For a `memref`: the buffer it views.
    pub view: Option<View>,
}

/// A window of a buffer: element `[i, j, ...]` is cell `offset + i * strides[0] + ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// The memory.
    pub buffer: Buffer,
    /// The cell of the first element.
    pub offset: usize,
    /// Cells between neighbours along each dimension.
    pub strides: Vec<usize>,
}

/// Mutable memory shared by every view of it (`loop.alloc`, a `memref` argument).
#[derive(Clone, Debug)]
pub struct Buffer(Arc<Mutex<Cells>>);

#[derive(Debug)]
struct Cells {
    /// Each cell's value; `None` until written.
    values: Vec<Option<Scalar>>,
    /// Set by `loop.dealloc`.
    freed: bool,
    /// The cells launched work may still be reading or writing (see [`in_launch`]).
    in_flight: Vec<InFlight>,
}

/// Cells of a buffer that a launch (`hw.launch`) read or wrote when it ran, and
/// that it may still be reading or writing on a device until its token is waited
/// for: nothing else may write them (nor read them when the launch writes them)
/// until then, except launches that come after it.
#[derive(Debug)]
struct InFlight {
    /// The launch's number.
    launch: u32,
    /// The launch, as a message names it (`the hw.launch on @dla at f.mlir:3:5`).
    what: Arc<str>,
    /// Its device.
    device: Arc<str>,
    /// The cells, sorted.
    cells: Vec<usize>,
    /// Whether the launch writes them (else it only reads them).
    writes: bool,
}

/// The cells one launch reads and writes, by buffer: what [`in_launch`] records.
#[derive(Debug, Default)]
pub struct Touched {
    /// Each buffer touched, the cells read, the cells written.
    pub buffers: Vec<(
        Buffer,
        std::collections::BTreeSet<usize>,
        std::collections::BTreeSet<usize>,
    )>,
}

/// The launch the current thread is running the region of: the launches it comes
/// after (whose cells it may touch), and what it has touched so far.
struct Agent {
    after: std::collections::HashSet<u32>,
    touched: Touched,
}

thread_local! {
    static AGENT: std::cell::RefCell<Option<Agent>> = const { std::cell::RefCell::new(None) };
}

/// Runs `run` as the region of a launch that comes after the launches `after`:
/// its reads and writes are checked against the other launches in flight (not
/// against those), and recorded. What it returned and the cells it touched.
pub fn in_launch<R>(
    after: std::collections::HashSet<u32>,
    run: impl FnOnce() -> R,
) -> (R, Touched) {
    AGENT.with(|a| {
        *a.borrow_mut() = Some(Agent {
            after,
            touched: Touched::default(),
        })
    });
    let result = run();
    let touched = AGENT
        .with(|a| a.borrow_mut().take())
        .map(|a| a.touched)
        .unwrap_or_default();
    (result, touched)
}

/// Whether the current thread runs a launch's region.
pub fn running_launch() -> bool {
    AGENT.with(|a| a.borrow().is_some())
}

impl PartialEq for Buffer {
    fn eq(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Buffer {
    /// A buffer of `n` cells, none written yet.
    pub fn uninitialized(n: usize) -> Buffer {
        Buffer(Arc::new(Mutex::new(Cells {
            values: vec![None; n],
            freed: false,
            in_flight: Vec::new(),
        })))
    }

    /// A buffer holding `values`.
    pub fn holding(values: &[Scalar]) -> Buffer {
        Buffer(Arc::new(Mutex::new(Cells {
            values: values.iter().map(|v| Some(*v)).collect(),
            freed: false,
            in_flight: Vec::new(),
        })))
    }

    fn cells(&self) -> std::sync::MutexGuard<'_, Cells> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The value of cell `i`: an error when out of bounds, unwritten or freed.
    pub fn read(&self, i: usize) -> Result<Scalar, String> {
        let cells = self.cells();
        if cells.freed {
            return Err("reads a buffer after its dealloc".into());
        }
        match cells.values.get(i) {
            None => Err(format!(
                "reads cell {i} of a buffer of {} cells",
                cells.values.len()
            )),
            Some(None) => Err(format!("reads cell {i} of a buffer before it is written")),
            Some(Some(v)) => {
                let v = *v;
                self.access(&cells, i, false)?;
                Ok(v)
            }
        }
    }

    /// Checks an access to cell `i` against the launches in flight, and records it
    /// when a launch's region runs.
    fn access(&self, cells: &Cells, i: usize, write: bool) -> Result<(), String> {
        AGENT.with(|a| {
            let mut agent = a.borrow_mut();
            let conflict = cells.in_flight.iter().find(|f| {
                (write || f.writes)
                    && agent.as_ref().is_none_or(|a| !a.after.contains(&f.launch))
                    && f.cells.binary_search(&i).is_ok()
            });
            if let Some(f) = conflict {
                let (mine, theirs) = (
                    if write { "writes" } else { "reads" },
                    if f.writes { "writes" } else { "reads" },
                );
                return Err(match agent.as_ref() {
                    None => format!(
                        "{mine} cell {i} of a buffer that {} {theirs}, before waiting for its token",
                        f.what
                    ),
                    Some(_) => format!(
                        "{mine} cell {i} of a buffer that {} {theirs}, without coming after it (its token is not among this launch's `after`)",
                        f.what
                    ),
                });
            }
            if let Some(agent) = agent.as_mut() {
                let at = match agent
                    .touched
                    .buffers
                    .iter()
                    .position(|(b, _, _)| b == self)
                {
                    Some(k) => k,
                    None => {
                        agent.touched.buffers.push((self.clone(), Default::default(), Default::default()));
                        agent.touched.buffers.len() - 1
                    }
                };
                let (_, reads, writes) = &mut agent.touched.buffers[at];
                if write { writes.insert(i) } else { reads.insert(i) };
            }
            Ok(())
        })
    }

    /// Marks `reads` and `writes` (cells) as in flight for launch `launch` on
    /// `device`.
    pub fn mark_in_flight(
        &self,
        launch: u32,
        (what, device): (&Arc<str>, &Arc<str>),
        reads: Vec<usize>,
        writes: Vec<usize>,
    ) {
        let mut cells = self.cells();
        for (cells_of, writes) in [(reads, false), (writes, true)] {
            if !cells_of.is_empty() {
                cells.in_flight.push(InFlight {
                    launch,
                    what: what.clone(),
                    device: device.clone(),
                    cells: cells_of,
                    writes,
                });
            }
        }
    }

    /// Ends launch `launch`'s claims on the buffer (its token was waited for).
    pub fn complete(&self, launch: u32) {
        self.cells().in_flight.retain(|f| f.launch != launch);
    }

    /// Writes cell `i`: an error when out of bounds or freed.
    pub fn write(&self, i: usize, v: Scalar) -> Result<(), String> {
        let mut cells = self.cells();
        if cells.freed {
            return Err("writes a buffer after its dealloc".into());
        }
        let n = cells.values.len();
        if i >= n {
            return Err(format!("writes cell {i} of a buffer of {n} cells"));
        }
        self.access(&cells, i, true)?;
        cells.values[i] = Some(v);
        Ok(())
    }

    /// Marks the buffer freed: a second free is an error, and so is freeing a
    /// buffer launches in flight use, unless `local` (the buffer is in a device's
    /// own memory) and they are all one device's: it is then freed for that
    /// device's later launches, which run after them.
    pub fn free(&self, local: bool) -> Result<(), String> {
        let mut cells = self.cells();
        if cells.freed {
            return Err("frees a buffer twice".into());
        }
        if let Some(f) = cells.in_flight.first() {
            let one_device = cells.in_flight.iter().all(|g| g.device == f.device);
            if !(local && one_device) {
                return Err(format!(
                    "frees a buffer that {} uses, before waiting for its token",
                    f.what
                ));
            }
        }
        cells.freed = true;
        Ok(())
    }
}

impl View {
    /// The cell of element `index` of a view of `shape`: an error when an index is out
    /// of its dimension.
    pub fn cell(&self, shape: &[usize], index: &[usize]) -> Result<usize, String> {
        if index.len() != shape.len() {
            return Err(format!(
                "{} indices for a buffer of rank {}",
                index.len(),
                shape.len()
            ));
        }
        let mut cell = self.offset;
        for (d, (&i, &n)) in index.iter().zip(shape).enumerate() {
            if i >= n {
                return Err(format!(
                    "index {i} is out of bounds for dimension {d} of size {n}"
                ));
            }
            cell += i * self.strides[d];
        }
        Ok(cell)
    }
}

impl View {
    /// Writes `values` (row-major over `shape`) into the view's elements.
    pub fn write_row_major(&self, shape: &[usize], values: &[Scalar]) -> Result<(), String> {
        let n: usize = shape.iter().product();
        if values.len() != n {
            return Err(format!("{} values for {n} elements", values.len()));
        }
        let mut index = vec![0usize; shape.len()];
        for v in values {
            self.buffer.write(self.cell(shape, &index)?, *v)?;
            for d in (0..index.len()).rev() {
                index[d] += 1;
                if index[d] < shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        Ok(())
    }
}

/// Row-major strides of `shape`.
pub(crate) fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

impl Tensor {
    /// The element type and static shape of `ty`; an error for dynamic or unsupported
    /// types.
    pub fn layout(ctx: &Context, ty: TypeId) -> Result<(Vec<usize>, ElementKind), String> {
        let (shape, element) = match ctx.type_data(ty) {
            TypeData::RankedTensor { .. } | TypeData::Vector { .. } | TypeData::MemRef { .. } => {
                let shape = ctx.type_data(ty).shape().unwrap_or(&[]);
                let dims: Option<Vec<usize>> =
                    shape.iter().map(|d| usize::try_from(*d).ok()).collect();
                let dims = dims.ok_or_else(|| "dynamic shapes are not supported".to_string())?;
                // Each element is held as a Scalar: the budget counts those bytes.
                acc_ir::budget::shape_allocation(
                    &type_text(ctx, ty),
                    shape,
                    std::mem::size_of::<Scalar>() as u64,
                )?;
                (dims, ctx.type_data(ty).element_type().unwrap_or(ty))
            }
            _ => (Vec::new(), ty),
        };
        let kind = match ctx.type_data(element) {
            // A quantized value holds its stored integers; the type keeps the scales.
            TypeData::QuantUniform(q) => Some(ElementKind::Int(
                q.storage_width,
                if q.storage_signed {
                    Signedness::Signed
                } else {
                    Signedness::Unsigned
                },
            )),
            _ => ElementKind::of(ctx, element),
        }
        .ok_or_else(|| format!("unsupported element type in {}", type_text(ctx, ty)))?;
        Ok((shape, kind))
    }

    /// A tensor of type `ty` holding `data` (normalized), checked against its shape.
    pub fn new(ctx: &Context, ty: TypeId, data: Vec<Scalar>) -> Result<Tensor, String> {
        let (shape, kind) = Tensor::layout(ctx, ty)?;
        let n: usize = shape.iter().product();
        if data.len() != n {
            return Err(format!(
                "{} needs {n} elements, got {}",
                type_text(ctx, ty),
                data.len()
            ));
        }
        let data: Vec<Scalar> = data.into_iter().map(|v| kind.normalize(v)).collect();
        if matches!(ctx.type_data(ty), TypeData::MemRef { .. }) {
            // A memref holding `data` in a fresh buffer of its own.
            let view = View {
                buffer: Buffer::holding(&data),
                offset: 0,
                strides: row_major(&shape),
            };
            return Ok(Tensor::of_view(ty, shape, kind, view));
        }
        Ok(Tensor {
            ty,
            shape,
            kind,
            data,
            undefined: None,
            view: None,
        })
    }

    /// A memref of type `ty` viewing `view`.
    pub fn of_view(ty: TypeId, shape: Vec<usize>, kind: ElementKind, view: View) -> Tensor {
        Tensor {
            ty,
            shape,
            kind,
            data: Vec::new(),
            undefined: None,
            view: Some(view),
        }
    }

    /// The elements, row-major, read through the view of a memref: an error for
    /// unspecified or unwritten elements.
    pub fn values(&self) -> Result<Vec<Scalar>, String> {
        if let Some(u) = &self.undefined
            && let Some(i) = u.iter().position(|b| *b)
        {
            return Err(format!("element {i} is unspecified (from tensor.empty)"));
        }
        let Some(view) = &self.view else {
            return Ok(self.data.clone());
        };
        let n: usize = self.shape.iter().product();
        let mut out = Vec::with_capacity(n);
        let mut index = vec![0usize; self.shape.len()];
        for _ in 0..n {
            // Normalized to this view's kind: a `loop.reshape` may view integers of
            // one width with another signedness.
            out.push(
                self.kind
                    .normalize(view.buffer.read(view.cell(&self.shape, &index)?)?),
            );
            for d in (0..index.len()).rev() {
                index[d] += 1;
                if index[d] < self.shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        Ok(out)
    }

    /// This value with its elements in `data` (a memref's read out of its buffer).
    pub fn materialized(&self) -> Result<Tensor, String> {
        Ok(Tensor {
            data: self.values()?,
            undefined: None,
            view: None,
            ..self.clone()
        })
    }

    /// A tensor of type `ty` and runtime shape `shape`, for results whose type has
    /// dynamic dimensions (the static ones must agree).
    pub fn with_shape(
        ctx: &Context,
        ty: TypeId,
        shape: Vec<usize>,
        data: Vec<Scalar>,
    ) -> Result<Tensor, String> {
        let declared = ctx.type_data(ty).shape().unwrap_or(&[]);
        let agrees = declared.len() == shape.len()
            && declared
                .iter()
                .zip(&shape)
                .all(|(d, s)| *d == acc_ir::DYNAMIC || usize::try_from(*d) == Ok(*s));
        if !agrees || data.len() != shape.iter().product::<usize>() {
            return Err(format!(
                "a value of shape {shape:?} with {} elements does not fit {}",
                data.len(),
                type_text(ctx, ty)
            ));
        }
        let element = ctx.type_data(ty).element_type().unwrap_or(ty);
        let (_, kind) = Tensor::layout(ctx, element)?;
        let data = data.into_iter().map(|v| kind.normalize(v)).collect();
        Ok(Tensor {
            ty,
            shape,
            kind,
            data,
            undefined: None,
            view: None,
        })
    }

    /// The value of a constant attribute (integer, float, dense, dense resource).
    pub fn from_attr(ctx: &Context, a: AttrId) -> Result<Tensor, String> {
        if let Some((ty, v)) = elements::scalar(ctx, a) {
            return Tensor::new(ctx, ty, vec![v]);
        }
        let dense = elements::dense(ctx, a).ok_or("unsupported constant attribute")?;
        let n: usize = Tensor::layout(ctx, dense.ty)?.0.iter().product();
        let data = if dense.splat {
            vec![dense.get(0); n]
        } else {
            dense.values
        };
        Tensor::new(ctx, dense.ty, data)
    }

    /// Element `i` of a scalar or one-element tensor.
    pub fn scalar(&self) -> Option<Scalar> {
        (self.data.len() == 1).then(|| self.data[0])
    }
}

/// A type as text, for messages.
pub(crate) fn type_text(ctx: &Context, ty: TypeId) -> String {
    acc_ir::printer::type_to_string(ctx, ty)
}
