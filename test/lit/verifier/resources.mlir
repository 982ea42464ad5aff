// Resource sections are checked as mlir-opt checks them: only the builtin dialect has
// dialect resources, even with --allow-unregistered-dialect; blobs are "0x" hex
// strings that start with a 4-byte alignment.
// RUN: acc-opt --split-input-file --verify-diagnostics --allow-unregistered-dialect %s

"t.a"() : () -> ()
{-#
  dialect_resources: {
    // expected-error @+1 {{dialect 'tdial' is unknown}}
    tdial: {
      k: "0x04000000"
    }
  }
#-}

// -----

"t.a"() : () -> ()
{-#
  dialect_resources: {
    arith: {
      // expected-error @+1 {{unexpected 'resource' section for dialect 'arith'}}
      k: "0x04000000"
    }
  }
#-}

// -----

"t.a"() : () -> ()
{-#
  external_resources: {
    g: {
      // expected-error @+1 {{expected hex string blob for key 'k' to encode alignment in first 4 bytes}}
      k: "0x0102"
    }
  }
#-}

// -----

"t.a"() : () -> ()
{-#
  external_resources: {
    g: {
      // expected-error @+1 {{expected hex string blob for key 'k'}}
      k: "0x04000000z"
    }
  }
#-}

// -----

// One "0x" prefix only: a second one is not hex digits.
"t.a"() : () -> ()
{-#
  dialect_resources: {
    builtin: {
      // expected-error @+1 {{expected hex string blob for key 'k'}}
      k: "0x0x04000000"
    }
  }
#-}

// -----

"t.a"() {v = dense<"0x0x0000803F"> : tensor<1xf32>} : () -> ()
// expected-error @-1 {{expected a "0x..." hex string in dense<...>}}
