// --verify-each=false is MLIR's flag for not verifying after each pass; as in
// mlir-opt, the parsed input must still be verified (mlir-opt --verify-each=false
// rejects Inputs/invalid-input.mlir). --no-verify is acc's flag for skipping both.
//
// RUN: not acc-opt --verify-each=false %S/Inputs/invalid-input.mlir 2>&1 | FileCheck %s
// RUN: not acc-opt --verify-each=false --pass cse %S/Inputs/invalid-input.mlir 2>&1 | FileCheck %s
// CHECK: error: 'func.return' op type of return operand 0 (i32) doesn't match function result type (i64) in function @f
