// Attributes of unregistered dialects are kept verbatim with --allow-unregistered-dialect.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s

// CHECK: "t.opaque"() {a = #foo.bar<"x" <1>, [2 -> 3]>, b = #foo<"opaque">, c = #foo.flag, d = #foo.typed<1> : i32, e = #arith.fastmath<none>}
"t.opaque"() {a = #foo.bar<"x" <1>, [2 -> 3]>, b = #foo<"opaque">, c = #foo.flag, d = #foo.typed<1> : i32, e = #arith.fastmath<none>} : () -> ()
