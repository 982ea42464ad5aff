//! The AVX-512 matrix product: C += A x B.
//!
//! C is computed in tiles of up to `ROWS` rows by up to `VECTORS` 16-lane vectors
//! (24 zmm accumulators for a full tile): each step of the depth loop loads the
//! tile's vectors of one B row and broadcasts one element of each of its A rows.
//! Blocking follows BLIS with the operands' roles exchanged (B supplies the vectors):
//! for each block of `DEPTH_BLOCK` rows of B, one tile-wide panel of it at a time is
//! copied into a contiguous buffer (it stays in L1; a convolution's patches are
//! gathered straight from its input there) and the kernel runs down all rows of A
//! (the A block stays in L2). With fewer than `PACK_ROWS` rows of A the copy does not
//! pay for itself, and a B in memory is read in place. Partial tiles use lane masks
//! (columns) and instances per row and vector count, so no element outside the
//! matrices is read or written.

use super::{Matrix, PanelSource};
use crate::epilogue::gate_floats;
use crate::threads::Unshared;
use crate::{Bounds, Fused};
use std::arch::x86_64::*;

const LANES: usize = 16;
const VECTORS: usize = 3;
const ROWS: usize = 8;
const TILE_COLUMNS: usize = LANES * VECTORS;
const _: () = assert!(TILE_COLUMNS == super::PANEL_COLUMNS);
/// The packed panel is DEPTH_BLOCK x TILE_COLUMNS floats (24 KiB, half of L1).
const DEPTH_BLOCK: usize = 128;
/// From this many rows of A on, the panel is worth copying.
const PACK_ROWS: usize = 32;

/// What C's sums start from when `fused` has no (row) bias.
#[derive(Clone, Copy)]
pub(crate) enum Initial {
    /// C's contents: C += A x B.
    Output,
    /// Zero: C = A x B (C's contents unread).
    Zero,
    /// A bias per column of C (c.cols values): C = bias[col] + A x B.
    Columns(*const f32),
}

/// C = activate(C + A x B) (shapes checked by the caller), or with a bias
/// activate(bias[row] + A x B) (C's contents unread), `fused`'s clamp or gate
/// applied as each tile is stored; `Fused::NONE`: C += A x B. Without a row bias,
/// the sums start from `initial`.
///
/// # Safety
/// The CPU has AVX-512F; the matrices are valid as [`super::sgemm`] requires, and
/// `b` yields every element of its a.cols (at least 1) x c.cols matrix; a column
/// bias holds c.cols values.
///
/// With a thread pool ([`crate::threads`]) and enough work, the column tiles are
/// split into contiguous parts among the threads, or the groups of [`ROWS`] rows when
/// that balances the threads' work better (few column tiles: attention's products
/// with 64 or 197 columns); each element's sum runs in the same order either way.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn sgemm(
    a: Matrix<*const f32>,
    b: &impl PanelSource,
    c: Matrix<*mut f32>,
    fused: Fused,
    initial: Initial,
) {
    let (m, n, k) = (c.rows, c.cols, a.cols);
    let shared = Unshared((a, b, c, fused, initial));
    let column_tiles = n.div_ceil(TILE_COLUMNS);
    let row_groups = m.div_ceil(ROWS);
    // (A one-row product, a recurrent cell's step, never asks for the team's size.)
    let by_rows = m > 1 && {
        let threads = crate::threads::threads();
        threads > 1
            && balance(m as f64 / ROWS as f64, row_groups, threads)
                > 1.15 * balance(n as f64 / TILE_COLUMNS as f64, column_tiles, threads)
    };
    if by_rows {
        let groups = |range: std::ops::Range<usize>| {
            let (a, b, c, fused, initial) = shared.get();
            let rows = range.start * ROWS..(range.end * ROWS).min(m);
            // SAFETY: this CPU has AVX-512F (the caller's contract); the rows lie
            // inside A, C and a row bias; parts write disjoint rows of C and only
            // read A and B.
            unsafe {
                let fused = Fused {
                    bias: fused.bias.map(|bias| bias.add(rows.start)),
                    ..fused
                };
                columns(a.rows(rows.clone()), b, c.rows(rows), fused, initial, 0..n)
            };
        };
        crate::threads::split_from(
            row_groups,
            m * n * k,
            crate::threads::PARALLEL_WORK,
            &groups,
        );
        return;
    }
    let tiles = |range: std::ops::Range<usize>| {
        let (a, b, c, fused, initial) = shared.get();
        let columns_of = range.start * TILE_COLUMNS..(range.end * TILE_COLUMNS).min(n);
        // SAFETY: this CPU has AVX-512F (the caller's contract); parts write
        // disjoint columns of C and only read A and B.
        unsafe { columns(a, b, c, fused, initial, columns_of) };
    };
    let least = if m == 1 {
        ONE_ROW_PARALLEL_WORK
    } else {
        crate::threads::PARALLEL_WORK
    };
    crate::threads::split_from(column_tiles, m * n * k, least, &tiles);
}

