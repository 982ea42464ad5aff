// An unknown op of a registered dialect is an error even with
// --allow-unregistered-dialect, as in MLIR.
// RUN: acc-opt --verify-diagnostics %s
// RUN: acc-opt --verify-diagnostics --allow-unregistered-dialect %s

// expected-error @+1 {{unregistered operation 'func.bogus' found in dialect ('func') that does not allow unknown operations}}
"func.bogus"() : () -> ()
