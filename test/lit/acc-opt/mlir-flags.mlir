// mlir-opt's flags for printing and pass reports.
// Elements attributes larger than N print elided, as MLIR prints them; splats stay.
// RUN: acc-opt %s --mlir-elide-elementsattrs-if-larger=2 --mlir-print-local-scope | FileCheck %s --check-prefix=ELIDE
// ELIDE: arith.constant dense_resource<__elided__> : tensor<4xi32>
// ELIDE: arith.constant dense<7> : tensor<4xi32>
// ELIDE: arith.constant dense<[1, 2]> : tensor<2xi32>
// The pass counters, as MLIR's list form prints them.
// RUN: acc-opt %s --pass cse --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: ... Pass statistics report ...
// STATS: CSE
// STATS-NEXT: (S) 1 num-cse'd - Number of operations CSE'd
// STATS-NEXT: (S) 0 num-dce'd - Number of operations DCE'd
// The IR a failing pass left, printed generically.
// RUN: not acc-opt %s --pass bufferize --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=FAILURE
// FAILURE: // -----// IR Dump After {{.*}} Failed (bufferize) //----- //
// FAILURE: "func.func"()

func.func @f(%x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<2xi32>, tensor<4xf32>) {
  %a = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %b = arith.constant dense<7> : tensor<4xi32>
  %c = arith.constant dense<[1, 2]> : tensor<2xi32>
  %y = graph.relu %x : tensor<4xf32>
  %z = graph.relu %x : tensor<4xf32>
  %s = graph.add %y, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %a, %b, %c, %s : tensor<4xi32>, tensor<4xi32>, tensor<2xi32>, tensor<4xf32>
}
