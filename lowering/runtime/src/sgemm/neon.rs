//! The AArch64 NEON kernels of the tiled matrix product ([`super::tiled`]): tiles of
//! up to 2 rows by twelve 4-lane vectors, a whole panel (24 of the 32 q registers
//! accumulate), and one row across two panels (24 accumulators). NEON has no masked
//! loads: the last vector of a partial tile is read and written through a small
//! buffer, lane by lane, so no element outside the matrices is touched. Each sum runs
//! in the x86 kernels' order with the same fused multiply-adds (`fmla`).

use super::tiled::{Kernels, RowTile, Start, TILE_COLUMNS, Tile, lanes_of};
use crate::Fused;
use std::arch::aarch64::*;

const LANES: usize = 4;
const VECTORS: usize = TILE_COLUMNS / LANES;
const _: () = assert!(VECTORS * LANES == TILE_COLUMNS);
const ROWS: usize = 2;
/// Panels a one-row kernel computes at once (24 accumulators).
const ROW_PANELS: usize = 2;

/// The NEON kernels (every AArch64 CPU has NEON).
pub(crate) static KERNELS: Kernels = Kernels {
    rows: ROWS,
    row_panels: ROW_PANELS,
    tile: tile_kernel,
    row: row_kernel,
    gate,
};

/// `fused`'s gate on `len` stored floats, four lanes at a time (the portable bits).
///
/// # Safety
/// `at` holds `len` floats.
unsafe fn gate(at: *mut f32, len: usize, fused: Fused) {
    // SAFETY: the caller's contract.
    crate::epilogue::activate_all_neon(fused, unsafe { std::slice::from_raw_parts_mut(at, len) });
}

/// `lanes` floats from `at` (the rest zero).
///
/// # Safety
/// `at` holds `lanes` readable floats.
#[inline(always)]
unsafe fn load(at: *const f32, lanes: usize) -> float32x4_t {
    // SAFETY: the caller's contract; the buffer holds four floats.
    unsafe {
        if lanes >= LANES {
            return vld1q_f32(at);
        }
        let mut buffer = [0f32; LANES];
        std::ptr::copy_nonoverlapping(at, buffer.as_mut_ptr(), lanes);
        vld1q_f32(buffer.as_ptr())
    }
}

/// Stores the first `lanes` lanes of `x` at `at`.
///
/// # Safety
/// `at` holds `lanes` writable floats.
#[inline(always)]
unsafe fn store(at: *mut f32, lanes: usize, x: float32x4_t) {
    // SAFETY: the caller's contract; the buffer holds four floats.
    unsafe {
        if lanes >= LANES {
            return vst1q_f32(at, x);
        }
        let mut buffer = [0f32; LANES];
        vst1q_f32(buffer.as_mut_ptr(), x);
        std::ptr::copy_nonoverlapping(buffer.as_ptr(), at, lanes);
    }
}

fn tile_kernel(rows: usize, columns: usize) -> unsafe fn(&Tile) {
    let partial = !columns.is_multiple_of(LANES);
    match columns.div_ceil(LANES) {
        1 => tile_rows::<1>(rows, partial),
        2 => tile_rows::<2>(rows, partial),
        3 => tile_rows::<3>(rows, partial),
        4 => tile_rows::<4>(rows, partial),
        5 => tile_rows::<5>(rows, partial),
        6 => tile_rows::<6>(rows, partial),
        7 => tile_rows::<7>(rows, partial),
        8 => tile_rows::<8>(rows, partial),
        9 => tile_rows::<9>(rows, partial),
        10 => tile_rows::<10>(rows, partial),
        11 => tile_rows::<11>(rows, partial),
        _ => tile_rows::<12>(rows, partial),
    }
}

fn tile_rows<const V: usize>(rows: usize, partial: bool) -> unsafe fn(&Tile) {
    match (rows, partial) {
        (1, false) => tile::<1, V, false>,
        (1, true) => tile::<1, V, true>,
        (_, false) => tile::<2, V, false>,
        (_, true) => tile::<2, V, true>,
    }
}

