// symbol-dce in a nested symbol table: like MLIR's, it should also erase the unused
// private symbols of the modules nested in the one it runs on (their public symbols
// and what those use stay).
//
// RUN: acc-opt --pass symbol-dce %s | FileCheck %s --implicit-check-not=@inner_unused

// CHECK-LABEL: module @inner {
// CHECK-NEXT: func.func @inner_pub() {
// CHECK-NEXT: call @inner_used() : () -> ()
// CHECK: func.func private @inner_used() {
module {
  module @inner {
    func.func private @inner_unused() {
      return
    }
    func.func @inner_pub() {
      func.call @inner_used() : () -> ()
      return
    }
    func.func private @inner_used() {
      return
    }
  }
}
