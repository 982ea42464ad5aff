//! `cargo bench -p acc-runtime --bench conv`: GFLOP/s of `acc_sconv2d` and
//! `acc_sdwconv2d` on the convolutions of the benchmark models (ResNet-18's and
//! MobileNetV2's layer shapes and some of YOLO's, ShuffleNet's, EfficientNet's and
//! SqueezeNet's,
//! padding read in place), one thread.

use acc_runtime::Fused;
use acc_runtime::blocked::{BLOCK, sconv2d_nchw_nchw16c, sconv2d_nchw16c};
use acc_runtime::conv::{Conv2d, sconv2d};
use acc_runtime::depthwise::sdwconv2d;
use std::time::Instant;

/// (name, depthwise, input c/h/w, output channels, kernel, stride, padding).
type Layer = (&'static str, bool, [usize; 3], usize, usize, usize, usize);

const LAYERS: &[Layer] = &[
    (
        "resnet18 stem 7x7/2 3->64 224",
        false,
        [3, 224, 224],
        64,
        7,
        2,
        3,
    ),
    (
        "mobilenetv2 stem 3x3/2 3->32 224",
        false,
        [3, 224, 224],
        32,
        3,
        2,
        1,
    ),
    ("resnet18 3x3 64->64 56", false, [64, 56, 56], 64, 3, 1, 1),
    (
        "resnet18 3x3/2 64->128 56",
        false,
        [64, 56, 56],
        128,
        3,
        2,
        1,
    ),
    (
        "resnet18 3x3 128->128 28",
        false,
        [128, 28, 28],
        128,
        3,
        1,
        1,
    ),
    (
        "resnet18 3x3 256->256 14",
        false,
        [256, 14, 14],
        256,
        3,
        1,
        1,
    ),
    ("resnet18 3x3 512->512 7", false, [512, 7, 7], 512, 3, 1, 1),
    (
        "mobilenetv2 1x1 16->96 112",
        false,
        [16, 112, 112],
        96,
        1,
        1,
        0,
    ),
    (
        "mobilenetv2 1x1 144->24 56",
        false,
        [144, 56, 56],
        24,
        1,
        1,
        0,
    ),
    (
        "mobilenetv2 1x1 576->96 14",
        false,
        [576, 14, 14],
        96,
        1,
        1,
        0,
    ),
    (
        "mobilenetv2 1x1 160->960 7",
        false,
        [160, 7, 7],
        960,
        1,
        1,
        0,
    ),
    (
        "yolo stem 6x6/2 3->16 640",
        false,
        [3, 640, 640],
        16,
        6,
        2,
        2,
    ),
    ("yolo 3x3/2 16->32 320", false, [16, 320, 320], 32, 3, 2, 1),
    ("yolo 3x3/2 64->128 80", false, [64, 80, 80], 128, 3, 2, 1),
    ("yolo 3x3 16->16 160", false, [16, 160, 160], 16, 3, 1, 1),
    ("yolo 1x1 64->255 80", false, [64, 80, 80], 255, 1, 1, 0),
    ("shufflenet 1x1 58->58 28", false, [58, 28, 28], 58, 1, 1, 0),
    (
        "shufflenet 1x1 116->116 14",
        false,
        [116, 14, 14],
        116,
        1,
        1,
        0,
    ),
    (
        "shufflenet 1x1 232->232 7",
        false,
        [232, 7, 7],
        232,
        1,
        1,
        0,
    ),
    (
        "efficientnet 1x1 40->240 28",
        false,
        [40, 28, 28],
        240,
        1,
        1,
        0,
    ),
    (
        "squeezenet stem 3x3/2 3->64 224",
        false,
        [3, 224, 224],
        64,
        3,
        2,
        0,
    ),
    ("squeezenet 1x1 64->16 55", false, [64, 55, 55], 16, 1, 1, 0),
    ("squeezenet 1x1 16->64 55", false, [16, 55, 55], 64, 1, 1, 0),
    ("squeezenet 3x3 16->64 55", false, [16, 55, 55], 64, 3, 1, 1),
    (
        "squeezenet 3x3 64->256 13",
        false,
        [64, 13, 13],
        256,
        3,
        1,
        1,
    ),
    (
        "mobilenetv2 dw 3x3 32 112",
        true,
        [32, 112, 112],
        32,
        3,
        1,
        1,
    ),
    (
        "mobilenetv2 dw 3x3/2 96 112",
        true,
        [96, 112, 112],
        96,
        3,
        2,
        1,
    ),
    (
        "mobilenetv2 dw 3x3 144 56",
        true,
        [144, 56, 56],
        144,
        3,
        1,
        1,
    ),
    (
        "mobilenetv2 dw 3x3 576 14",
        true,
        [576, 14, 14],
        576,
        3,
        1,
        1,
    ),
    ("mobilenetv2 dw 3x3 960 7", true, [960, 7, 7], 960, 3, 1, 1),
];

/// The best time per call of `f` over 5 batches of about a second's FLOPs.
fn best_time(flops: f64, mut f: impl FnMut()) -> f64 {
    let reps = ((1e9 / flops) as usize).clamp(3, 5000);
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        for _ in 0..reps {
            f();
        }
        best = best.min(start.elapsed().as_secs_f64() / reps as f64);
    }
    best
}