/// C[0..R, the tile's columns (V vectors, the last partial when PARTIAL)] = start +
/// A[0..R, 0..depth] x panel, clamped by the tile's bounds.
///
/// # Safety
/// R rows of A (depth elements each), R rows of C and depth rows of the panel (ldb
/// apart) are valid over the tile's columns.
unsafe fn tile<const R: usize, const V: usize, const PARTIAL: bool>(t: &Tile) {
    let lanes = |v: usize| {
        if PARTIAL {
            lanes_of(t.columns, v, LANES)
        } else {
            LANES
        }
    };
    // SAFETY (whole body): offsets stay inside the tile the caller vouches for; the
    // last vector of a partial tile is accessed lane by lane.
    unsafe {
        let mut acc = [[vdupq_n_f32(0.0); V]; R];
        match t.start {
            Start::Zero => {}
            Start::Rows(bias) => {
                for (r, row) in acc.iter_mut().enumerate() {
                    *row = [vdupq_n_f32(*bias.add(r)); V];
                }
            }
            Start::Columns(bias) => {
                let start: [float32x4_t; V] =
                    std::array::from_fn(|v| load(bias.add(v * LANES), lanes(v)));
                acc = [start; R];
            }
            Start::Output => {
                for (r, row) in acc.iter_mut().enumerate() {
                    for (v, x) in row.iter_mut().enumerate() {
                        *x = load(t.c.add(r * t.ldc + v * LANES), lanes(v));
                    }
                }
            }
        }
        let mut b = t.b;
        for p in 0..t.depth {
            let x: [float32x4_t; R] = std::array::from_fn(|r| vdupq_n_f32(*t.a.add(r * t.lda + p)));
            for v in 0..V {
                let bv = load(b.add(v * LANES), lanes(v));
                for (r, row) in acc.iter_mut().enumerate() {
                    row[v] = vfmaq_f32(row[v], x[r], bv);
                }
            }
            b = b.add(t.ldb);
        }
        // fmax / fmin give NaN when either operand is: a NaN sum stays NaN, as
        // `Bounds::apply_scalar` keeps it. No bounds: the sums as they are.
        let bounds = t.bounds.unwrap_or(crate::Bounds::NONE);
        let (lo, hi) = (vdupq_n_f32(bounds.lo), vdupq_n_f32(bounds.hi));
        for (r, row) in acc.iter().enumerate() {
            for (v, x) in row.iter().enumerate() {
                let x = if t.bounds.is_some() {
                    vminq_f32(hi, vmaxq_f32(lo, *x))
                } else {
                    *x
                };
                store(t.c.add(r * t.ldc + v * LANES), lanes(v), x);
            }
        }
    }
}

fn row_kernel(panels: usize, partial: bool) -> unsafe fn(&RowTile) {
    match (panels, partial) {
        (1, false) => row::<1, false>,
        (1, true) => row::<1, true>,
        (_, false) => row::<2, false>,
        (_, true) => row::<2, true>,
    }
}

/// C[0, the row's columns in the first P panels] = start + A x B, clamped; when
/// PARTIAL, the last panel's vectors are accessed lane by lane.
///
/// # Safety
/// A's depth elements, depth rows of each of the first P panels and C's columns are
/// valid where the row's columns reach.
unsafe fn row<const P: usize, const PARTIAL: bool>(t: &RowTile) {
    let at = |p: usize, v: usize| p * TILE_COLUMNS + v * LANES;
    let tail = t.columns - (P - 1) * TILE_COLUMNS;
    let lanes = |p: usize, v: usize| {
        if PARTIAL && p == P - 1 {
            lanes_of(tail, v, LANES)
        } else {
            LANES
        }
    };
    // SAFETY (whole body): offsets stay inside the columns and rows the caller
    // vouches for; the last panel of a partial row is accessed lane by lane.
    unsafe {
        let mut acc: [[float32x4_t; VECTORS]; P] = std::array::from_fn(|p| {
            std::array::from_fn(|v| match t.start {
                Start::Zero => vdupq_n_f32(0.0),
                Start::Rows(bias) => vdupq_n_f32(*bias),
                Start::Columns(bias) => load(bias.add(at(p, v)), lanes(p, v)),
                Start::Output => load(t.c.add(at(p, v)), lanes(p, v)),
            })
        });
        for s in 0..t.depth {
            let x = vdupq_n_f32(*t.a.add(s));
            for (p, sums) in acc.iter_mut().enumerate() {
                let (b, ldb) = t.b[p];
                let row = b.add(s * ldb);
                for (v, y) in sums.iter_mut().enumerate() {
                    *y = vfmaq_f32(*y, x, load(row.add(v * LANES), lanes(p, v)));
                }
            }
        }
        let (lo, hi) = (vdupq_n_f32(t.bounds.lo), vdupq_n_f32(t.bounds.hi));
        for (p, sums) in acc.iter().enumerate() {
            for (v, x) in sums.iter().enumerate() {
                let x = vminq_f32(hi, vmaxq_f32(lo, *x));
                store(t.c.add(at(p, v)), lanes(p, v), x);
            }
        }
    }
}
