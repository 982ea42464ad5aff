// affine_map and affine_set attributes: any dimension/symbol names in, d0/s0 out,
// MLIR's construction-time simplifications applied.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: "t.maps"
// CHECK-SAME: const = affine_map<() -> (0)>
// CHECK-SAME: empty = affine_map<(d0) -> ()>
// CHECK-SAME: folded = affine_map<(d0) -> (d0 * 6 + 3)>
// CHECK-SAME: id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-SAME: named = affine_map<(d0, d1)[s0] -> (d0 - d1 + s0)>
// CHECK-SAME: nested = affine_map<(d0) -> ((d0 + 1) * 2)>
// CHECK-SAME: perm = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-SAME: strided = affine_map<(d0, d1)[s0] -> (d0 * 4 + d1 + s0)>
// CHECK-SAME: tiled = affine_map<(d0) -> (d0 floordiv 16, d0 mod 16, d0 ceildiv 8)>
"t.maps"() {
  id = affine_map<(d0, d1) -> (d0, d1)>,
  perm = affine_map<(n, c, h, w) -> (n, h, w, c)>,
  strided = affine_map<(d0, d1)[s0] -> (d0 * 4 + d1 + s0)>,
  tiled = affine_map<(d0) -> (d0 floordiv 16, d0 mod 16, d0 ceildiv 8)>,
  named = affine_map<(i, j)[N] -> (i - j + N)>,
  folded = affine_map<(d0) -> (d0 * 2 * 3 + 1 + 2)>,
  nested = affine_map<(d0) -> ((d0 + 1) * 2)>,
  empty = affine_map<(d0) -> ()>,
  const = affine_map<() -> (0)>
} : () -> ()

// CHECK: "t.sets"() {a = affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0)>, b = affine_set<(d0, d1) : (d0 - d1 - 1 >= 0)>}
"t.sets"() {a = affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0)>, b = affine_set<(d0, d1) : (d0 - d1 - 1 >= 0)>} : () -> ()

// Affine maps are memref layouts.
// CHECK: func.func private @layout(memref<4x8xf32, affine_map<(d0, d1) -> (d1, d0)>>)
func.func private @layout(memref<4x8xf32, affine_map<(d0, d1) -> (d1, d0)>>)