/// How close the busiest of `threads` comes to an equal share when `units` units
/// (`whole` of them in full units' work: the last may be partial) are split into
/// contiguous parts of ceil(units / threads): 1 for a perfect balance.
fn balance(whole: f64, units: usize, threads: usize) -> f64 {
    let per_part = units.div_ceil(threads.min(units).max(1)).max(1);
    whole / threads as f64 / per_part as f64
}

/// From this many multiply-adds on (512 KiB of B), a one-row product is split among
/// the threads: it reads each element of B once, at the speed of the cache holding
/// B, and split, each core reads (and keeps in its own cache) part of B. Below it,
/// B stays in one core's L2 and a recurrent cell's step (a few microseconds) gains
/// less from a second thread than the split costs (LSTM and GRU on two threads,
/// 2^15 -> 2^17: 0.37 -> 0.30 ms and 0.30 -> 0.22 ms, medians of 200 runs).
const ONE_ROW_PARALLEL_WORK: usize = 1 << 17;

/// [`sgemm`] on the columns in `range` of C (starting at a multiple of
/// [`TILE_COLUMNS`]).
///
/// # Safety
/// As [`sgemm`]; `range` lies inside C's columns.
#[target_feature(enable = "avx512f")]
unsafe fn columns(
    a: Matrix<*const f32>,
    b: &impl PanelSource,
    c: Matrix<*mut f32>,
    fused: Fused,
    initial: Initial,
    range: std::ops::Range<usize>,
) {
    let (m, k) = (c.rows, a.cols);
    if m == 1 && k > 0 {
        // SAFETY: as this function's.
        if unsafe { one_row(a, b, c, fused, initial, range.clone()) } {
            return;
        }
    }
    let mut panel = [0f32; DEPTH_BLOCK * TILE_COLUMNS];
    for k0 in (0..k).step_by(DEPTH_BLOCK) {
        let depth = DEPTH_BLOCK.min(k - k0);
        for j in range.clone().step_by(TILE_COLUMNS) {
            let width = TILE_COLUMNS.min(range.end - j);
            let (b_tile, ldb) = match b.in_place(k0, j) {
                Some(block) if m < PACK_ROWS || b.packed() => block,
                Some((from, ldb)) => {
                    // B in memory: its rows copied by masked vectors (no call per row).
                    let masks = lane_masks(width);
                    for (p, row) in panel.chunks_exact_mut(TILE_COLUMNS).take(depth).enumerate() {
                        for (v, mask) in masks.iter().enumerate() {
                            // SAFETY: row k0 + p of B, its masked columns j..j + width;
                            // the panel row holds TILE_COLUMNS floats.
                            unsafe {
                                let x = _mm512_maskz_loadu_ps(*mask, from.add(p * ldb + v * LANES));
                                _mm512_storeu_ps(row.as_mut_ptr().add(v * LANES), x);
                            }
                        }
                    }
                    (panel.as_ptr(), TILE_COLUMNS)
                }
                None => {
                    // SAFETY: rows k0..k0 + depth, columns j..j + width lie inside B.
                    unsafe { b.copy_panel(k0, depth, j, width, &mut panel, TILE_COLUMNS) };
                    (panel.as_ptr(), TILE_COLUMNS)
                }
            };
            let vectors = width.div_ceil(LANES);
            for i in (0..m).step_by(ROWS) {
                let rows = ROWS.min(m - i);
                let tile = Tile {
                    // SAFETY: row i, column k0 of A and row i, column j of C lie
                    // inside them.
                    a: unsafe { a.ptr.add(i * a.row_stride + k0) },
                    lda: a.row_stride,
                    b: b_tile,
                    ldb,
                    c: unsafe { c.ptr.add(i * c.row_stride + j) },
                    ldc: c.row_stride,
                    depth,
                    masks: lane_masks(width),
                    // Started from the bias in the first depth block, clamped once
                    // the sum is complete: after the last.
                    // SAFETY: a row bias holds a value per row of C, a column
                    // bias one per column.
                    start: match (fused.bias, initial) {
                        _ if k0 > 0 => Start::Output,
                        (Some(rows), _) => Start::Rows(unsafe { rows.add(i) }),
                        (None, Initial::Columns(columns)) => {
                            Start::Columns(unsafe { columns.add(j) })
                        }
                        (None, Initial::Zero) => Start::Zero,
                        (None, Initial::Output) => Start::Output,
                    },
                    bounds: (k0 + depth == k).then_some(fused.bounds_as_stored()),
                };
                // SAFETY: the tile covers `rows` rows and `width` columns inside A
                // and C, and depth rows of its panel.
                unsafe { kernel(rows, vectors)(&tile) };
                if k0 + depth == k && fused.gate != crate::Gate::None {
                    for r in 0..rows {
                        // SAFETY: row i + r of C holds the tile's `width` columns.
                        unsafe { gate_floats(tile.c.add(r * tile.ldc), width, fused) };
                    }
                }
            }
        }
    }
}

