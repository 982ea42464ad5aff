// arith verifier errors: each names the op and what is wrong, at the op.
// RUN: acc-opt --split-input-file --verify-diagnostics %s

func.func @mixed_types(%a: i32, %b: i64) {
  // expected-error @+1 {{'arith.addi' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @float_add_on_integers(%a: i32) {
  // expected-error @+1 {{'arith.addf' op operand #0 ('lhs') must be FloatLike (any float | vector of any float | tensor of any float), but got i32}}
  %0 = "arith.addf"(%a, %a) : (i32, i32) -> i32
  return
}

// -----

func.func @int_add_on_floats(%x: f32) {
  // expected-error @+1 {{'arith.subi' op operand #0 ('lhs') must be SignlessIntLike}}
  %0 = "arith.subi"(%x, %x) : (f32, f32) -> f32
  return
}

// -----

func.func @bad_overflow_flag(%a: i32) {
  // expected-error @+1 {{'#arith.overflow' expects <...> with one or more of: none, nsw, nuw}}
  %0 = arith.muli %a, %a overflow<wrap> : i32
  return
}

// -----

func.func @bad_predicate(%a: i32) {
  // expected-error @+1 {{'#arith.cmpi_predicate' expects one of the keywords: eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge}}
  %0 = arith.cmpi less, %a, %a : i32
  return
}

// -----

func.func @predicate_value_out_of_range(%a: i32) {
  // expected-error @+1 {{'arith.cmpi' op attribute 'predicate' must be of kind 'cmpi_predicate'}}
  %0 = "arith.cmpi"(%a, %a) <{predicate = 12 : i64}> : (i32, i32) -> i1
  return
}

// -----

func.func @compare_result(%t: tensor<4xi32>) {
  // expected-error @+1 {{'arith.cmpi' op result #0 has type i1, but its operands and attributes give tensor<4xi1>}}
  %0 = "arith.cmpi"(%t, %t) <{predicate = 0 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> i1
  return
}

// -----

func.func @cmpf_on_integers(%a: i32) {
  // expected-error @+1 {{'arith.cmpf' op operand #0 ('lhs') must be FloatLike}}
  %0 = "arith.cmpf"(%a, %a) <{predicate = 1 : i64}> : (i32, i32) -> i1
  return
}

// -----

func.func @select_branches_differ(%c: i1, %a: i32, %b: i64) {
  // expected-error @+1 {{'arith.select' op requires the same type for 'true_value' and 'false_value' (AllTypesMatch), but found i32 and i64}}
  %0 = "arith.select"(%c, %a, %b) : (i1, i32, i64) -> i32
  return
}

// -----

func.func @select_condition_shape(%c: vector<2xi1>, %v: vector<4xf32>) {
  // expected-error @+1 {{'arith.select' op a shaped condition must have the shape of the result}}
  %0 = arith.select %c, %v, %v : vector<2xi1>, vector<4xf32>
  return
}

// -----

func.func @extend_to_narrower(%a: i32) {
  // expected-error @+1 {{'arith.extsi' op result type must be wider than the operand type: 16 bits vs 32}}
  %0 = arith.extsi %a : i32 to i16
  return
}

// -----

func.func @truncate_to_wider(%x: f16) {
  // expected-error @+1 {{'arith.truncf' op result type must be narrower than the operand type: 32 bits vs 16}}
  %0 = arith.truncf %x : f16 to f32
  return
}

// -----

func.func @cast_changes_shape(%t: tensor<4xi8>) {
  // expected-error @+1 {{'arith.extui' op requires the same shape for 'in' and 'out' (AllShapesMatch), but found tensor<4xi8> and tensor<8xi32>}}
  %0 = arith.extui %t : tensor<4xi8> to tensor<8xi32>
  return
}

// -----

func.func @index_cast_without_index(%a: i32) {
  // expected-error @+1 {{'arith.index_cast' op casts between index and an integer type: exactly one side must be index}}
  %0 = arith.index_cast %a : i32 to i64
  return
}

// -----

func.func @bitcast_width(%a: i32) {
  // expected-error @+1 {{'arith.bitcast' op operand and result must have the same bit width}}
  %0 = arith.bitcast %a : i32 to f64
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'arith.constant' op result #0 has type i64, but its operands and attributes give i32}}
  %0 = "arith.constant"() <{value = 1 : i32}> : () -> i64
  return
}

// -----

func.func @constant_without_value() {
  // expected-error @+1 {{'arith.constant' op requires attribute 'value'}}
  %0 = "arith.constant"() : () -> i64
  return
}

// -----

func.func @extended_types(%a: i32, %b: i64) {
  // expected-error @+1 {{'arith.mulsi_extended' op requires the same type for 'lhs' and 'rhs' (AllTypesMatch), but found i32 and i64}}
  %0:2 = "arith.mulsi_extended"(%a, %b) : (i32, i64) -> (i32, i32)
  return
}

// -----

func.func @unknown_fastmath(%x: f32) {
  // expected-error @+1 {{'#arith.fastmath' expects <...> with one or more of: none, reassoc, nnan, ninf, nsz, arcp, contract, afn, fast}}
  %0 = arith.addf %x, %x fastmath<quick> : f32
  return
}
