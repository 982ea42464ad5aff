// Out of range for i0 and for 128 bits, and a malformed distinct attribute.
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

// expected-error @+1 {{expected the distinct attribute's number}}
func.func @h() attributes {a = distinct[x]<unit>} {
  return
}
