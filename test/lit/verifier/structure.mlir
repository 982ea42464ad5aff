// Terminators, successors, region shape, symbol tables.
// RUN: acc-opt --split-input-file --verify-diagnostics --allow-unregistered-dialect %s

// expected-error @+1 {{empty block: expect at least a terminator}}
func.func @empty_body() {
^bb0:
}

// -----

func.func @missing_terminator() {
  // expected-error @+1 {{block with no terminator, has 'func.call' as its last operation}}
  func.call @missing_terminator() : () -> ()
}

// -----

func.func @return_not_last() {
  // expected-error @+1 {{'func.return' op must be the last operation in the parent block}}
  return
  "t.op"() : () -> ()
}

// -----

func.func @branch_not_last() {
  // expected-error @+1 {{operation with block successors must terminate its parent block}}
  "t.br"() [^bb1] : () -> ()
  return
^bb1:
  return
}

// -----

func.func @entry_with_predecessor() {
// expected-error @-1 {{entry block of region may not have predecessors}}
^entry:
  "t.br"() [^entry] : () -> ()
}

// -----

func.func private @dup()
// expected-note @-1 {{see existing symbol definition here}}
// expected-error @+1 {{redefinition of symbol named 'dup'}}
func.func private @dup()

// -----

// expected-error @+1 {{'builtin.module' op expects region #0 to have 0 or 1 blocks}}
"builtin.module"() ({
^a:
  "t.x"() : () -> ()
^b:
  "t.y"() : () -> ()
}) : () -> ()
