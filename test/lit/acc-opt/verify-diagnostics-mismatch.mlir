// A wrong or missing expectation fails --verify-diagnostics and says why.
// RUN: not acc-opt --verify-diagnostics --split-input-file %s 2>&1 | FileCheck %s

// CHECK: unexpected error: operation 't.unknown' is of an unregistered dialect
// CHECK: expected error "this message is not produced" was not produced
// expected-error @+1 {{this message is not produced}}
"t.unknown"() : () -> ()

// -----

// CHECK: expected error "never" was not produced
// expected-error {{never}}
func.func private @fine()

// -----

// Outside {{...}} the text of an expected-*-re is literal: '.' is not a wildcard.
// CHECK: expected error "operation 't.unknown' is of an {{[{][{]}}.*{{[}][}]}} dialect. " was not produced
// expected-error-re @+1 {{operation 't.unknown' is of an {{.*}} dialect. }}
"t.unknown"() : () -> ()

// -----

// CHECK: error: invalid regex '(': {{.*}}
// expected-error-re @+1 {{a {{(}} b}}
"t.unknown"() : () -> ()
