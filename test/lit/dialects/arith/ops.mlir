// Every arith op in its custom form: printed back identically, and unchanged through
// the generic form. The generic form carries MLIR's properties (defaults included).
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s
// RUN: acc-opt --print-generic %s | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @integer
func.func @integer(%a: i32, %b: i32, %i: index) {
  // CHECK-NEXT: %0 = arith.addi %arg0, %arg1 : i32
  // GENERIC: "arith.addi"(%arg0, %arg1) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
  %0 = arith.addi %a, %b : i32
  // CHECK-NEXT: %1 = arith.subi %arg0, %arg1 overflow<nsw, nuw> : i32
  // GENERIC: "arith.subi"(%arg0, %arg1) <{overflowFlags = #arith.overflow<nsw, nuw>}> : (i32, i32) -> i32
  %1 = arith.subi %a, %b overflow<nuw, nsw> : i32
  // CHECK-NEXT: %2 = arith.muli %arg0, %arg1 overflow<nsw> : i32
  %2 = arith.muli %a, %b overflow<nsw> : i32
  // CHECK-NEXT: %3 = arith.shli %arg0, %arg1 : i32
  %3 = arith.shli %a, %b : i32
  // CHECK-NEXT: %4 = arith.divsi %arg0, %arg1 : i32
  // GENERIC: "arith.divsi"(%arg0, %arg1) : (i32, i32) -> i32
  %4 = arith.divsi %a, %b : i32
  // CHECK-NEXT: %5 = arith.divui %arg0, %arg1 : i32
  %5 = arith.divui %a, %b : i32
  // CHECK-NEXT: %6 = arith.ceildivsi %arg0, %arg1 : i32
  %6 = arith.ceildivsi %a, %b : i32
  // CHECK-NEXT: %7 = arith.ceildivui %arg0, %arg1 : i32
  %7 = arith.ceildivui %a, %b : i32
  // CHECK-NEXT: %8 = arith.floordivsi %arg0, %arg1 : i32
  %8 = arith.floordivsi %a, %b : i32
  // CHECK-NEXT: %9 = arith.remsi %arg0, %arg1 : i32
  %9 = arith.remsi %a, %b : i32
  // CHECK-NEXT: %10 = arith.remui %arg0, %arg1 : i32
  %10 = arith.remui %a, %b : i32
  // CHECK-NEXT: %11 = arith.andi %arg0, %arg1 : i32
  %11 = arith.andi %a, %b : i32
  // CHECK-NEXT: %12 = arith.ori %arg0, %arg1 : i32
  %12 = arith.ori %a, %b : i32
  // CHECK-NEXT: %13 = arith.xori %arg0, %arg1 : i32
  %13 = arith.xori %a, %b : i32
  // CHECK-NEXT: %14 = arith.shrsi %arg0, %arg1 : i32
  %14 = arith.shrsi %a, %b : i32
  // CHECK-NEXT: %15 = arith.shrui %arg0, %arg1 : i32
  %15 = arith.shrui %a, %b : i32
  // CHECK-NEXT: %16 = arith.maxsi %arg0, %arg1 : i32
  %16 = arith.maxsi %a, %b : i32
  // CHECK-NEXT: %17 = arith.maxui %arg0, %arg1 : i32
  %17 = arith.maxui %a, %b : i32
  // CHECK-NEXT: %18 = arith.minsi %arg0, %arg1 : i32
  %18 = arith.minsi %a, %b : i32
  // CHECK-NEXT: %19 = arith.minui %arg0, %arg1 : i32
  %19 = arith.minui %a, %b : i32
  // CHECK-NEXT: %20:2 = arith.addui_extended %arg0, %arg1 : i32, i1
  // GENERIC: "arith.addui_extended"(%arg0, %arg1) : (i32, i32) -> (i32, i1)
  %20:2 = arith.addui_extended %a, %b : i32, i1
  // CHECK-NEXT: %21:2 = arith.mulsi_extended %arg0, %arg1 : i32
  %21:2 = arith.mulsi_extended %a, %b : i32
  // CHECK-NEXT: %22:2 = arith.mului_extended %arg0, %arg1 : i32
  %22:2 = arith.mului_extended %a, %b : i32
  // CHECK-NEXT: %23 = arith.addi %arg2, %arg2 : index
  %23 = arith.addi %i, %i : index
  return
}

