// Mistakes in a target file are diagnostics that point into it; nothing is written.
// RUN: not acc-opt --target %S/Inputs/bad-target.acc %s 2>&1 | FileCheck %s
// RUN: not acc-opt --target %S/Inputs/two-targets.acc %s 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not acc-opt --target %S/Inputs/no-such-file.acc %s 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK-DAG: error: device 'cpu' is declared twice
// CHECK-DAG: bad-target.acc:3:3
// CHECK-DAG: error: two kernels implement 'gemm'
// CHECK-DAG: bad-target.acc:5:3
// CHECK-DAG: error: unknown kernel interface 'fft': acc's host lowering calls gemm, packed-gemm, strided-gemm, conv, depthwise, blocked, blocked-grouped, blocked-depthwise, blocked-pool, blocked-nchw-input, exp, exp-neg, erf, tanh
// CHECK-DAG: bad-target.acc:6:3
// CHECK-DAG: error: device 'main': the host is not submitted work to (submit names a device's start function)
// CHECK-DAG: bad-target.acc:7:3
// CHECK-DAG: error: device 'npu': a clause given twice
// CHECK-DAG: bad-target.acc:8:51
// CHECK-DAG: error: device 'dsp': `compiler` names the command building a programmable device's own C file (not empty, not on the host)
// CHECK-DAG: bad-target.acc:9:3
// CHECK-DAG: error: code 'npu_relu' runs on device 'npu', which compiles no code of its own (give it `compiler "CC"` or `external "COMMAND"`)
// CHECK-DAG: bad-target.acc:10:20
// CHECK-DAG: error: device 'arm': `compiler` names the command building a programmable device's own C file (not empty, not on the host)
// CHECK-DAG: bad-target.acc:15:3
// CHECK-DAG: error: device 'vpu': a programmable device needs `submit FUNCTION`, which starts its work (its code goes to its own C file, run by it)
// CHECK-DAG: bad-target.acc:16:3
// CHECK-DAG: error: device 'npu2': a compiler command and flags are printable characters on one line, without `*/` (the C file's first comment gives them)
// CHECK-DAG: bad-target.acc:17:3
// CHECK-DAG: error: device 'vec1': vector_bits is a power of two from 64 to 4096
// CHECK-DAG: bad-target.acc:18:3
// CHECK-DAG: error: device 'vec2': only a programmable device (with a `compiler`) declares vector_bits (the vector types its compiler takes)
// CHECK-DAG: bad-target.acc:19:3
// CHECK-DAG: error: device 'ext1': `external` names the command of a vendor compiler building its regions (the command names where it writes the C function, {output}, or its object file, {object}: one of them)
// CHECK-DAG: bad-target.acc:20:3
// CHECK-DAG: error: device 'ext2': `external` names the command of a vendor compiler building its regions (the host's code is acc's own)
// CHECK-DAG: bad-target.acc:21:3
// CHECK-DAG: error: signal: names an undeclared device 'nowhere'
// CHECK-DAG: bad-target.acc:22:17
// CHECK-DAG: error: signal: 'npu' signals itself (a device runs its own work in order)
// CHECK-DAG: bad-target.acc:23:17
// CHECK-DAG: error: signal: 'npu' -> 'vec1' is declared twice
// CHECK-DAG: bad-target.acc:24:23
// CHECK-DAG: error: signal: names device 'cpu', which is not started by `submit` (the host runs its work where it is issued, or is the host)
// CHECK-DAG: bad-target.acc:25:10
// CHECK-DAG: error: device 'ext3': `external` names the command of a vendor compiler building its regions (the command names where it writes the C function, {output}, or its object file, {object}: one of them)
// CHECK-DAG: bad-target.acc:26:3
// TWO: error: a target file declares exactly one target (`target NAME { ... }`), not 2
// MISSING: no-such-file.acc
func.func @f() {
  return
}

// Numbers out of range, an empty kind and a second host are refused when the file loads.
// RUN: not acc-opt --target %S/Inputs/bad-numbers.acc %s 2>&1 | FileCheck %s --check-prefix=NUMBERS
// NUMBERS-DAG: error: device 'npu': its kind is empty
// NUMBERS-DAG: bad-numbers.acc:3:3
// NUMBERS-DAG: error: device 'cpu2': a target has one host, and it declares one already
// NUMBERS-DAG: bad-numbers.acc:4:3
// NUMBERS-DAG: error: a DMA's setup is a number of cycles from 0 to 1099511627776
// NUMBERS-DAG: bad-numbers.acc:7:54
// RUN: not acc-opt --target %S/Inputs/bad-costs.acc %s 2>&1 | FileCheck %s --check-prefix=COSTS
// COSTS-DAG: error: a cost is a number of cycles from 0 to 1099511627776
// COSTS-DAG: bad-costs.acc:8:10
// COSTS-DAG: error: a peak is from 1 to 1099511627776 MACs a cycle
// COSTS-DAG: bad-costs.acc:9:31

// requant_scales takes the matched op's input, weights and result, in that order.
// RUN: not acc-opt --target %S/Inputs/bad-roles.acc %s 2>&1 | FileCheck %s --check-prefix=ROLES
// ROLES-DAG: error: requant_scales takes the input (operand 0 of the matched op) here, %x, not %y
// ROLES-DAG: bad-roles.acc:7:41
// ROLES-DAG: error: requant_scales takes the matched op's result here, %y, not %x
// ROLES-DAG: bad-roles.acc:7:49
// An offset or clamp of another operand or result than its own.
// ROLES-DAG: error: 'input2_offset' is zero_point of the matched op's second input (operand 1), %b, not of %y
// ROLES-DAG: bad-roles.acc:19:40
// ROLES-DAG: error: 'output_offset' is zero_point of the matched op's result, %y, not of %a
// ROLES-DAG: bad-roles.acc:25:36
// ROLES-DAG: error: 'act_min' is act_min of the matched op's result, %y, not of %b
// ROLES-DAG: bad-roles.acc:25:58

// An expression deeper than 1000 levels is refused before anything walks it.
// RUN: not acc-opt --target %S/Inputs/deep-expression.acc %s 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: error: expression too deep: its operators nest 1500 levels, more than 1000
// DEEP: deep-expression.acc:9:10
