//! The register-tiled matrix product C += A x B that the host's vector kernels share
//! ([`super::avx512`], [`super::avx2`]): blocking, panel copies, the split among
//! threads and the epilogue. Each instruction set supplies only its tile kernels
//! ([`Kernels`]); every element's sum runs over the depth in order with one fused
//! multiply-add per step, so every kernel set stores the same bits.
//!
//! C is computed in tiles of up to [`Kernels::rows`] rows by [`TILE_COLUMNS`]
//! columns: each step of the depth loop loads the tile's vectors of one B row and
//! broadcasts one element of each of its A rows. Blocking follows BLIS with the
//! operands' roles exchanged (B supplies the vectors): for each block of
//! [`DEPTH_BLOCK`] rows of B, one tile-wide panel of it at a time is copied into a
//! contiguous buffer (it stays in L1; a convolution's patches are gathered straight
//! from its input there) and the kernel runs down all rows of A (the A block stays in
//! L2). With fewer than [`PACK_ROWS`] rows of A the copy does not pay for itself, and
//! a B in memory is read in place; packed weights ([`super::Panels`]) are always
//! read in place. Partial tiles are handled by the kernels (lane masks), so no
//! element outside the matrices is read or written.

use super::{Matrix, PANEL_COLUMNS, PanelSource};
use crate::threads::Unshared;
use crate::{Bounds, Fused, Gate};

/// The columns of a tile: one panel of a packed B.
pub(crate) const TILE_COLUMNS: usize = PANEL_COLUMNS;
/// The copied panel is DEPTH_BLOCK x TILE_COLUMNS floats (24 KiB, half of L1).
const DEPTH_BLOCK: usize = 128;
/// From this many rows of A on, a panel of B in memory is worth copying.
const PACK_ROWS: usize = 32;
/// The most panels a one-row kernel takes at once.
pub(crate) const MAX_ROW_PANELS: usize = 4;

/// The lanes of vector `v` (of `lanes` lanes each) that `columns` columns fill,
/// 0..=`lanes`: what a kernel masks its last, partial vector to.
pub(crate) fn lanes_of(columns: usize, v: usize, lanes: usize) -> usize {
    columns.saturating_sub(v * lanes).min(lanes)
}

/// One instruction set's kernels.
pub(crate) struct Kernels {
    /// The most rows of a tile.
    pub rows: usize,
    /// The most panels of B (1..=[`MAX_ROW_PANELS`]) a one-row kernel takes.
    pub row_panels: usize,
    /// The kernel for a tile of `rows` rows (1..=`self.rows`) and `columns` columns
    /// (1..=[`TILE_COLUMNS`]).
    pub tile: fn(rows: usize, columns: usize) -> unsafe fn(&Tile),
    /// The kernel for one row of C across `panels` panels (1..=`self.row_panels`),
    /// the last `partial` (narrower than [`TILE_COLUMNS`]).
    pub row: fn(panels: usize, partial: bool) -> unsafe fn(&RowTile),
    /// Applies a gate to `len` stored floats (the clamp is the kernels').
    pub gate: unsafe fn(at: *mut f32, len: usize, fused: Fused),
}

/// The kernels this CPU runs: AVX-512, else AVX2 with FMA, on x86-64; NEON on
/// AArch64; none elsewhere.
pub(crate) fn host() -> Option<&'static Kernels> {
    #[cfg(target_arch = "aarch64")]
    {
        Some(&super::neon::KERNELS)
    }
    #[cfg(target_arch = "x86_64")]
    {
        if crate::avx512() {
            Some(&super::avx512::KERNELS)
        } else if crate::avx2_fma() {
            Some(&super::avx2::KERNELS)
        } else {
            None
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        None
    }
}

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

/// Where a tile's sums start: C's contents, or zero or a bias per row or per
/// column (C unread).
#[derive(Clone, Copy)]
pub(crate) enum Start {
    Output,
    Zero,
    /// The tile's first row's bias.
    Rows(*const f32),
    /// The tile's first column's bias.
    Columns(*const f32),
}

impl Start {
    /// Where the sums of the tile at (`row`, `column`) of C start in the first depth
    /// block: `fused`'s row bias, else `initial`.
    fn first(fused: Fused, initial: Initial, row: usize, column: usize) -> Start {
        match (fused.bias, initial) {
            // A row bias holds a value per row of C, a column bias one per column.
            (Some(rows), _) => Start::Rows(rows.wrapping_add(row)),
            (None, Initial::Columns(columns)) => Start::Columns(columns.wrapping_add(column)),
            (None, Initial::Zero) => Start::Zero,
            (None, Initial::Output) => Start::Output,
        }
    }
}

/// One tile of C: its first row in A, its B panel (copied, or B in place) and its
/// first element in C.
pub(crate) struct Tile {
    pub a: *const f32,
    pub lda: usize,
    pub b: *const f32,
    pub ldb: usize,
    pub c: *mut f32,
    pub ldc: usize,
    pub depth: usize,
    /// The tile's columns, 1..=[`TILE_COLUMNS`].
    pub columns: usize,
    /// What the sums start from.
    pub start: Start,
    /// The clamp applied before the stores, if any.
    pub bounds: Option<Bounds>,
}

/// One row of C across up to [`MAX_ROW_PANELS`] panels of B, each read where it
/// lies.
pub(crate) struct RowTile {
    pub a: *const f32,
    /// Each panel's first element in B and its row stride (unused ones repeat the
    /// first).
    pub b: [(*const f32, usize); MAX_ROW_PANELS],
    pub c: *mut f32,
    pub depth: usize,
    /// The group's columns: full panels, the last one possibly partial.
    pub columns: usize,
    pub start: Start,
    pub bounds: Bounds,
}