// CHECK-LABEL: func.func @float
func.func @float(%x: f32, %y: f32, %v: vector<4xf16>) {
  // CHECK-NEXT: %0 = arith.addf %arg0, %arg1 : f32
  // GENERIC: "arith.addf"(%arg0, %arg1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
  %0 = arith.addf %x, %y : f32
  // CHECK-NEXT: %1 = arith.subf %arg0, %arg1 fastmath<nnan,ninf> : f32
  // GENERIC: "arith.subf"(%arg0, %arg1) <{fastmath = #arith.fastmath<nnan,ninf>}> : (f32, f32) -> f32
  %1 = arith.subf %x, %y fastmath<ninf,nnan> : f32
  // CHECK-NEXT: %2 = arith.mulf %arg0, %arg1 fastmath<fast> : f32
  %2 = arith.mulf %x, %y fastmath<fast> : f32
  // CHECK-NEXT: %3 = arith.divf %arg0, %arg1 : f32
  %3 = arith.divf %x, %y : f32
  // CHECK-NEXT: %4 = arith.remf %arg0, %arg1 : f32
  %4 = arith.remf %x, %y : f32
  // CHECK-NEXT: %5 = arith.maximumf %arg0, %arg1 : f32
  %5 = arith.maximumf %x, %y : f32
  // CHECK-NEXT: %6 = arith.minimumf %arg0, %arg1 : f32
  %6 = arith.minimumf %x, %y : f32
  // CHECK-NEXT: %7 = arith.maxnumf %arg0, %arg1 : f32
  %7 = arith.maxnumf %x, %y : f32
  // CHECK-NEXT: %8 = arith.minnumf %arg0, %arg1 : f32
  %8 = arith.minnumf %x, %y : f32
  // CHECK-NEXT: %9 = arith.negf %arg0 : f32
  %9 = arith.negf %x : f32
  // CHECK-NEXT: %10 = arith.addf %arg2, %arg2 : vector<4xf16>
  %10 = arith.addf %v, %v : vector<4xf16>
  return
}

// CHECK-LABEL: func.func @compare_select
func.func @compare_select(%a: i32, %b: i32, %x: f32, %c: i1, %t: tensor<4xi8>, %vc: vector<4xi1>, %v: vector<4xf32>) {
  // CHECK-NEXT: %0 = arith.cmpi slt, %arg0, %arg1 : i32
  // GENERIC: "arith.cmpi"(%arg0, %arg1) <{predicate = 2 : i64}> : (i32, i32) -> i1
  %0 = arith.cmpi slt, %a, %b : i32
  // CHECK-NEXT: %1 = arith.cmpi uge, %arg4, %arg4 : tensor<4xi8>
  // GENERIC: "arith.cmpi"(%arg4, %arg4) <{predicate = 9 : i64}> : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  %1 = arith.cmpi uge, %t, %t : tensor<4xi8>
  // CHECK-NEXT: %2 = arith.cmpf olt, %arg2, %arg2 fastmath<nnan> : f32
  // GENERIC: "arith.cmpf"(%arg2, %arg2) <{fastmath = #arith.fastmath<nnan>, predicate = 4 : i64}> : (f32, f32) -> i1
  %2 = arith.cmpf olt, %x, %x fastmath<nnan> : f32
  // CHECK-NEXT: %3 = arith.cmpf true, %arg2, %arg2 : f32
  %3 = arith.cmpf true, %x, %x : f32
  // CHECK-NEXT: %4 = arith.select %arg3, %arg0, %arg1 : i32
  // GENERIC: "arith.select"(%arg3, %arg0, %arg1) : (i1, i32, i32) -> i32
  %4 = arith.select %c, %a, %b : i32
  // CHECK-NEXT: %5 = arith.select %arg5, %arg6, %arg6 : vector<4xi1>, vector<4xf32>
  %5 = arith.select %vc, %v, %v : vector<4xi1>, vector<4xf32>
  // CHECK-NEXT: %6 = arith.select %arg3, %arg4, %arg4 : tensor<4xi8>
  %6 = arith.select %c, %t, %t : tensor<4xi8>
  return
}

