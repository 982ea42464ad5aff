// The external_resources section is kept and printed back as mlir-opt prints it
// (after the builtin blobs that dense_resource attributes use); groups without
// entries are dropped. Without any blob or external resource no section is printed.
// RUN: acc-opt --allow-unregistered-dialect --split-input-file %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --split-input-file --print-generic %s | acc-opt --allow-unregistered-dialect --split-input-file | FileCheck %s

// CHECK-LABEL: "t.with_external"
// CHECK: {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       blob1: "0x010000000102"
// CHECK-NEXT:     }
// CHECK-NEXT:   },
// CHECK-NEXT:   external_resources: {
// CHECK-NEXT:     mlir_reproducer: {
// CHECK-NEXT:       pipeline: "builtin.module(canonicalize)",
// CHECK-NEXT:       disable_threading: true
// CHECK-NEXT:     },
// CHECK-NEXT:     other: {
// CHECK-NEXT:       x: "y\22z\0A",
// CHECK-NEXT:       "odd key": "0x04000000ABCD",
// CHECK-NEXT:       e: "",
// CHECK-NEXT:       f: false
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
"t.with_external"() {w = dense_resource<blob1> : tensor<2xi8>} : () -> ()
{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(canonicalize)",
      disable_threading: true
    },
    empty: {},
    other: {
      x: "y\"z\0A",
      "odd key": "0x04000000abcd",
      e: "",
      f: false
    }
  },
  dialect_resources: {
    builtin: {
      blob1: "0x010000000102",
      unused: "0x0100000001"
    }
  }
#-}

// -----

// Only external resources: no dialect_resources section.
// CHECK-LABEL: "t.external_only"
// CHECK: {-#
// CHECK-NEXT:   external_resources: {
// CHECK-NEXT:     g: {
// CHECK-NEXT:       k: true
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
"t.external_only"() : () -> ()
{-#
  external_resources: {
    g: {
      k: true
    }
  }
#-}

// -----

// A blob that no printed attribute uses, and a dense_resource without data: nothing
// to print (no empty 'builtin: {}' group).
// CHECK-LABEL: "t.no_blob"
// CHECK-NOT: {-#
// CHECK-NOT: builtin: {
"t.no_blob"() {w = dense_resource<missing> : tensor<2xi8>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      unused: "0x0100000001"
    }
  },
  external_resources: {
    empty: {}
  }
#-}
