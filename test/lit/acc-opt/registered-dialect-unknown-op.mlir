// An op of a dialect acc registers but that acc's dialect lacks is an error by
// default (with --allow-unregistered-dialect it is kept opaque: see
// registered-dialect-opaque-op.mlir).
// RUN: acc-opt --verify-diagnostics %s

// expected-error @+1 {{unregistered operation 'func.bogus' found in dialect ('func') that does not allow unknown operations (acc's 'func' lacks it; --allow-unregistered-dialect keeps it opaque)}}
"func.bogus"() : () -> ()
