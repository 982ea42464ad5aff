// graph-to-tensor on the quantized ops: stored integers seen through tensor.bitcast,
// scales and zero points as constants (per tensor) or tables read at each element's
// channel (per axis), integer products and convolutions of the centered operands,
// then requantization. Checked against the interpreter by --check-semantics (the
// arithmetic is the interpreter's, so results agree exactly), then through the whole
// host pipeline, where a bitcast is a view of the same buffer.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS

// x / scale in f64 rounded to f32, half to even, plus the zero point, saturated; NaN
// gives the zero point.
// CHECK-LABEL: func.func @quantize(
// CHECK: %[[I:.*]] = tensor.generate {
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT: arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT: math.roundeven %{{.*}} : f32
// CHECK: arith.cmpf uno
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: } : tensor<2x6xi8>
// CHECK-NEXT: tensor.bitcast %[[I]] : tensor<2x6xi8> to tensor<2x6x!quant.uniform<i8:f32, 5.000000e-02:-3>>
// LOOPS-LABEL: func.func @quantize(
// LOOPS: loop.reshape %{{.*}} : memref<2x6xi8> to memref<2x6x!quant.uniform<i8:f32, 5.000000e-02:-3>>
func.func @quantize(%x: tensor<2x6xf32>) -> tensor<2x6x!quant.uniform<i8:f32, 0.05:-3>> {
  %r = graph.quantize %x : tensor<2x6xf32> to tensor<2x6x!quant.uniform<i8:f32, 0.05:-3>>
  return %r : tensor<2x6x!quant.uniform<i8:f32, 0.05:-3>>
}