/// Panels [`one_row`] computes at once: 12 accumulators, enough independent sums
/// to hide the latency of the multiply-adds (a tile of one row has 3).
const ROW_PANELS: usize = 4;
/// How many rows of B ahead [`one_row`] asks for (T0 prefetches): each step reads
/// a row of every panel, streams the hardware prefetcher picks up late in a short
/// product (LSTM 0.35 -> 0.33 ms).
const PREFETCH_ROWS: usize = 8;

/// [`columns`] for a C of one row (a vector times a matrix, as a recurrent cell's
/// step computes), when B is read in place: [`ROW_PANELS`] panels at a time, each
/// sum over the whole depth in order, as the tiles compute it (the same values).
/// False, with nothing done, when B must be copied (a convolution's patches).
///
/// # Safety
/// As [`columns`], with c.rows = 1 and a.cols > 0.
#[target_feature(enable = "avx512f")]
unsafe fn one_row(
    a: Matrix<*const f32>,
    b: &impl PanelSource,
    c: Matrix<*mut f32>,
    fused: Fused,
    initial: Initial,
    range: std::ops::Range<usize>,
) -> bool {
    if range
        .clone()
        .step_by(TILE_COLUMNS)
        .any(|j| b.in_place(0, j).is_none())
    {
        return false;
    }
    for j in range.clone().step_by(ROW_PANELS * TILE_COLUMNS) {
        let width = (j + ROW_PANELS * TILE_COLUMNS).min(range.end) - j;
        let count = width.div_ceil(TILE_COLUMNS);
        let first = b.in_place(0, j).unwrap_or((a.ptr, 0));
        let row = RowTile {
            a: a.ptr,
            b: std::array::from_fn(|p| {
                if p < count {
                    b.in_place(0, j + p * TILE_COLUMNS).unwrap_or(first)
                } else {
                    first
                }
            }),
            // SAFETY: column j of C's only row lies inside it.
            c: unsafe { c.ptr.add(j) },
            depth: a.cols,
            masks: std::array::from_fn(|v| {
                let lanes = width.saturating_sub(v * LANES).min(LANES);
                ((1u32 << lanes) - 1) as __mmask16
            }),
            // SAFETY: a row bias holds C's one value, a column bias one per column.
            start: match (fused.bias, initial) {
                (Some(rows), _) => Start::Rows(rows),
                (None, Initial::Columns(columns)) => Start::Columns(unsafe { columns.add(j) }),
                (None, Initial::Zero) => Start::Zero,
                (None, Initial::Output) => Start::Output,
            },
            bounds: fused.bounds_as_stored(),
        };
        // SAFETY: the group's panels cover `width` columns of B and C.
        unsafe {
            match count {
                1 => row.run::<1>(),
                2 => row.run::<2>(),
                3 => row.run::<3>(),
                _ => row.run::<4>(),
            }
        }
        if fused.gate != crate::Gate::None {
            // SAFETY: as above.
            unsafe { gate_floats(row.c, width, fused) };
        }
    }
    true
}

