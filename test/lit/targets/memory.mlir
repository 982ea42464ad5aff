// A target's memories bound memory-plan's arena: a function whose buffers need more
// than the host's memory at once is an error at the function; one that fits is planned.
// RUN: acc-opt --split-input-file --target %S/Inputs/tiny-mcu.acc --pass memory-plan --verify-diagnostics %s
// RUN: not acc-opt --target %S/Inputs/bad-memory.acc %s 2>&1 | FileCheck %s --check-prefix=BAD

// BAD-DAG: error: memory 'ram' needs a positive size in bytes
// BAD-DAG: error: memory 'ram' is declared twice
// BAD-DAG: error: memory 'ram' names an undeclared device 'dsp'
// BAD-DAG: error: header "npu\".h" is not a plain file name (printable characters, no quotes or angle brackets)
// BAD-DAG: error: memory 'tcm': section "a\"b" is not a plain section name (printable characters, no quotes)
// BAD-DAG: error: device 'core': cycles_per_op 2000000 is outside 0 to 1000000
// BAD-DAG: error: device 'npu': only the host and programmable devices (with a `compiler`) declare cycles_per_op (a device's calls cost what their intrinsics declare)

// Two 256-byte buffers alive together: 512 bytes fit in 1 KiB.
// expected-remark @+1 {{memory-plan: 2 buffers in an arena of 512 bytes (the most alive at once: 512 bytes)}}
func.func @fits(%x: memref<64xf32>) -> memref<64xf32> {
  %a = loop.alloc() : memref<64xf32>
  loop.copy %x, %a : memref<64xf32> to memref<64xf32>
  %b = loop.alloc() : memref<64xf32>
  loop.copy %a, %b : memref<64xf32> to memref<64xf32>
  %r = loop.alloc() : memref<64xf32>
  loop.copy %b, %r : memref<64xf32> to memref<64xf32>
  loop.dealloc %a : memref<64xf32>
  loop.dealloc %b : memref<64xf32>
  return %r : memref<64xf32>
}

// -----

// Two 1 KiB buffers alive together do not.
// expected-error @+1 {{memory-plan: the arena needs 2048 bytes (at least 2048 are alive at once), more than memory 'ram' of the target holds (1024 bytes)}}
func.func @too_big(%x: memref<256xf32>) -> memref<256xf32> {
  %a = loop.alloc() : memref<256xf32>
  loop.copy %x, %a : memref<256xf32> to memref<256xf32>
  %b = loop.alloc() : memref<256xf32>
  loop.copy %a, %b : memref<256xf32> to memref<256xf32>
  %r = loop.alloc() : memref<256xf32>
  loop.copy %b, %r : memref<256xf32> to memref<256xf32>
  loop.dealloc %a : memref<256xf32>
  loop.dealloc %b : memref<256xf32>
  return %r : memref<256xf32>
}
