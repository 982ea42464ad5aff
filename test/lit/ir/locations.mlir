// Locations: unknown, file:line:col (and ranges), names, call sites, fused (with
// metadata), and #loc aliases, including aliases defined after their use as MLIR
// prints them.
// RUN: acc-opt --allow-unregistered-dialect --print-debuginfo %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-debuginfo --print-generic %s | acc-opt --allow-unregistered-dialect --print-debuginfo | FileCheck %s
// Without --print-debuginfo no location is printed.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s --check-prefix=NOLOC

// NOLOC-NOT: loc(

// CHECK: "t.a"() : () -> () loc(unknown)
"t.a"() : () -> () loc(unknown)
// CHECK: "t.b"() : () -> () loc("x.mlir":10:20)
"t.b"() : () -> () loc("x.mlir":10:20)
// CHECK: "t.c"() : () -> () loc("r.mlir":1:2 to 3:4)
"t.c"() : () -> () loc("r.mlir":1:2 to 3:4)
// CHECK: "t.d"() : () -> () loc("name"("f.mlir":1:2))
"t.d"() : () -> () loc("name"("f.mlir":1:2))
// CHECK: "t.e"() : () -> () loc("just a name")
"t.e"() : () -> () loc("just a name")
// CHECK: "t.f"() : () -> () loc(callsite("callee.mlir":1:1 at "caller.mlir":2:2))
"t.f"() : () -> () loc(callsite("callee.mlir":1:1 at "caller.mlir":2:2))
// CHECK: "t.g"() : () -> () loc(fused["a", "b.mlir":3:3])
"t.g"() : () -> () loc(fused["a", "b.mlir":3:3])
// CHECK: "t.h"() : () -> () loc(fused<"meta">["a"])
"t.h"() : () -> () loc(fused<"meta">["a"])
// CHECK: "t.i"() : () -> () loc("later.mlir":5:6)
"t.i"() : () -> () loc(#later)
// CHECK: "t.j"() ({
// CHECK-NEXT: ^bb0(%arg0: i32 loc("arg.mlir":1:1)):
"t.j"() ({
^bb0(%a: i32 loc("arg.mlir":1:1)):
  "t.k"() : () -> ()
}) : () -> ()
// Ops without a loc get the position where they were parsed.
// CHECK: "t.l"() : () -> () loc("{{.*}}locations.mlir":[[# @LINE + 1]]:1)
"t.l"() : () -> ()
// As in MLIR, that is the position of the op's name, after its results.
// CHECK: %0 = "t.m"() : () -> i32 loc("{{.*}}locations.mlir":[[# @LINE + 1]]:8)
  %m = "t.m"() : () -> i32
// CHECK: %1:2 = "t.m2"() : () -> (i32, i32) loc("{{.*}}locations.mlir":[[# @LINE + 1]]:14)
%m2a, %m2b = "t.m2"() : () -> (i32, i32)
// Block and function arguments without a loc are located at their %name.
// CHECK: ^bb0(%arg0: i32 loc("{{[^"]*}}locations.mlir":[[# @LINE + 3]]:6), %arg1: f32 loc("{{[^"]*}}locations.mlir":[[# @LINE + 3]]:15)):
// CHECK-NEXT: "t.o"() : () -> () loc("{{.*}}locations.mlir":[[# @LINE + 3]]:3)
"t.n"() ({
^bb0(%a: i32, %b: f32):
  "t.o"() : () -> ()
}) : () -> ()
// CHECK: func.func @args(%arg0: i32 loc("{{.*}}locations.mlir":[[# @LINE + 1]]:17), %arg1: i64 loc("y.mlir":2:2))
func.func @args(%a: i32, %b: i64 loc("y.mlir":2:2)) {
  return
}
#later = loc("later.mlir":5:6)

// Fused locations are normalised as MLIR's FusedLoc::get does: unknown entries and
// duplicates dropped, nested fused locations with the same metadata flattened, one
// location left without metadata is that location, none left is unknown.
// CHECK: "t.fused1"() : () -> () loc("a":1:1)
"t.fused1"() : () -> () loc(fused[unknown, "a":1:1])
// CHECK: "t.fused2"() : () -> () loc(unknown)
"t.fused2"() : () -> () loc(fused[unknown])
// CHECK: "t.fused3"() : () -> () loc(unknown)
"t.fused3"() : () -> () loc(fused[])
// CHECK: "t.fused4"() : () -> () loc(fused<"m">[unknown])
"t.fused4"() : () -> () loc(fused<"m">[])
// CHECK: "t.fused5"() : () -> () loc(fused["a":1:1, "b":1:1])
"t.fused5"() : () -> () loc(fused["a":1:1, "a":1:1, unknown, "b":1:1])
// CHECK: "t.fused6"() : () -> () loc(fused<"m">["a":1:1, "c":3:3, "b":2:2])
"t.fused6"() : () -> () loc(fused<"m">[fused<"m">["a":1:1, "c":3:3], "b":2:2, "a":1:1])
// CHECK: "t.fused7"() : () -> () loc(fused["a":1:1, fused<"m">["b":1:1, "c":1:1]])
"t.fused7"() : () -> () loc(fused["a":1:1, fused<"m">["b":1:1, "c":1:1]])
// CHECK: "t.fused8"() : () -> () loc(fused<"m">["x":1:1])
"t.fused8"() : () -> () loc(fused<"m">[unknown, "x":1:1])
// CHECK: "t.fused9"() : () -> () loc(fused<"m">[unknown])
"t.fused9"() : () -> () loc(fused[fused<"m">[unknown]])

// The implicit module around the top-level ops is located at line 0, column 0.
// CHECK: } loc("{{.*}}locations.mlir":0:0)