/// One row of C across up to [`ROW_PANELS`] panels of B, each read where it lies.
struct RowTile {
    a: *const f32,
    /// Each panel's first element in B and its row stride (unused ones repeat the
    /// first).
    b: [(*const f32, usize); ROW_PANELS],
    c: *mut f32,
    depth: usize,
    /// The masks of the group's vectors, panel after panel.
    masks: [__mmask16; ROW_PANELS * VECTORS],
    start: Start,
    bounds: Bounds,
}

impl RowTile {
    /// C[0, the masked columns of the first P panels] = start + A x B, clamped.
    ///
    /// # Safety
    /// The CPU has AVX-512F; A's depth elements, depth rows of each of the first P
    /// panels and C's columns are valid where the masks select.
    #[target_feature(enable = "avx512f")]
    unsafe fn run<const P: usize>(&self) {
        let masks = self.masks;
        let at = |p: usize, v: usize| p * TILE_COLUMNS + v * LANES;
        // SAFETY (whole body): offsets stay inside the columns and rows the caller
        // vouches for; masked-off lanes are not accessed.
        unsafe {
            let mut acc: [[__m512; VECTORS]; P] = std::array::from_fn(|p| {
                std::array::from_fn(|v| {
                    let mask = masks[p * VECTORS + v];
                    match self.start {
                        Start::Zero => _mm512_setzero_ps(),
                        Start::Rows(bias) => _mm512_set1_ps(*bias),
                        Start::Columns(bias) => _mm512_maskz_loadu_ps(mask, bias.add(at(p, v))),
                        Start::Output => _mm512_maskz_loadu_ps(mask, self.c.add(at(p, v))),
                    }
                })
            });
            for t in 0..self.depth {
                let x = _mm512_set1_ps(*self.a.add(t));
                for (p, sums) in acc.iter_mut().enumerate() {
                    let (b, ldb) = self.b[p];
                    let row = b.add(t * ldb);
                    // A hint only: an address past B is never dereferenced.
                    for v in 0..VECTORS {
                        let ahead = row.wrapping_add(PREFETCH_ROWS * ldb + v * LANES);
                        _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
                    }
                    for (v, y) in sums.iter_mut().enumerate() {
                        let bv = _mm512_maskz_loadu_ps(masks[p * VECTORS + v], row.add(v * LANES));
                        *y = _mm512_fmadd_ps(x, bv, *y);
                    }
                }
            }
            let (lo, hi) = (
                _mm512_set1_ps(self.bounds.lo),
                _mm512_set1_ps(self.bounds.hi),
            );
            for (p, sums) in acc.iter().enumerate() {
                for (v, x) in sums.iter().enumerate() {
                    let x = self.bounds.apply(lo, hi, *x);
                    _mm512_mask_storeu_ps(self.c.add(at(p, v)), masks[p * VECTORS + v], x);
                }
            }
        }
    }
}

/// The lane masks of a tile `columns` wide (at most [`TILE_COLUMNS`]).
fn lane_masks(columns: usize) -> [__mmask16; VECTORS] {
    std::array::from_fn(|v| {
        let lanes = columns.saturating_sub(v * LANES).min(LANES);
        ((1u32 << lanes) - 1) as __mmask16
    })
}

/// One tile of C: its first row in A, its B panel (copied, or B in place) and its
/// first element in C.
struct Tile {
    a: *const f32,
    lda: usize,
    b: *const f32,
    ldb: usize,
    c: *mut f32,
    ldc: usize,
    depth: usize,
    masks: [__mmask16; VECTORS],
    /// What the sums start from.
    start: Start,
    /// The clamp applied before the stores, if any.
    bounds: Option<Bounds>,
}

