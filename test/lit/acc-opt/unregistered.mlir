// Ops, types and attributes of unregistered dialects are errors unless
// --allow-unregistered-dialect, and then are kept opaque and round-trip exactly.
// RUN: acc-opt --split-input-file --verify-diagnostics %s
// RUN: acc-opt --split-input-file --allow-unregistered-dialect %s | FileCheck %s

// CHECK: "foo.op"() {x = 1 : i64} : () -> ()
// expected-error @+1 {{operation 'foo.op' is of an unregistered dialect}}
"foo.op"() {x = 1} : () -> ()

// -----

// CHECK: func.func private @f(!foo.type<1>)
// expected-error @+1 {{dialect 'foo' is not registered}}
func.func private @f(!foo.type<1>)

// -----

// CHECK: func.func private @g() attributes {a = #foo.attr}
// expected-error @+1 {{dialect 'foo' is not registered}}
func.func private @g() attributes {a = #foo.attr}

