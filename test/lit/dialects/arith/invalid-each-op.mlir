// One verifier error per arith op (the common cases are in invalid.mlir).
// RUN: acc-opt --split-input-file --verify-diagnostics %s

func.func @addi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.addi' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.addi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @subi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.subi' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.subi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @muli(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.muli' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.muli"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @shli(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.shli' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.shli"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @divsi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.divsi' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.divsi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @divui(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.divui' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.divui"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @ceildivsi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.ceildivsi' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.ceildivsi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @ceildivui(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.ceildivui' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.ceildivui"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @floordivsi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.floordivsi' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.floordivsi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @remsi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.remsi' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.remsi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @remui(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.remui' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.remui"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @andi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.andi' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.andi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @ori(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.ori' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.ori"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @xori(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.xori' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.xori"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @shrsi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.shrsi' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.shrsi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @shrui(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.shrui' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.shrui"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @maxsi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.maxsi' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.maxsi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @maxui(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.maxui' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.maxui"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @minsi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.minsi' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.minsi"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @minui(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.minui' op requires the same type for all operands and results (SameOperandsAndResultType), but found i32 and i64}}
  %0 = "arith.minui"(%a, %b) : (i32, i64) -> i32
  return
}

// -----

func.func @addf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.addf' op requires the same type for all operands and results (SameOperandsAndResultType), but found f32 and f16}}
  %0 = "arith.addf"(%x, %h) : (f32, f16) -> f32
  return
}

// -----

func.func @subf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.subf' op requires the same type for all operands and results (SameOperandsAndResultType), but found f32 and f16}}
  %0 = "arith.subf"(%x, %h) : (f32, f16) -> f32
  return
}

// -----

func.func @mulf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.mulf' op requires the same type for all operands and results (SameOperandsAndResultType), but found f32 and f16}}
  %0 = "arith.mulf"(%x, %h) : (f32, f16) -> f32
  return
}

// -----

func.func @divf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.divf' op requires the same type for all operands and results (SameOperandsAndResultType), but found f32 and f16}}
  %0 = "arith.divf"(%x, %h) : (f32, f16) -> f32
  return
}

// -----

func.func @remf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.remf' op requires the same type for all operands and results (SameOperandsAndResultType), but found f32 and f16}}
  %0 = "arith.remf"(%x, %h) : (f32, f16) -> f32
  return
}

// -----

func.func @maximumf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.maximumf' op requires the same type for all operands and results (SameOperandsAndResultType), but found f32 and f16}}
  %0 = "arith.maximumf"(%x, %h) : (f32, f16) -> f32
  return
}

// -----

func.func @minimumf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.minimumf' op requires the same type for all operands and results (SameOperandsAndResultType), but found f32 and f16}}
  %0 = "arith.minimumf"(%x, %h) : (f32, f16) -> f32
  return
}

// -----

func.func @maxnumf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.maxnumf' op requires the same type for all operands and results (SameOperandsAndResultType), but found f32 and f16}}
  %0 = "arith.maxnumf"(%x, %h) : (f32, f16) -> f32
  return
}

// -----

func.func @minnumf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.minnumf' op requires the same type for all operands and results (SameOperandsAndResultType), but found f32 and f16}}
  %0 = "arith.minnumf"(%x, %h) : (f32, f16) -> f32
  return
}

// -----

func.func @negf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.negf' op operand #0 ('operand') must be FloatLike}}
  %0 = "arith.negf"(%a) : (i32) -> i32
  return
}

// -----

func.func @addui_extended(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.addui_extended' op result #1 ('overflow') must be BoolLike}}
  %0:2 = "arith.addui_extended"(%a, %a) : (i32, i32) -> (i32, i32)
  return
}

// -----

func.func @mului_extended(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.mului_extended' op requires the same type for 'lhs' and 'high' (AllTypesMatch), but found i32 and i64}}
  %0:2 = "arith.mului_extended"(%a, %a) : (i32, i32) -> (i32, i64)
  return
}

// -----

func.func @constant(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.constant' op attribute 'value' must be of kind 'typed'}}
  %0 = "arith.constant"() <{value = "text"}> : () -> i32
  return
}

// -----

func.func @cmpi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.cmpi' op requires all operands to have the same type (SameTypeOperands), but found i32 and i64}}
  %0 = "arith.cmpi"(%a, %b) <{predicate = 0 : i64}> : (i32, i64) -> i1
  return
}

// -----

func.func @cmpf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.cmpf' op requires attribute 'predicate'}}
  %0 = "arith.cmpf"(%x, %x) : (f32, f32) -> i1
  return
}

// -----

func.func @select(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.select' op operand #0 ('condition') must be BoolLike}}
  %0 = "arith.select"(%a, %a, %a) : (i32, i32, i32) -> i32
  return
}

// -----

func.func @extsi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.extsi' op operand #0 ('in') must be IntLike}}
  %0 = arith.extsi %x : f32 to f64
  return
}

// -----

func.func @extui(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.extui' op result type must be wider than the operand type: 8 bits vs 32}}
  %0 = arith.extui %a : i32 to i8
  return
}

// -----

func.func @trunci(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.trunci' op result type must be narrower than the operand type: 64 bits vs 32}}
  %0 = arith.trunci %a : i32 to i64
  return
}

// -----

func.func @extf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.extf' op result type must be wider than the operand type: 16 bits vs 32}}
  %0 = arith.extf %x : f32 to f16
  return
}

// -----

func.func @truncf(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.truncf' op operand #0 ('in') must be FloatLike}}
  %0 = arith.truncf %a : i32 to i8
  return
}

// -----

func.func @sitofp(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.sitofp' op operand #0 ('in') must be IntLike}}
  %0 = arith.sitofp %x : f32 to f32
  return
}

// -----

func.func @uitofp(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.uitofp' op result #0 ('out') must be FloatLike}}
  %0 = arith.uitofp %a : i32 to i32
  return
}

// -----

func.func @fptosi(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.fptosi' op operand #0 ('in') must be FloatLike}}
  %0 = arith.fptosi %a : i32 to i32
  return
}

// -----

func.func @fptoui(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.fptoui' op result #0 ('out') must be IntLike}}
  %0 = arith.fptoui %x : f32 to f32
  return
}

// -----

func.func @index_cast(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.index_cast' op casts between index and an integer type: exactly one side must be index}}
  %0 = arith.index_cast %i : index to index
  return
}

// -----

func.func @index_castui(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.index_castui' op operand #0 ('in') must be IndexLike}}
  %0 = arith.index_castui %x : f32 to index
  return
}

// -----

func.func @bitcast(%a: i32, %b: i64, %x: f32, %h: f16, %i: index) {
  // expected-error @+1 {{'arith.bitcast' op operand and result must have the same bit width}}
  %0 = arith.bitcast %x : f32 to i16
  return
}
