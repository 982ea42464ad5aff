//! The AVX2 (with FMA) kernels of the tiled matrix product ([`super::tiled`]): tiles
//! of up to 2 rows by six 8-lane vectors, a whole panel (12 ymm accumulators, with a
//! broadcast of A and one vector of B at a time: 14 of the 16 registers), and one
//! row across two panels (12 accumulators). The last vector of a partial tile is
//! read and written under a lane mask (`vmaskmovps`), so no element outside the
//! matrices is touched. Each sum runs in the AVX-512 kernels' order with the same
//! fused multiply-adds: the same bits.

use super::tiled::{Kernels, RowTile, Start, TILE_COLUMNS, Tile, lanes_of};
use crate::Fused;
use std::arch::x86_64::*;

const LANES: usize = 8;
const VECTORS: usize = TILE_COLUMNS / LANES;
const _: () = assert!(VECTORS * LANES == TILE_COLUMNS);
const ROWS: usize = 2;
/// Panels a one-row kernel computes at once (12 accumulators).
const ROW_PANELS: usize = 2;
/// How many rows of B ahead the one-row kernel asks for (as the AVX-512 kernel).
const PREFETCH_ROWS: usize = 8;

/// The AVX2 kernels (the CPU must have AVX2 and FMA).
pub(crate) static KERNELS: Kernels = Kernels {
    rows: ROWS,
    row_panels: ROW_PANELS,
    tile: tile_kernel,
    row: row_kernel,
    gate,
};

/// All lanes on, then all off: the 8 entries from `8 - lanes` are the mask of the
/// first `lanes` lanes.
static MASK_TABLE: [i32; 16] = [-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0];

/// The mask of the first `lanes` lanes (at most 8) of a vector.
///
/// # Safety
/// The CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn lane_mask(lanes: usize) -> __m256i {
    // SAFETY: 8 - min(lanes, 8) + 8 <= 16 entries.
    unsafe { _mm256_loadu_si256(MASK_TABLE.as_ptr().add(LANES - lanes.min(LANES)).cast()) }
}

/// `fused`'s gate on `len` stored floats.
///
/// # Safety
/// The CPU has AVX2 and FMA; `at` holds `len` floats.
unsafe fn gate(at: *mut f32, len: usize, fused: Fused) {
    // SAFETY: the caller's contract.
    unsafe { crate::epilogue::activate_all_fma(fused, std::slice::from_raw_parts_mut(at, len)) }
}