// Per-channel, unsigned storage: the scales and zero points are tables read at the
// element's channel (dimension 1).
// CHECK-LABEL: func.func @dequantize(
// CHECK: %[[S:.*]] = arith.constant dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf64>
// CHECK: %[[Z:.*]] = arith.constant dense<[128, 100]> : tensor<2xi32>
// CHECK: %[[Q:.*]] = tensor.bitcast %arg0 : tensor<3x2x!quant.uniform<u8:f32:1, {1.000000e-01:128,2.000000e-01:100}>> to tensor<3x2xi8>
// CHECK: tensor.generate {
// CHECK-NEXT: ^bb0(%[[R:.*]]: index, %[[C:.*]]: index):
// CHECK-NEXT: %[[V:.*]] = tensor.extract %[[Q]][%[[R]], %[[C]]] : tensor<3x2xi8>
// CHECK-NEXT: arith.extui %[[V]] : i8 to i32
// CHECK-NEXT: tensor.extract %[[Z]][%[[C]]] : tensor<2xi32>
// CHECK: tensor.extract %[[S]][%[[C]]] : tensor<2xf64>
func.func @dequantize(%x: tensor<3x2x!quant.uniform<u8:f32:1, {0.1:128, 0.2:100}>>) -> tensor<3x2xf32> {
  %r = graph.dequantize %x : tensor<3x2x!quant.uniform<u8:f32:1, {0.1:128, 0.2:100}>> to tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// storage_cast is a bitcast.
// CHECK-LABEL: func.func @storage(
// CHECK-NEXT: tensor.bitcast %arg0 : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>
func.func @storage(%x: tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.25>> {
  %r = graph.storage_cast %x : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 0.25>>
  return %r : tensor<4x!quant.uniform<i8:f32, 0.25>>
}

// The product of the centered i32 operands, requantized per column with multipliers
// f32(f32(s_a * s_b) / s_out) computed here: f32(f32(0.05 * 0.02) / 0.1) and
// f32(f32(0.05 * 0.03) / 0.1).
// CHECK-LABEL: func.func @qmatmul(
// CHECK: tensor.matmul ins(%{{.*}}, %{{.*}} : tensor<3x4xi32>, tensor<4x2xi32>) outs(%{{.*}} : tensor<3x2xi32>)
// CHECK: arith.constant dense<[1.0000000707805157e-2, 1.5000000596046448e-2]> : tensor<2xf64>
// CHECK: math.roundeven %{{.*}} : f64
func.func @qmatmul(%a: tensor<3x4x!quant.uniform<i8:f32, 0.05:2>>, %b: tensor<4x2x!quant.uniform<i8:f32:1, {0.02:0, 0.03:0}>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.1:-1>> {
  %r = graph.qmatmul %a, %b : (tensor<3x4x!quant.uniform<i8:f32, 0.05:2>>, tensor<4x2x!quant.uniform<i8:f32:1, {0.02:0, 0.03:0}>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.1:-1>>
  return %r : tensor<3x2x!quant.uniform<i8:f32, 0.1:-1>>
}

// The padded integer convolution into the i32 bias, requantized per output channel.
// CHECK-LABEL: func.func @qconv2d(
// CHECK: tensor.pad
// CHECK: tensor.broadcast ins(%arg2 : tensor<4xi32>)
// CHECK: tensor.conv2d ins(%{{.*}}, %{{.*}} : tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>) outs(%{{.*}} : tensor<1x4x6x6xi32>)
// CHECK: tensor.bitcast %{{.*}} : tensor<1x4x6x6xi8> to tensor<1x4x6x6x!quant.uniform<i8:f32, 5.000000e-01:5>>
// LOOPS-LABEL: func.func @qconv2d(
// LOOPS: arith.muli %{{.*}}, %{{.*}} : i32
func.func @qconv2d(%x: tensor<1x3x6x6x!quant.uniform<i8:f32, 0.05:-3>>, %w: tensor<4x3x3x3x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3, 0.4}>>, %b: tensor<4xi32>) -> tensor<1x4x6x6x!quant.uniform<i8:f32, 0.5:5>> {
  %r = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x6x6x!quant.uniform<i8:f32, 0.05:-3>>, tensor<4x3x3x3x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3, 0.4}>>, tensor<4xi32>) -> tensor<1x4x6x6x!quant.uniform<i8:f32, 0.5:5>>
  return %r : tensor<1x4x6x6x!quant.uniform<i8:f32, 0.5:5>>
}

// A bias adds to each column's accumulators before requantization.
// CHECK-LABEL: func.func @qmatmul_bias(
// CHECK: tensor.matmul
// CHECK: tensor.extract %arg2[%{{[a-z0-9_]+}}] : tensor<2xi32>
// CHECK: arith.addi
// CHECK: math.roundeven
func.func @qmatmul_bias(%a: tensor<3x4x!quant.uniform<i8:f32, 0.05:2>>, %b: tensor<4x2x!quant.uniform<i8:f32:1, {0.02:0, 0.03:0}>>, %c: tensor<2xi32>) -> tensor<3x2x!quant.uniform<i8:f32, 0.1:-1>> {
  %r = graph.qmatmul %a, %b, %c : (tensor<3x4x!quant.uniform<i8:f32, 0.05:2>>, tensor<4x2x!quant.uniform<i8:f32:1, {0.02:0, 0.03:0}>>, tensor<2xi32>) -> tensor<3x2x!quant.uniform<i8:f32, 0.1:-1>>
  return %r : tensor<3x2x!quant.uniform<i8:f32, 0.1:-1>>
}

// A lookup reads the table at the stored value less the storage's least (-8 for
// i4), and the result is the table's integers seen as the quantized type.
// CHECK-LABEL: func.func @lookup(
// CHECK: %[[V:.*]] = tensor.extract %{{.*}} : tensor<5xi4>
// CHECK: %[[W:.*]] = arith.extsi %[[V]] : i4 to i32
// CHECK: %[[LO:.*]] = arith.constant -8 : i32
// CHECK: %[[I:.*]] = arith.subi %[[W]], %[[LO]] : i32
// CHECK: %[[J:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK: tensor.extract %arg1[%[[J]]] : tensor<16xi8>
// CHECK: tensor.bitcast %{{.*}} : tensor<5xi8> to tensor<5x!quant.uniform<i8:f32, 1.000000e-01>>
// LOOPS-LABEL: func.func @lookup(
// LOOPS: loop.load %arg1[%{{.*}}] : memref<16xi8>
func.func @lookup(%x: tensor<5x!quant.uniform<i4:f32, 0.5:1>>, %t: tensor<16xi8>) -> tensor<5x!quant.uniform<i8:f32, 0.1>> {
  %r = graph.lookup %x, %t : (tensor<5x!quant.uniform<i4:f32, 0.5:1>>, tensor<16xi8>) -> tensor<5x!quant.uniform<i8:f32, 0.1>>
  return %r : tensor<5x!quant.uniform<i8:f32, 0.1>>
}