/// C = activate(C + A x B) (shapes checked by the caller), or with a bias
/// activate(bias[row] + A x B) (C's contents unread), `fused`'s clamp or gate
/// applied as each tile is stored; `Fused::NONE`: C += A x B. Without a row bias,
/// the sums start from `initial`.
///
/// # Safety
/// The CPU runs `kernels` ([`host`]); the matrices are valid as
/// [`super::sgemm`] requires, and `b` yields every element of its a.cols (at least
/// 1) x c.cols matrix; a column bias holds c.cols values.
///
/// With a thread pool ([`crate::threads`]) and enough work, the column tiles are
/// split into contiguous parts among the threads, or the groups of rows when that
/// balances the threads' work better (few column tiles: attention's products with
/// 64 or 197 columns); each element's sum runs in the same order either way.
pub(crate) unsafe fn sgemm(
    kernels: &'static Kernels,
    a: Matrix<*const f32>,
    b: &impl PanelSource,
    c: Matrix<*mut f32>,
    fused: Fused,
    initial: Initial,
) {
    let (m, n, k) = (c.rows, c.cols, a.cols);
    let rows = kernels.rows;
    let shared = Unshared((a, b, c, fused, initial));
    let column_tiles = n.div_ceil(TILE_COLUMNS);
    let row_groups = m.div_ceil(rows);
    // (A one-row product, a recurrent cell's step, never asks for the team's size.)
    let by_rows = m > 1 && {
        let threads = crate::threads::threads();
        threads > 1
            && balance(m as f64 / rows as f64, row_groups, threads)
                > 1.15 * balance(n as f64 / TILE_COLUMNS as f64, column_tiles, threads)
    };
    if by_rows {
        let groups = |range: std::ops::Range<usize>| {
            let (a, b, c, fused, initial) = shared.get();
            let rows = range.start * rows..(range.end * rows).min(m);
            let fused = Fused {
                // A row bias holds a value per row of C.
                bias: fused.bias.map(|bias| bias.wrapping_add(rows.start)),
                ..fused
            };
            // SAFETY: the caller's contract; the rows lie inside A, C and a row
            // bias; parts write disjoint rows of C and only read A and B.
            unsafe {
                columns(
                    kernels,
                    a.rows(rows.clone()),
                    b,
                    c.rows(rows),
                    fused,
                    initial,
                    0..n,
                )
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
        // SAFETY: the caller's contract; parts write disjoint columns of C and only
        // read A and B.
        unsafe { columns(kernels, a, b, c, fused, initial, columns_of) };
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
unsafe fn columns(
    kernels: &'static Kernels,
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
        if unsafe { one_row(kernels, a, b, c, fused, initial, range.clone()) } {
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
                    for (p, row) in panel.chunks_exact_mut(TILE_COLUMNS).take(depth).enumerate() {
                        // SAFETY: row k0 + p of B holds columns j..j + width.
                        let from = unsafe { from.add(p * ldb) };
                        if width == TILE_COLUMNS {
                            // A whole row by a copy of known size (no call per row).
                            // SAFETY: as above.
                            row.copy_from_slice(unsafe { &*from.cast::<[f32; TILE_COLUMNS]>() });
                        } else {
                            // SAFETY: as above.
                            row[..width].copy_from_slice(unsafe {
                                std::slice::from_raw_parts(from, width)
                            });
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
            for i in (0..m).step_by(kernels.rows) {
                let rows = kernels.rows.min(m - i);
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
                    columns: width,
                    // Started from the bias in the first depth block, clamped once
                    // the sum is complete: after the last.
                    start: if k0 > 0 {
                        Start::Output
                    } else {
                        Start::first(fused, initial, i, j)
                    },
                    bounds: (k0 + depth == k).then_some(fused.bounds_as_stored()),
                };
                // SAFETY: the tile covers `rows` rows and `width` columns inside A
                // and C, and depth rows of its panel; the CPU runs the kernels.
                unsafe { (kernels.tile)(rows, width)(&tile) };
                if k0 + depth == k && fused.gate != Gate::None {
                    for r in 0..rows {
                        // SAFETY: row i + r of C holds the tile's `width` columns.
                        unsafe { (kernels.gate)(tile.c.add(r * tile.ldc), width, fused) };
                    }
                }
            }
        }
    }
}

/// [`columns`] for a C of one row (a vector times a matrix, as a recurrent cell's
/// step computes), when B is read in place: [`Kernels::row_panels`] panels at a
/// time, each sum over the whole depth in order, as the tiles compute it (the same
/// values). False, with nothing done, when B must be copied (a convolution's
/// patches).
///
/// # Safety
/// As [`columns`], with c.rows = 1 and a.cols > 0.
unsafe fn one_row(
    kernels: &'static Kernels,
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
    let group = kernels.row_panels * TILE_COLUMNS;
    for j in range.clone().step_by(group) {
        let width = (j + group).min(range.end) - j;
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
            columns: width,
            start: Start::first(fused, initial, 0, j),
            bounds: fused.bounds_as_stored(),
        };
        // SAFETY: the group's panels cover `width` columns of B and C; the CPU runs
        // the kernels.
        unsafe { (kernels.row)(count, !width.is_multiple_of(TILE_COLUMNS))(&row) };
        if fused.gate != Gate::None {
            // SAFETY: as above.
            unsafe { (kernels.gate)(row.c, width, fused) };
        }
    }
    true
}