fn main() {
    println!(
        "{:<40} {:>9} {:>10} {:>16}",
        "layer", "GFLOP/s", "us/call", "NCHW16c GFLOP/s"
    );
    for &(name, depthwise, input, m, k, stride, pad) in LAYERS {
        let out = |size: usize| (size + 2 * pad - k) / stride + 1;
        let shape = Conv2d {
            input,
            filter: [m, k, k],
            output: [out(input[1]), out(input[2])],
            stride: [stride, stride],
            dilation: [1, 1],
            padding: [pad, pad],
        };
        let [c, h, w] = input;
        let taps = if depthwise { 1 } else { c };
        let x: Vec<f32> = (0..c * h * w).map(|i| (i % 7) as f32 * 0.1).collect();
        let f: Vec<f32> = (0..m * taps * k * k)
            .map(|i| (i % 5) as f32 * 0.1)
            .collect();
        let mut y = vec![0f32; m * shape.output[0] * shape.output[1]];
        let flops = 2.0 * (y.len() * taps * k * k) as f64;
        let best = best_time(flops, || {
            // SAFETY: the vectors hold the shape's buffers.
            unsafe {
                if depthwise {
                    sdwconv2d(x.as_ptr(), f.as_ptr(), y.as_mut_ptr(), shape, Fused::NONE)
                } else {
                    sconv2d(x.as_ptr(), f.as_ptr(), y.as_mut_ptr(), shape, Fused::NONE)
                }
            }
        });
        std::hint::black_box(&y);
        let blocked = if depthwise {
            String::new()
        } else {
            // The same sizes in blocked layouts (channels rounded up to blocks); an
            // input of fewer than 16 channels stays NCHW (the layout pass's choice).
            let round = |n: usize| n.div_ceil(BLOCK) * BLOCK;
            let plain = c < BLOCK;
            let cin = if plain { c } else { round(c) };
            let xb = vec![0.1f32; cin * h * w];
            let fb = vec![0.1f32; round(m) * cin * k * k];
            let mut yb = vec![0f32; round(m) * shape.output[0] * shape.output[1]];
            // SAFETY: the vectors hold the blocked buffers of the shape.
            let t = best_time(flops, || unsafe {
                let (x, f, y) = (xb.as_ptr(), fb.as_ptr(), yb.as_mut_ptr());
                if plain {
                    sconv2d_nchw_nchw16c(x, f, y, shape, Fused::NONE)
                } else {
                    sconv2d_nchw16c(x, f, y, shape, Fused::NONE)
                }
            });
            std::hint::black_box(&yb);
            format!("{:>16.1}", flops / t / 1e9)
        };
        println!(
            "{name:<40} {:>9.1} {:>10.1} {blocked}",
            flops / best / 1e9,
            best * 1e6
        );
    }
    println!("(best of 5 batches, one thread)");
}
