// Operands must dominate their uses in SSA regions; graph regions are exempt.
// RUN: acc-opt --split-input-file --verify-diagnostics --allow-unregistered-dialect %s

func.func @use_before_def() {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  "t.use"(%x) : (i32) -> ()
  // expected-note @+1 {{operand defined here}}
  %x = "t.def"() : () -> i32
  return
}

// -----

func.func @self_use() {
  // expected-error @+2 {{operand #0 does not dominate this use}}
  // expected-note @+1 {{operand defined here}}
  %x = "t.def"(%x) : (i32) -> i32
  return
}

// -----

func.func @sibling_blocks(%c: i1) {
  "t.cond_br"(%c) [^a, ^b] : (i1) -> ()
^a:
  // expected-note @+1 {{operand defined here}}
  %v = "t.def"() : () -> i32
  "t.br"() [^b] : () -> ()
^b:
  // expected-error @+1 {{operand #0 does not dominate this use}}
  "t.use"(%v) : (i32) -> ()
  return
}

// -----

// Dominating definitions in earlier blocks and enclosing regions are fine.
func.func @fine(%c: i1) {
  %v = "t.def"() : () -> i32
  "t.br"() [^next] : () -> ()
^next:
  "t.region"() ({
    "t.use"(%v) : (i32) -> ()
  }) : () -> ()
  return
}
