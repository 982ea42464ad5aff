// --timing should account for the whole run, as --mlir-timing does: what the listed
// parts (Parser, the pipeline, Output) do not cover is reported on a "Rest" line, so
// that the top-level lines add up to the Total.
//
// RUN: acc-opt --pass cse --timing %s -o %t 2>&1 | FileCheck %s --strict-whitespace
// CHECK: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Output{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Rest{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \(100\.0%\)}}  Total{{$}}
func.func @f(%x: i32) -> i32 {
  return %x : i32
}
