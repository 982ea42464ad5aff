// Out of range for i0, for 128 bits and for 200 bits, a negative unsigned wide
// literal, and a malformed distinct attribute.
// RUN: acc-opt --verify-diagnostics --split-input-file %s

func.func @f() {
  // expected-error @+1 {{integer constant out of range for 0-bit type}}
  %0 = arith.constant 1 : i0
  return
}

// -----

func.func @g() {
  // expected-error @+1 {{integer literal is too large}}
  %0 = arith.constant 340282366920938463463374607431768211456 : i128
  return
}

// -----

func.func @wide_out_of_range() {
  // expected-error @+1 {{integer constant out of range for 200-bit type}}
  %0 = arith.constant 3213876088517980551083924184682325205044405987565585670602752 : i200
  return
}

// -----

// expected-error @+1 {{negative integer literal not valid for unsigned integer type}}
func.func @wide_unsigned() attributes {v = -1 : ui200} {
  return
}

// -----

// expected-error @+1 {{expected the distinct attribute's number}}
func.func @h() attributes {a = distinct[x]<unit>} {
  return
}
