// Invalid IR (the returned type is not the function's result type), for
// verify-each.mlir and verify-each-input.mlir.
func.func @f(%x: i32) -> i64 {
  return %x : i32
}
