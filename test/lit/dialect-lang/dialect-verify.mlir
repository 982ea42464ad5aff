// Ops defined in text are verified from their declaration: constraint errors name
// the op and the operand, result or attribute, at the op's location.
// RUN: acc-opt --dialect %S/Inputs/dsp.acc --split-input-file --verify-diagnostics %s

func.func @bad_operand(%acc: tensor<16xi32>, %a: tensor<16xf32>, %b: tensor<16xi4>) {
  // expected-error @+1 {{'dsp.mac' op operand #1 ('lhs') must be tensor of Narrow (i8 | i4 | i2), but got tensor<16xf32>}}
  %0 = "dsp.mac"(%acc, %a, %b) <{shift = 0}> : (tensor<16xi32>, tensor<16xf32>, tensor<16xi4>) -> tensor<16xi32>
  return
}

// -----

func.func @missing_attribute(%acc: tensor<16xi32>, %a: tensor<16xi8>) {
  // expected-error @+1 {{'dsp.mac' op requires attribute 'shift'}}
  %0 = "dsp.mac"(%acc, %a, %a) : (tensor<16xi32>, tensor<16xi8>, tensor<16xi8>) -> tensor<16xi32>
  return
}

// -----

func.func @wrong_attribute_kind(%acc: tensor<16xi32>, %a: tensor<16xi8>) {
  // expected-error @+1 {{'dsp.mac' op attribute 'shift' must be of kind 'i64'}}
  %0 = "dsp.mac"(%acc, %a, %a) <{shift = "three"}> : (tensor<16xi32>, tensor<16xi8>, tensor<16xi8>) -> tensor<16xi32>
  return
}

// -----

func.func @operand_count(%a: tensor<4xi32>) {
  // expected-error @+1 {{'dsp.add' op expects 2 operands, but found 1}}
  %0 = "dsp.add"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @same_type(%a: tensor<4xi32>, %b: tensor<8xi32>) {
  // expected-error @+1 {{'dsp.add' op requires the same type for all operands and results (SameOperandsAndResultType), but found tensor<4xi32> and tensor<8xi32>}}
  %0 = "dsp.add"(%a, %b) : (tensor<4xi32>, tensor<8xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @variadic_elements(%v: vector<4xi32>) {
  // expected-error @+1 {{'dsp.concat' op operand #0 ('inputs') must be vector of any float, but got vector<4xi32>}}
  %0 = "dsp.concat"(%v) : (vector<4xi32>) -> vector<4xf32>
  return
}

// -----

func.func @loop_needs_terminator(%n: index) {
  "dsp.loop"(%n) ({
    // expected-error @+1 {{block with no terminator, has 'dsp.concat' as its last operation}}
    %0 = "dsp.concat"() : () -> vector<1xf32>
  }) : (index) -> ()
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @custom_form_type_error(%a: tensor<4xi32>) {
  // expected-error @+1 {{use of value '%a' expects different type than prior uses: 'tensor<8xi32>' vs 'tensor<4xi32>'}}
  %0 = dsp.add %a, %a : tensor<8xi32>
  return
}

// -----

func.func @bad_enum_case(%a: tensor<4xi32>) {
  // expected-error @+1 {{'#dsp.rounding' expects <...> with one of: even, up, down}}
  %0 = dsp.scale %a by 1 round #dsp.rounding<sideways> : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @two_cases_of_an_enum(%a: tensor<4xi32>) {
  // expected-error @+1 {{'#dsp.rounding' expects <...> with one of: even, up, down}}
  %0 = dsp.scale %a by 1 round #dsp.rounding<even,up> : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

// expected-error @+1 {{dialect 'dsp' has no attribute '#dsp.colour'}}
func.func private @unknown_dialect_attribute() attributes {c = #dsp.colour<red>}

// -----

func.func @wrong_enum(%a: tensor<4xi32>) {
  // expected-error @+1 {{'dsp.scale' op attribute 'round' must be of kind 'rounding'}}
  %0 = "dsp.scale"(%a) <{factor = 1, round = #dsp.options<sat>}> : (tensor<4xi32>) -> tensor<4xi32>
  return
}
