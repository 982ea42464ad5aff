//! The AVX-512 kernels of the tiled matrix product ([`super::tiled`]): tiles of up
//! to 8 rows by three 16-lane vectors (24 zmm accumulators for a full tile), and one
//! row across four panels (12 accumulators); partial tiles under lane masks.

use super::tiled::{Kernels, RowTile, Start, TILE_COLUMNS, Tile, lanes_of};
use std::arch::x86_64::*;

const LANES: usize = 16;
const VECTORS: usize = TILE_COLUMNS / LANES;
const _: () = assert!(VECTORS * LANES == TILE_COLUMNS);
const ROWS: usize = 8;
/// Panels a one-row kernel computes at once: 12 accumulators, enough independent
/// sums to hide the latency of the multiply-adds (a tile of one row has 3).
const ROW_PANELS: usize = 4;
/// How many rows of B ahead the one-row kernel asks for (T0 prefetches): each step
/// reads a row of every panel, streams the hardware prefetcher picks up late in a
/// short product (LSTM 0.35 -> 0.33 ms).
const PREFETCH_ROWS: usize = 8;

/// The AVX-512 kernels (the CPU must have AVX-512F).
pub(crate) static KERNELS: Kernels = Kernels {
    rows: ROWS,
    row_panels: ROW_PANELS,
    tile: tile_kernel,
    row: row_kernel,
    gate: crate::epilogue::gate_floats,
};

/// The lane masks of `columns` (at most [`TILE_COLUMNS`]) split into vectors.
fn lane_masks(columns: usize) -> [__mmask16; VECTORS] {
    std::array::from_fn(|v| {
        let lanes = lanes_of(columns, v, LANES);
        ((1u32 << lanes) - 1) as __mmask16
    })
}

fn tile_kernel(rows: usize, columns: usize) -> unsafe fn(&Tile) {
    match columns.div_ceil(LANES) {
        1 => tile_rows::<1>(rows),
        2 => tile_rows::<2>(rows),
        _ => tile_rows::<3>(rows),
    }
}

fn tile_rows<const V: usize>(rows: usize) -> unsafe fn(&Tile) {
    match rows {
        1 => tile::<1, V>,
        2 => tile::<2, V>,
        3 => tile::<3, V>,
        4 => tile::<4, V>,
        5 => tile::<5, V>,
        6 => tile::<6, V>,
        7 => tile::<7, V>,
        _ => tile::<8, V>,
    }
}

/// C[0..R, the tile's columns (V vectors)] = start + A[0..R, 0..depth] x panel,
/// clamped by the tile's bounds.
///
/// # Safety
/// The CPU has AVX-512F; R rows of A (depth elements each), R rows of C and depth
/// rows of the panel (ldb apart) are valid over the tile's columns.
#[target_feature(enable = "avx512f")]
unsafe fn tile<const R: usize, const V: usize>(t: &Tile) {
    let masks = lane_masks(t.columns);
    let mut acc = [[_mm512_setzero_ps(); V]; R];
    // SAFETY (whole body): offsets stay inside the tile the caller vouches for;
    // masked-off lanes are not accessed.
    unsafe {
        match t.start {
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
                let start: [__m512; V] =
                    std::array::from_fn(|v| _mm512_maskz_loadu_ps(masks[v], bias.add(v * LANES)));
                for row in acc.iter_mut() {
                    *row = start;
                }
            }
            Start::Output => {
                for (r, row) in acc.iter_mut().enumerate() {
                    for (v, x) in row.iter_mut().enumerate() {
                        *x = _mm512_maskz_loadu_ps(masks[v], t.c.add(r * t.ldc + v * LANES));
                    }
                }
            }
        }
        let mut b = t.b;
        for p in 0..t.depth {
            let bv: [__m512; V] =
                std::array::from_fn(|v| _mm512_maskz_loadu_ps(masks[v], b.add(v * LANES)));
            for (r, row) in acc.iter_mut().enumerate() {
                let x = _mm512_set1_ps(*t.a.add(r * t.lda + p));
                for (v, y) in row.iter_mut().enumerate() {
                    *y = _mm512_fmadd_ps(x, bv[v], *y);
                }
            }
            b = b.add(t.ldb);
        }
        // Stored with the clamp or without (two loops: the accumulators must stay
        // in registers, which an iterator over all of them would defeat).
        if let Some(bounds) = t.bounds {
            let (lo, hi) = (_mm512_set1_ps(bounds.lo), _mm512_set1_ps(bounds.hi));
            for (r, row) in acc.iter().enumerate() {
                for (v, x) in row.iter().enumerate() {
                    let x = bounds.apply(lo, hi, *x);
                    _mm512_mask_storeu_ps(t.c.add(r * t.ldc + v * LANES), masks[v], x);
                }
            }
        } else {
            for (r, row) in acc.iter().enumerate() {
                for (v, x) in row.iter().enumerate() {
                    _mm512_mask_storeu_ps(t.c.add(r * t.ldc + v * LANES), masks[v], *x);
                }
            }
        }
    }
}

fn row_kernel(panels: usize, _partial: bool) -> unsafe fn(&RowTile) {
    match panels {
        1 => row::<1>,
        2 => row::<2>,
        3 => row::<3>,
        _ => row::<4>,
    }
}

/// C[0, the row's columns in the first P panels] = start + A x B, clamped.
///
/// # Safety
/// The CPU has AVX-512F; A's depth elements, depth rows of each of the first P
/// panels and C's columns are valid where the row's columns reach.
#[target_feature(enable = "avx512f")]
unsafe fn row<const P: usize>(t: &RowTile) {
    let masks: [[__mmask16; VECTORS]; P] =
        std::array::from_fn(|p| lane_masks(t.columns.saturating_sub(p * TILE_COLUMNS)));
    let at = |p: usize, v: usize| p * TILE_COLUMNS + v * LANES;
    // SAFETY (whole body): offsets stay inside the columns and rows the caller
    // vouches for; masked-off lanes are not accessed.
    unsafe {
        let mut acc: [[__m512; VECTORS]; P] = std::array::from_fn(|p| {
            std::array::from_fn(|v| {
                let mask = masks[p][v];
                match t.start {
                    Start::Zero => _mm512_setzero_ps(),
                    Start::Rows(bias) => _mm512_set1_ps(*bias),
                    Start::Columns(bias) => _mm512_maskz_loadu_ps(mask, bias.add(at(p, v))),
                    Start::Output => _mm512_maskz_loadu_ps(mask, t.c.add(at(p, v))),
                }
            })
        });
        for s in 0..t.depth {
            let x = _mm512_set1_ps(*t.a.add(s));
            for (p, sums) in acc.iter_mut().enumerate() {
                let (b, ldb) = t.b[p];
                let row = b.add(s * ldb);
                // A hint only: an address past B is never dereferenced.
                for v in 0..VECTORS {
                    let ahead = row.wrapping_add(PREFETCH_ROWS * ldb + v * LANES);
                    _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
                }
                for (v, y) in sums.iter_mut().enumerate() {
                    let bv = _mm512_maskz_loadu_ps(masks[p][v], row.add(v * LANES));
                    *y = _mm512_fmadd_ps(x, bv, *y);
                }
            }
        }
        let (lo, hi) = (_mm512_set1_ps(t.bounds.lo), _mm512_set1_ps(t.bounds.hi));
        for (p, sums) in acc.iter().enumerate() {
            for (v, x) in sums.iter().enumerate() {
                let x = t.bounds.apply(lo, hi, *x);
                _mm512_mask_storeu_ps(t.c.add(at(p, v)), masks[p][v], x);
            }
        }
    }
}
