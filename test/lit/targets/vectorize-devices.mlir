// `vectorize` runs a launch's loops on the vectors of its device's hw.device
// (`vector_bits`), lane by lane for the C back end: a quantization of 20 floats on a
// 256-bit DSP is 8 lanes at a time (its comparison, select and narrowing
// conversion included) and a copy of the last 4; a device started by its own
// function (`call`) that declares no vectors keeps its loops scalar; the host's loops
// take the host's 128-bit vectors unless `host=false`. --check-semantics runs each
// form in the interpreter.
// RUN: acc-opt --check-semantics --pass 'vectorize{host=false}' %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass vectorize %s | FileCheck %s --check-prefix=HOST


// CHECK: hw.device @dsp kind "dsp" {compiler = "cc", vector_bits = 256 : i64}
// CHECK: hw.launch @dsp(
// CHECK: %[[V:[0-9]+]] = loop.vload %{{.*}} : memref<20xf32>, vector<8xf32>
// CHECK: arith.divf %[[V]], %{{.*}} : vector<8xf32>
// CHECK: arith.cmpf uno, %[[V]], %[[V]] : vector<8xf32>
// CHECK: arith.select %{{.*}} : vector<8xi1>, vector<8xf32>
// CHECK: arith.fptosi %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.trunci %{{.*}} : vector<8xi32> to vector<8xi8>
// CHECK: loop.vstore %{{.*}} : memref<20xi8>, vector<8xi8>
// The last 4 elements, one at a time.
// CHECK: loop.parallel
// CHECK: loop.load %{{.*}} : memref<20xf32>
// CHECK: hw.yield
// CHECK: hw.launch @npu(
// CHECK-NOT: vector
// CHECK: return

// HOST: hw.launch @dsp(
// HOST: vector<8xf32>
// HOST: hw.launch @npu(
// HOST-NOT: vector
// HOST: hw.wait
// HOST: loop.vload %{{.*}} : memref<8xf32>, vector<4xf32>
// HOST: return

module {
  hw.device @dsp kind "dsp" {compiler = "cc", vector_bits = 256 : i64}
  hw.device @npu kind "dsp" {compiler = "cc"}
  func.func @quantize(%x: memref<20xf32>, %y: memref<20xi8>, %z: memref<8xf32>) {
    %t = hw.launch @dsp(%x, %y : memref<20xf32>, memref<20xi8>) {
    ^bb0(%a: memref<20xf32>, %b: memref<20xi8>):
      %c0 = arith.constant 0 : index
      %c20 = arith.constant 20 : index
      %c1 = arith.constant 1 : index
      loop.parallel (%i) = (%c0) to (%c20) step (%c1) {
        %v = loop.load %a[%i] : memref<20xf32>
        %s = arith.constant 2.500000e-01 : f32
        %q = arith.divf %v, %s : f32
        %r = math.roundeven %q : f32
        %nan = arith.cmpf uno, %v, %v : f32
        %zero = arith.constant 0.000000e+00 : f32
        %k = arith.select %nan, %zero, %r : f32
        %lo = arith.constant -1.280000e+02 : f32
        %hi = arith.constant 1.270000e+02 : f32
        %m = arith.maximumf %k, %lo : f32
        %n = arith.minimumf %m, %hi : f32
        %w = arith.fptosi %n : f32 to i32
        %e = arith.trunci %w : i32 to i8
        loop.store %e, %b[%i] : memref<20xi8>
        loop.yield
      }
      hw.yield
    }
    %u = hw.launch @npu(%z : memref<8xf32>) attributes {call = "npu_submit"} {
    ^bb0(%a: memref<8xf32>):
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c1 = arith.constant 1 : index
      loop.parallel (%i) = (%c0) to (%c8) step (%c1) {
        %v = loop.load %a[%i] : memref<8xf32>
        %d = arith.addf %v, %v : f32
        loop.store %d, %a[%i] : memref<8xf32>
        loop.yield
      }
      hw.yield
    }
    hw.wait %t, %u
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    loop.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %v = loop.load %z[%i] : memref<8xf32>
      %d = arith.mulf %v, %v : f32
      loop.store %d, %z[%i] : memref<8xf32>
      loop.yield
    }
    return
  }
}
