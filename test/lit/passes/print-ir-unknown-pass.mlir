// --print-ir-before/--print-ir-after name passes: a name that is no registered pass
// (a typo) should be an error, as in mlir-opt ("Cannot find option named 'bogus'"),
// rather than silently dumping nothing.
//
// RUN: not acc-opt --pass cse --print-ir-after=canonicalizer %s 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not acc-opt --pass cse --print-ir-before=bogus %s 2>&1 | FileCheck %s --check-prefix=BEFORE
// AFTER: canonicalizer
// BEFORE: bogus
func.func @f(%x: i32) -> i32 {
  return %x : i32
}