// CHECK-LABEL: func.func @casts
func.func @casts(%a: i32, %x: f32, %i: index, %t: tensor<2xi8>) {
  // CHECK-NEXT: %0 = arith.extsi %arg0 : i32 to i64
  // GENERIC: "arith.extsi"(%arg0) : (i32) -> i64
  %0 = arith.extsi %a : i32 to i64
  // CHECK-NEXT: %1 = arith.extui %arg3 : tensor<2xi8> to tensor<2xi32>
  %1 = arith.extui %t : tensor<2xi8> to tensor<2xi32>
  // CHECK-NEXT: %2 = arith.trunci %arg0 overflow<nsw> : i32 to i4
  // GENERIC: "arith.trunci"(%arg0) <{overflowFlags = #arith.overflow<nsw>}> : (i32) -> i4
  %2 = arith.trunci %a overflow<nsw> : i32 to i4
  // CHECK-NEXT: %3 = arith.extf %arg1 : f32 to f64
  // GENERIC: "arith.extf"(%arg1) : (f32) -> f64
  %3 = arith.extf %x : f32 to f64
  // CHECK-NEXT: %4 = arith.truncf %arg1 to_nearest_even fastmath<afn> : f32 to bf16
  // GENERIC: "arith.truncf"(%arg1) <{fastmath = #arith.fastmath<afn>, roundingmode = 0 : i32}> : (f32) -> bf16
  %4 = arith.truncf %x to_nearest_even fastmath<afn> : f32 to bf16
  // CHECK-NEXT: %5 = arith.truncf %arg1 : f32 to f16
  %5 = arith.truncf %x : f32 to f16
  // CHECK-NEXT: %6 = arith.sitofp %arg0 : i32 to f32
  %6 = arith.sitofp %a : i32 to f32
  // CHECK-NEXT: %7 = arith.uitofp %arg0 : i32 to f16
  %7 = arith.uitofp %a : i32 to f16
  // CHECK-NEXT: %8 = arith.fptosi %arg1 : f32 to i8
  %8 = arith.fptosi %x : f32 to i8
  // CHECK-NEXT: %9 = arith.fptoui %arg1 : f32 to i2
  %9 = arith.fptoui %x : f32 to i2
  // CHECK-NEXT: %10 = arith.index_cast %arg0 : i32 to index
  %10 = arith.index_cast %a : i32 to index
  // CHECK-NEXT: %11 = arith.index_castui %arg2 : index to i64
  %11 = arith.index_castui %i : index to i64
  // CHECK-NEXT: %12 = arith.bitcast %arg1 : f32 to i32
  %12 = arith.bitcast %x : f32 to i32
  return
}

// CHECK-LABEL: func.func @constants
func.func @constants() {
  // CHECK-NEXT: %0 = arith.constant 42 : i32
  // GENERIC: "arith.constant"() <{value = 42 : i32}> : () -> i32
  %0 = arith.constant 42 : i32
  // CHECK-NEXT: %1 = arith.constant true
  %1 = arith.constant true
  // CHECK-NEXT: %2 = arith.constant -1.500000e+00 : f32
  %2 = arith.constant -1.5 : f32
  // CHECK-NEXT: %3 = arith.constant 0x7FC00000 : f32
  %3 = arith.constant 0x7FC00000 : f32
  // CHECK-NEXT: %4 = arith.constant 7 : index
  %4 = arith.constant 7 : index
  // CHECK-NEXT: %5 = arith.constant dense<[1, -2]> : vector<2xi4>
  %5 = arith.constant dense<[1, -2]> : vector<2xi4>
  // CHECK-NEXT: %6 = arith.constant dense<5.000000e-01> : tensor<2x3xbf16>
  // GENERIC: "arith.constant"() <{value = dense<5.000000e-01> : tensor<2x3xbf16>}> : () -> tensor<2x3xbf16>
  %6 = arith.constant dense<0.5> : tensor<2x3xbf16>
  return
}
