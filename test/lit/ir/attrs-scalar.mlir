// Integer, index, bool, float (decimal, hex, NaN, Inf, -0), unit and string attributes.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: "t.ints"
// CHECK-SAME: a = 42 : i64
// CHECK-SAME: b = -7 : i8
// CHECK-SAME: c = -1 : i8
// CHECK-SAME: d = 255 : ui8
// CHECK-SAME: e = true
// CHECK-SAME: f = false
// CHECK-SAME: g = 3 : index
// CHECK-SAME: h = 7 : i4
// CHECK-SAME: i = -2 : i2
// CHECK-SAME: j = 26 : i64
// CHECK-SAME: k = -128 : si8
// A signed 1-bit integer holds -1 or 0 and prints so (MLIR's test/IR/attribute.mlir).
// CHECK-SAME: l = -1 : si1
// CHECK-SAME: m = 0 : si1
// CHECK-SAME: n = 1 : ui1
"t.ints"() {a = 42, b = -7 : i8, c = 255 : i8, d = 255 : ui8, e = true, f = false, g = 3 : index, h = 7 : i4, i = 2 : i2, j = 0x1A, k = -128 : si8, l = -1 : si1, m = 0 : si1, n = 1 : ui1} : () -> ()

// CHECK-LABEL: "t.floats"
// CHECK-SAME: a = 1.500000e+00 : f64
// CHECK-SAME: b = 1.000000e-01 : f32
// CHECK-SAME: c = 0x7FC00000 : f32
// CHECK-SAME: d = -0.000000e+00 : f64
// CHECK-SAME: e = 1.000000e+00 : f16
// CHECK-SAME: f = 3.000000e+00 : bf16
// CHECK-SAME: g = 0x7FF0000000000000 : f64
// CHECK-SAME: h = 0xFF800000 : f32
// CHECK-SAME: i = 1.23456789e-1 : f64
// CHECK-SAME: j = 0x3FFF8000000000000000 : f80
// CHECK-SAME: k = 0x40004000000000000000000000000000 : f128
// CHECK-SAME: l = 1.000000e+00 : f32
"t.floats"() {a = 1.5, b = 0.1 : f32, c = 0x7FC00000 : f32, d = -0.0 : f64, e = 1.0 : f16, f = 3.0 : bf16, g = 0x7FF0000000000000 : f64, h = 0xFF800000 : f32, i = 0.123456789, j = 1.0 : f80, k = 2.5 : f128, l = 1 : f32} : () -> ()

// CHECK-LABEL: "t.strings"
// CHECK-SAME: a = "plain"
// CHECK-SAME: b = "quote\22 backslash\5C newline\0A tab\09"
// CHECK-SAME: c = "typed" : i32
// CHECK-SAME: d,
// CHECK-SAME: e}
"t.strings"() {a = "plain", b = "quote\" backslash\\ newline\n tab\t", c = "typed" : i32, d, e = unit} : () -> ()

// Names that are not identifiers are quoted; dictionaries are sorted.
// CHECK: "t.names"() {a = 2 : i64, "has space" = 1 : i64, z = 3 : i64}
"t.names"() {z = 3, "has space" = 1, a = 2} : () -> ()
