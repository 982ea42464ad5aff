// Sub-channel quantized types that MLIR also refuses (mlir-opt 22): each a diagnostic
// at the type.
// RUN: acc-opt --split-input-file --verify-diagnostics %s

// expected-error @+1 {{scales must form a tensor: every element of a level has the same shape}}
func.func private @ragged(!quant.uniform<u8:f32:{0:1}, {{2.0, 3.0}, {4.0}}>)

// -----

// expected-error @+1 {{illegal quantized dimension: -1}}
func.func private @negative_dimension(!quant.uniform<u8:f32:{-1:1}, {{2.0, 3.0}, {4.0, 5.0}}>)

// -----

// expected-error @+1 {{illegal block size: 0}}
func.func private @zero_block(!quant.uniform<u8:f32:{1:0}, {{2.0, 3.0}, {4.0, 5.0}}>)

// -----

// expected-error @+1 {{scale -2 is invalid: scales must be finite and positive}}
func.func private @negative_scale(!quant.uniform<u8:f32:{0:1}, {{-2.0, 3.0}, {4.0, 5.0}}>)

// -----

// expected-error @+1 {{expected at least one scale}}
func.func private @no_scales(!quant.uniform<u8:f32:{0:1}, {}>)

// -----

// A scale past the expressed type's range (f16's largest is 65504).
// expected-error @+1 {{scale inf is invalid: scales must be finite and positive}}
func.func private @scale_past_f16(!quant.uniform<u8:f16:{0:1}, {1.0e5}>)