/// Where a tile's sums start: C's contents, or zero or a bias per row or per
/// column (C unread).
#[derive(Clone, Copy)]
enum Start {
    Output,
    Zero,
    /// The tile's first row's bias.
    Rows(*const f32),
    /// The tile's first column's bias.
    Columns(*const f32),
}

type Kernel = unsafe fn(&Tile);

/// The kernel instance for a tile of `rows` rows (1..=ROWS) and `vectors` vectors
/// (1..=VECTORS).
fn kernel(rows: usize, vectors: usize) -> Kernel {
    match vectors {
        1 => kernel_rows::<1>(rows),
        2 => kernel_rows::<2>(rows),
        _ => kernel_rows::<3>(rows),
    }
}

fn kernel_rows<const V: usize>(rows: usize) -> Kernel {
    match rows {
        1 => Tile::run::<1, V>,
        2 => Tile::run::<2, V>,
        3 => Tile::run::<3, V>,
        4 => Tile::run::<4, V>,
        5 => Tile::run::<5, V>,
        6 => Tile::run::<6, V>,
        7 => Tile::run::<7, V>,
        _ => Tile::run::<8, V>,
    }
}

impl Tile {
    /// C[0..R, masked columns of the first V vectors] += A[0..R, 0..depth] x panel.
    ///
    /// # Safety
    /// The CPU has AVX-512F; R rows of A (depth elements each), R rows of C and
    /// depth rows of the panel (ldb apart) are valid where the masks select.
    #[target_feature(enable = "avx512f")]
    unsafe fn run<const R: usize, const V: usize>(&self) {
        let masks = self.masks;
        let mut acc = [[_mm512_setzero_ps(); V]; R];
        // SAFETY (whole body): offsets stay inside the tile the caller vouches for;
        // masked-off lanes are not accessed.
        unsafe {
            match self.start {
                Start::Zero => {}
                Start::Rows(bias) => {
                    for (r, row) in acc.iter_mut().enumerate() {
                        let start = _mm512_set1_ps(*bias.add(r));
                        for x in row.iter_mut() {
                            *x = start;
                        }
                    }
                }
                Start::Columns(bias) => {
                    let start: [__m512; V] = std::array::from_fn(|v| {
                        _mm512_maskz_loadu_ps(masks[v], bias.add(v * LANES))
                    });
                    for row in acc.iter_mut() {
                        *row = start;
                    }
                }
                Start::Output => {
                    for (r, row) in acc.iter_mut().enumerate() {
                        for (v, x) in row.iter_mut().enumerate() {
                            *x = _mm512_maskz_loadu_ps(
                                masks[v],
                                self.c.add(r * self.ldc + v * LANES),
                            );
                        }
                    }
                }
            }
            let mut b = self.b;
            for p in 0..self.depth {
                let bv: [__m512; V] =
                    std::array::from_fn(|v| _mm512_maskz_loadu_ps(masks[v], b.add(v * LANES)));
                for (r, row) in acc.iter_mut().enumerate() {
                    let x = _mm512_set1_ps(*self.a.add(r * self.lda + p));
                    for (v, y) in row.iter_mut().enumerate() {
                        *y = _mm512_fmadd_ps(x, bv[v], *y);
                    }
                }
                b = b.add(self.ldb);
            }
            // Stored with the clamp or without (two loops: the accumulators must stay
            // in registers, which an iterator over all of them would defeat).
            if let Some(bounds) = self.bounds {
                let (lo, hi) = (_mm512_set1_ps(bounds.lo), _mm512_set1_ps(bounds.hi));
                for (r, row) in acc.iter().enumerate() {
                    for (v, x) in row.iter().enumerate() {
                        let x = bounds.apply(lo, hi, *x);
                        _mm512_mask_storeu_ps(self.c.add(r * self.ldc + v * LANES), masks[v], x);
                    }
                }
            } else {
                for (r, row) in acc.iter().enumerate() {
                    for (v, x) in row.iter().enumerate() {
                        _mm512_mask_storeu_ps(self.c.add(r * self.ldc + v * LANES), masks[v], *x);
                    }
                }
            }
        }
    }
}
