// Float types, including the ones acc only parses and prints (f80, f128, tf32); the
// small floats are in types-small-floats.mlir.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s

// CHECK: "t.floats"() {a = f16, b = bf16, c = f32, d = f64, e = f80, f = f128, g = tf32, h = f8E5M2, i = f8E4M3FN}
"t.floats"() {a = f16, b = bf16, c = f32, d = f64, e = f80, f = f128, g = tf32, h = f8E5M2, i = f8E4M3FN} : () -> ()
