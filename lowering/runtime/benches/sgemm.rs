//! `cargo bench -p acc-runtime --bench sgemm`: GFLOP/s of `acc_sgemm` (the dispatched
//! kernel) and of the portable `matrixmultiply` path on the matrix products of the
//! benchmark models (convolutions as im2col products, transformer matmuls).

use acc_runtime::sgemm::{Matrix, Panels, matrix, portable, sgemm, sgemm_panels};
use std::time::Instant;

/// (name, m, n, k): C is m x n, the depth k.
const SHAPES: &[(&str, usize, usize, usize)] = &[
    ("resnet18 conv 3x3 64ch 56x56", 64, 3136, 576),
    ("resnet18 conv 3x3 128ch 28x28", 128, 784, 1152),
    ("resnet18 conv 3x3 256ch 14x14", 256, 196, 2304),
    ("resnet18 conv 3x3 512ch 7x7", 512, 49, 4608),
    ("mobilenetv2 conv 1x1 96->24 56x56", 24, 3136, 96),
    ("mobilenetv2 conv 1x1 160->960 7x7", 960, 49, 160),
    ("transformer ffn 128x256 @ 256x1024", 128, 1024, 256),
    ("square 512", 512, 512, 512),
    ("one tile in L1", 8, 48, 256),
    ("L1 rows", 64, 48, 256),
    ("one panel, many rows", 512, 48, 256),
    ("one panel, many rows, k=128", 1024, 48, 128),
    ("recurrent step 128 -> 4x128", 1, 512, 128),
];

/// Products whose B is a layer's weights, packed at compile time (`acc_sgemm_nk48n`).
const PACKED_SHAPES: &[(&str, usize, usize, usize)] = &[
    ("recurrent step 128 -> 4x128", 1, 512, 128),
    ("transformer qkv 197x192 @ 192x576", 197, 576, 192),
    ("convnext mlp 56x56 96 -> 384", 3136, 384, 96),
    ("convnext mlp 56x56 384 -> 96", 3136, 96, 384),
    ("convnext mlp 14x14 384 -> 1536", 196, 1536, 384),
    ("convnext mlp 7x7 3072 -> 768", 49, 768, 3072),
];

/// [`sgemm_panels`] with B's k x n row-major values read as panels: the same work,
/// another order of B's elements in memory.
unsafe fn panels(a: Matrix<*const f32>, b: Matrix<*const f32>, c: Matrix<*mut f32>) {
    let panels = Panels {
        ptr: b.ptr,
        rows: b.rows,
        cols: b.cols,
    };
    // SAFETY: B holds k x n floats, as many as its panels (n a multiple of 48).
    unsafe { sgemm_panels(a, panels, c, None, acc_runtime::Fused::NONE) }
}

type Kernel = unsafe fn(Matrix<*const f32>, Matrix<*const f32>, Matrix<*mut f32>);

fn gflops(kernel: Kernel, m: usize, n: usize, k: usize) -> f64 {
    let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 * 0.1).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 * 0.1).collect();
    let mut c = vec![0f32; m * n];
    let flops = 2.0 * (m * n * k) as f64;
    let reps = ((2e9 / flops) as usize).clamp(3, 2000);
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        for _ in 0..reps {
            // SAFETY: the vectors hold the matrices.
            unsafe {
                kernel(
                    matrix(a.as_ptr(), m, k),
                    matrix(b.as_ptr(), k, n),
                    matrix(c.as_mut_ptr(), m, n),
                )
            };
        }
        best = best.min(start.elapsed().as_secs_f64() / reps as f64);
    }
    std::hint::black_box(&c);
    flops / best / 1e9
}

fn main() {
    println!(
        "{:<52} {:>10} {:>16}",
        "product (m x n x k)", "acc_sgemm", "matrixmultiply"
    );
    for &(name, m, n, k) in SHAPES {
        let ours = gflops(sgemm, m, n, k);
        let theirs = gflops(portable, m, n, k);
        println!(
            "{:<52} {:>10.1} {:>16.1}",
            format!("{name} ({m}x{n}x{k})"),
            ours,
            theirs
        );
    }
    println!("(GFLOP/s, best of 5 batches, one thread)");
    println!();
    println!("{:<52} {:>10}", "B packed in 48-column panels", "acc_sgemm");
    for &(name, m, n, k) in PACKED_SHAPES {
        println!(
            "{:<52} {:>10.1}",
            format!("{name} ({m}x{n}x{k})"),
            gflops(panels, m, n, k)
        );
    }
}
