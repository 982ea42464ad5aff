// An opaque attribute or type of an unregistered dialect that references an alias
// keeps its meaning when printed: acc prints no alias definitions, so the reference
// is written out as the aliased value (mlir-opt reads the result as the same IR).
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s

#greeting = "goodbye"
#nested = #test.conditional_alias<#greeting>
!pair = tuple<i32, f32>

// CHECK-LABEL: "test.op"() {attr = #test.conditional_alias<"goodbye">}
"test.op"() {attr = #test.conditional_alias<#greeting>} : () -> ()

// An alias whose value is itself an opaque body with a reference.
// CHECK-NEXT: "test.op"() {attr = #test.wrap<#test.conditional_alias<"goodbye">>}
"test.op"() {attr = #test.wrap<#nested>} : () -> ()

// Type aliases too; a string that spells an alias, a dialect attribute (`#a.b`, `#a<`)
// and an undefined name stay as written.
// CHECK-NEXT: = "test.op"() : () -> !test.wrap<tuple<i32, f32>, "#greeting", #test.greeting, #greeting<1>, #unknown>
"test.op"() : () -> !test.wrap<!pair, "#greeting", #test.greeting, #greeting<1>, #unknown>
