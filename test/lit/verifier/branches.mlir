// Branch operands must match the successor's block arguments; cf ops check their own
// structure.
// RUN: acc-opt --split-input-file --verify-diagnostics %s

func.func @too_few(%x: i32) {
  // expected-error @+1 {{branch has 0 operands for successor #0, but target block has 1}}
  cf.br ^bb1
^bb1(%a: i32):
  return
}

// -----

func.func @wrong_type(%x: i64) {
  // expected-error @+1 {{type mismatch for bb argument #0 of successor #0: operand has type i64, block argument has type i32}}
  cf.br ^bb1(%x : i64)
^bb1(%a: i32):
  return
}

// -----

func.func @cond_false_side(%c: i1, %x: i32) {
  // expected-error @+1 {{branch has 1 operands for successor #1, but target block has 0}}
  cf.cond_br %c, ^bb1, ^bb2(%x : i32)
^bb1:
  return
^bb2:
  return
}

// -----

func.func @bad_segments(%c: i1) {
  // expected-error @+1 {{'operandSegmentSizes' [1, 1, 0] does not match its 1 operands}}
  "cf.cond_br"(%c) [^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1) -> ()
^bb1:
  return
}

// -----

func.func @bad_condition(%c: i32) {
  // expected-error @+1 {{operand #0 ('condition') must be i1, but got i32}}
  "cf.cond_br"(%c) [^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}
