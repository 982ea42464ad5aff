// An opaque attribute or type of an unregistered dialect that references an alias
// keeps its meaning when printed: acc prints no alias definitions, so the reference
// is written out as the aliased value (mlir-opt reads the result as the same IR).
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s

#greeting = "goodbye"
#nested = #vendor.conditional_alias<#greeting>
!pair = tuple<i32, f32>

// CHECK-LABEL: "vendor.op"() {attr = #vendor.conditional_alias<"goodbye">}
"vendor.op"() {attr = #vendor.conditional_alias<#greeting>} : () -> ()

// An alias whose value is itself an opaque body with a reference.
// CHECK-NEXT: "vendor.op"() {attr = #vendor.wrap<#vendor.conditional_alias<"goodbye">>}
"vendor.op"() {attr = #vendor.wrap<#nested>} : () -> ()

// Type aliases too; a string that spells an alias, a dialect attribute (`#a.b`, `#a<`)
// and an undefined name stay as written.
// CHECK-NEXT: = "vendor.op"() : () -> !vendor.wrap<tuple<i32, f32>, "#greeting", #vendor.greeting, #greeting<1>, #unknown>
"vendor.op"() : () -> !vendor.wrap<!pair, "#greeting", #vendor.greeting, #greeting<1>, #unknown>
