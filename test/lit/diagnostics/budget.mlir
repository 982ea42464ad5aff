// Sizes from input are checked against the memory budget (--max-memory, default a
// quarter of the memory the process may use) before anything is allocated, and a loop
// whose trip count alone goes past the interpreter's op limit is refused before it
// starts: errors at the op, not an abort or an hour of work.
// RUN: not acc-run %s --entry huge 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: tensor<100000x100000xf32> needs {{.*}} GiB, more than the memory budget of {{.*}} for one value (--max-memory raises it)
// RUN: not acc-run %s --entry small --max-memory=1K 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: tensor<16x16xf32> needs 8.0 KiB, more than the memory budget of 1.0 KiB
// RUN: acc-run %s --entry small | FileCheck %s --check-prefix=FITS
// FITS: result 0: tensor<16x16xf32> [1, 1,
// RUN: not acc-run %s --entry endless 2>&1 | FileCheck %s --check-prefix=TRIPS
// TRIPS: runs 1000000000000000 iterations of at least 2 ops: more than the {{[0-9]+}} ops left under the interpreter's limit
// RUN: not acc-run %s --entry deep 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: runs 2 iterations of at least {{[0-9]+}} ops: more than the {{9999999[0-9]}} ops left under the interpreter's limit

func.func @huge() -> tensor<100000x100000xf32> {
  %c = arith.constant dense<1.0> : tensor<100000x100000xf32>
  return %c : tensor<100000x100000xf32>
}

func.func @small() -> tensor<16x16xf32> {
  %c = arith.constant dense<1.0> : tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

func.func @endless() -> f32 {
  %f = arith.constant 1.0 : f32
  %lb = arith.constant 0 : index
  %ub = arith.constant 1000000000000000 : index
  %step = arith.constant 1 : index
  %r = loop.for %k = %lb to %ub step %step iter_args(%a = %f) -> (f32) {
    %b = arith.addf %a, %a : f32
    loop.yield %b : f32
  }
  return %r : f32
}

// 28 nested loops of 2 iterations: 2^28 iterations of the innermost body, refused
// before the first (every level of the nest counts, not only the first 16).
func.func @deep() {
  %lb = arith.constant 0 : index
  %ub = arith.constant 2 : index
  %step = arith.constant 1 : index
  loop.for %i0 = %lb to %ub step %step {
    loop.for %i1 = %lb to %ub step %step {
      loop.for %i2 = %lb to %ub step %step {
        loop.for %i3 = %lb to %ub step %step {
          loop.for %i4 = %lb to %ub step %step {
            loop.for %i5 = %lb to %ub step %step {
              loop.for %i6 = %lb to %ub step %step {
                loop.for %i7 = %lb to %ub step %step {
                  loop.for %i8 = %lb to %ub step %step {
                    loop.for %i9 = %lb to %ub step %step {
                      loop.for %i10 = %lb to %ub step %step {
                        loop.for %i11 = %lb to %ub step %step {
                          loop.for %i12 = %lb to %ub step %step {
                            loop.for %i13 = %lb to %ub step %step {
                              loop.for %i14 = %lb to %ub step %step {
                                loop.for %i15 = %lb to %ub step %step {
                                  loop.for %i16 = %lb to %ub step %step {
                                    loop.for %i17 = %lb to %ub step %step {
                                      loop.for %i18 = %lb to %ub step %step {
                                        loop.for %i19 = %lb to %ub step %step {
                                          loop.for %i20 = %lb to %ub step %step {
                                            loop.for %i21 = %lb to %ub step %step {
                                              loop.for %i22 = %lb to %ub step %step {
                                                loop.for %i23 = %lb to %ub step %step {
                                                  loop.for %i24 = %lb to %ub step %step {
                                                    loop.for %i25 = %lb to %ub step %step {
                                                      loop.for %i26 = %lb to %ub step %step {
                                                        loop.for %i27 = %lb to %ub step %step {
                                                          %x = arith.addi %lb, %step : index
                                                          loop.yield
                                                        }
                                                        loop.yield
                                                      }
                                                      loop.yield
                                                    }
                                                    loop.yield
                                                  }
                                                  loop.yield
                                                }
                                                loop.yield
                                              }
                                              loop.yield
                                            }
                                            loop.yield
                                          }
                                          loop.yield
                                        }
                                        loop.yield
                                      }
                                      loop.yield
                                    }
                                    loop.yield
                                  }
                                  loop.yield
                                }
                                loop.yield
                              }
                              loop.yield
                            }
                            loop.yield
                          }
                          loop.yield
                        }
                        loop.yield
                      }
                      loop.yield
                    }
                    loop.yield
                  }
                  loop.yield
                }
                loop.yield
              }
              loop.yield
            }
            loop.yield
          }
          loop.yield
        }
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  return
}