fn tile_kernel(rows: usize, columns: usize) -> unsafe fn(&Tile) {
    let partial = !columns.is_multiple_of(LANES);
    match columns.div_ceil(LANES) {
        1 => tile_rows::<1>(rows, partial),
        2 => tile_rows::<2>(rows, partial),
        3 => tile_rows::<3>(rows, partial),
        4 => tile_rows::<4>(rows, partial),
        5 => tile_rows::<5>(rows, partial),
        _ => tile_rows::<6>(rows, partial),
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
/// The CPU has AVX2 and FMA; R rows of A (depth elements each), R rows of C and
/// depth rows of the panel (ldb apart) are valid over the tile's columns.
#[target_feature(enable = "avx2,fma")]
unsafe fn tile<const R: usize, const V: usize, const PARTIAL: bool>(t: &Tile) {
    // SAFETY (whole body): offsets stay inside the tile the caller vouches for;
    // the last vector of a partial tile is accessed under its mask only.
    unsafe {
        let last = lane_mask(lanes_of(t.columns, V - 1, LANES));
        let load = |at: *const f32, v: usize| {
            if PARTIAL && v == V - 1 {
                _mm256_maskload_ps(at, last)
            } else {
                _mm256_loadu_ps(at)
            }
        };
        let mut acc = [[_mm256_setzero_ps(); V]; R];
        match t.start {
            Start::Zero => {}
            Start::Rows(bias) => {
                for (r, row) in acc.iter_mut().enumerate() {
                    *row = [_mm256_set1_ps(*bias.add(r)); V];
                }
            }
            Start::Columns(bias) => {
                let start: [__m256; V] = std::array::from_fn(|v| load(bias.add(v * LANES), v));
                acc = [start; R];
            }
            Start::Output => {
                for (r, row) in acc.iter_mut().enumerate() {
                    for (v, x) in row.iter_mut().enumerate() {
                        *x = load(t.c.add(r * t.ldc + v * LANES), v);
                    }
                }
            }
        }
        let mut b = t.b;
        for p in 0..t.depth {
            let x: [__m256; R] = std::array::from_fn(|r| _mm256_set1_ps(*t.a.add(r * t.lda + p)));
            for v in 0..V {
                let bv = load(b.add(v * LANES), v);
                for (r, row) in acc.iter_mut().enumerate() {
                    row[v] = _mm256_fmadd_ps(x[r], bv, row[v]);
                }
            }
            b = b.add(t.ldb);
        }
        // max / min give their second operand when either is NaN: the sum, as
        // `Bounds::apply_scalar` keeps it. No bounds: the sums as they are.
        let bounds = t.bounds.unwrap_or(crate::Bounds::NONE);
        let (lo, hi) = (_mm256_set1_ps(bounds.lo), _mm256_set1_ps(bounds.hi));
        for (r, row) in acc.iter().enumerate() {
            for (v, x) in row.iter().enumerate() {
                let x = if t.bounds.is_some() {
                    _mm256_min_ps(hi, _mm256_max_ps(lo, *x))
                } else {
                    *x
                };
                let at = t.c.add(r * t.ldc + v * LANES);
                if PARTIAL && v == V - 1 {
                    _mm256_maskstore_ps(at, last, x);
                } else {
                    _mm256_storeu_ps(at, x);
                }
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
/// PARTIAL, the last panel's vectors are accessed under lane masks.
///
/// # Safety
/// The CPU has AVX2 and FMA; A's depth elements, depth rows of each of the first P
/// panels and C's columns are valid where the row's columns reach.
#[target_feature(enable = "avx2,fma")]
unsafe fn row<const P: usize, const PARTIAL: bool>(t: &RowTile) {
    let at = |p: usize, v: usize| p * TILE_COLUMNS + v * LANES;
    // SAFETY (whole body): offsets stay inside the columns and rows the caller
    // vouches for; the last panel of a partial row is accessed under masks only.
    unsafe {
        let tail = t.columns - (P - 1) * TILE_COLUMNS;
        let masks: [__m256i; VECTORS] =
            std::array::from_fn(|v| lane_mask(lanes_of(tail, v, LANES)));
        let masked = |p: usize| PARTIAL && p == P - 1;
        let load = |from: *const f32, p: usize, v: usize| {
            if masked(p) {
                _mm256_maskload_ps(from, masks[v])
            } else {
                _mm256_loadu_ps(from)
            }
        };
        let mut acc: [[__m256; VECTORS]; P] = std::array::from_fn(|p| {
            std::array::from_fn(|v| match t.start {
                Start::Zero => _mm256_setzero_ps(),
                Start::Rows(bias) => _mm256_set1_ps(*bias),
                Start::Columns(bias) => load(bias.add(at(p, v)), p, v),
                Start::Output => load(t.c.add(at(p, v)), p, v),
            })
        });
        for s in 0..t.depth {
            let x = _mm256_set1_ps(*t.a.add(s));
            for (p, sums) in acc.iter_mut().enumerate() {
                let (b, ldb) = t.b[p];
                let row = b.add(s * ldb);
                // A hint only (a cache line per two vectors): an address past B is
                // never dereferenced.
                for v in (0..VECTORS).step_by(2) {
                    let ahead = row.wrapping_add(PREFETCH_ROWS * ldb + v * LANES);
                    _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
                }
                for (v, y) in sums.iter_mut().enumerate() {
                    *y = _mm256_fmadd_ps(x, load(row.add(v * LANES), p, v), *y);
                }
            }
        }
        let (lo, hi) = (_mm256_set1_ps(t.bounds.lo), _mm256_set1_ps(t.bounds.hi));
        for (p, sums) in acc.iter().enumerate() {
            for (v, x) in sums.iter().enumerate() {
                let x = _mm256_min_ps(hi, _mm256_max_ps(lo, *x));
                let to = t.c.add(at(p, v));
                if masked(p) {
                    _mm256_maskstore_ps(to, masks[v], x);
                } else {
                    _mm256_storeu_ps(to, x);
                }
            }
        }
    }
}
