// Integer and index types: signless, signed, unsigned, sub-byte and wide widths.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: "t.ints"
// CHECK-SAME: a = i1, b = i2, c = i4, d = i8, e = si8, f = ui8, g = i64, h = i128, i = i4096, j = index
"t.ints"() {a = i1, b = i2, c = i4, d = i8, e = si8, f = ui8, g = i64, h = i128, i = i4096, j = index} : () -> ()

// CHECK: %[[V:[0-9]+]]:4 = "t.def"() : () -> (i1, i2, ui4, si16)
%v:4 = "t.def"() : () -> (i1, i2, ui4, si16)
// CHECK: "t.use"(%[[V]]#0, %[[V]]#3) : (i1, si16) -> ()
"t.use"(%v#0, %v#3) : (i1, si16) -> ()
