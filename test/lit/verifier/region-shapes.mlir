// Region shape messages name the op and the region, as MLIR's do.
// RUN: acc-opt --dialect %S/Inputs/regions.acc --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// expected-error @+1 {{'rg.graph' op expects graph region #0 to have 0 or 1 blocks}}
"rg.graph"() ({
^a:
  "t.x"() : () -> ()
^b:
  "t.y"() : () -> ()
}) : () -> ()

// -----

// A single-block op that is also a graph region reports the single-block rule.
// expected-error @+1 {{'builtin.module' op expects region #0 to have 0 or 1 blocks}}
"builtin.module"() ({
^a:
  "t.x"() : () -> ()
^b:
  "t.y"() : () -> ()
}) : () -> ()
