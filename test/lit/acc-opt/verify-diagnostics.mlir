// --verify-diagnostics checks expected-error/-note/-warning/-remark comments with the
// @+N, @-N, @above and @below designators, like mlir-opt.
// RUN: acc-opt --split-input-file --verify-diagnostics %s

// expected-error @+1 {{unregistered dialect}}
"t.unknown"() : () -> ()

// -----

"t.unknown"() : () -> ()
// expected-error @-1 {{unregistered dialect}}

// -----

"t.unknown"() : () -> ()
// expected-error @above {{unregistered dialect}}

// -----

// expected-error @below {{unregistered dialect}}
"t.unknown"() : () -> ()

// -----

"t.unknown"() : () -> () // expected-error {{operation 't.unknown' is of an unregistered dialect}}

// -----

// expected-error-re @+1 {{operation '{{t\.[a-z]+}}' is of an {{(un)?registered}} dialect}}
"t.unknown"() : () -> ()

// -----

func.func private @dup()
// expected-note-re @-1 {{{{^}}see existing symbol {{definition|declaration}} here{{$}}}}
// expected-error-re @+1 {{redefinition of symbol named '{{.*}}'}}
func.func private @dup()
