// symbol-dce: erases the private symbols of the module that nothing live references,
// repeatedly (erasing one may orphan another). Public symbols are live; so is whatever
// a live symbol references, through calls or symbol references in attributes.
// RUN: acc-opt --pass symbol-dce %s | FileCheck %s --implicit-check-not=@unused --implicit-check-not=@only_from_unused --implicit-check-not=@self_recursive --implicit-check-not=@unused_decl --implicit-check-not=@private_module
// RUN: acc-opt --symbol-dce %s | FileCheck %s --implicit-check-not=@unused --implicit-check-not=@only_from_unused --implicit-check-not=@self_recursive --implicit-check-not=@unused_decl --implicit-check-not=@private_module
// RUN: acc-opt --print-generic %s | acc-opt --pass symbol-dce | FileCheck %s --implicit-check-not=@unused --implicit-check-not=@only_from_unused --implicit-check-not=@self_recursive --implicit-check-not=@unused_decl --implicit-check-not=@private_module
// RUN: acc-opt --pass-pipeline='builtin.module(symbol-dce)' %s | FileCheck %s --implicit-check-not=@unused --implicit-check-not=@only_from_unused --implicit-check-not=@self_recursive --implicit-check-not=@unused_decl --implicit-check-not=@private_module
// It runs on the module: nesting it under func.func is an error.
// RUN: not acc-opt --pass-pipeline='builtin.module(func.func(symbol-dce))' %s 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: error: pass 'symbol-dce' runs on 'builtin.module', but is nested under 'func.func'

// CHECK-LABEL: module {
// CHECK-NEXT: func.func @main(%arg0: i32) -> i32 {
// CHECK-NEXT: %{{.*}} = call @used(%arg0) : (i32) -> i32
// CHECK: func.func private @used(
// CHECK-NEXT: call @transitive(
// CHECK: func.func private @transitive(
// CHECK: func.func @public_unused() {
// CHECK: func.func private @used_decl(i32) -> i32
// CHECK: func.func @uses_decl(
// CHECK-NEXT: call @used_decl(
// CHECK: func.func @by_attributes() attributes {refs = [@by_array, {key = @by_dict}]} {
// CHECK: func.func private @by_array() {
// CHECK: func.func private @by_dict() {
// CHECK: module @public_module {
// CHECK-NEXT: func.func @inside() {
module {
  func.func @main(%x: i32) -> i32 {
    %r = func.call @used(%x) : (i32) -> i32
    return %r : i32
  }
  func.func private @used(%x: i32) -> i32 {
    %r = func.call @transitive(%x) : (i32) -> i32
    return %r : i32
  }
  func.func private @transitive(%x: i32) -> i32 {
    return %x : i32
  }
  // Unused; and what only it uses goes with it.
  func.func private @unused(%x: i32) -> i32 {
    %r = func.call @only_from_unused(%x) : (i32) -> i32
    return %r : i32
  }
  func.func private @only_from_unused(%x: i32) -> i32 {
    return %x : i32
  }
  // Used only by itself: dead.
  func.func private @self_recursive(%x: i32) -> i32 {
    %r = func.call @self_recursive(%x) : (i32) -> i32
    return %r : i32
  }
  func.func @public_unused() {
    return
  }
  func.func private @unused_decl(i32) -> i32
  func.func private @used_decl(i32) -> i32
  func.func @uses_decl(%x: i32) -> i32 {
    %r = func.call @used_decl(%x) : (i32) -> i32
    return %r : i32
  }
  func.func @by_attributes() attributes {refs = [@by_array, {key = @by_dict}]} {
    return
  }
  func.func private @by_array() {
    return
  }
  func.func private @by_dict() {
    return
  }
  module @public_module {
    func.func @inside() {
      return
    }
  }
  module @private_module attributes {sym_visibility = "private"} {
    func.func @inside_private() {
      return
    }
  }
}
