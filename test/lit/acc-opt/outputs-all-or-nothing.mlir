// Outputs are written all or nothing, checked before the work, with the umask's mode;
// a symbolic link is written through; errors name the user's path.
// RUN: rm -rf %t && mkdir -p %t

// A destination that cannot be written is an error naming it, before any work.
// RUN: not acc-opt %s -o %t/missing/out.mlir 2>&1 | FileCheck %s --check-prefix=BADOUT
// BADOUT: acc-opt: cannot write '{{.*}}/missing/out.mlir': No such file or directory
// RUN: not acc-translate --emit-object %s --target x86_64 -o %t/f.o --header %t/missing/f.h 2>&1 | FileCheck %s --check-prefix=HEADER
// HEADER: acc-translate: cannot write '{{.*}}/missing/f.h'
// RUN: not test -e %t/f.o

// The mode follows the umask; a file replaced keeps its mode.
// RUN: sh -c 'umask 022 && acc-opt %s -o %t/plain.mlir' && stat -c %%a %t/plain.mlir | FileCheck %s --check-prefix=MODE644
// MODE644: 644
// RUN: chmod 600 %t/plain.mlir && acc-opt %s -o %t/plain.mlir && stat -c %%a %t/plain.mlir | FileCheck %s --check-prefix=MODE600
// MODE600: 600

// -o onto a symbolic link replaces the file it points to; the link stays.
// RUN: echo old > %t/real.mlir && ln -s real.mlir %t/link.mlir
// RUN: acc-opt %s -o %t/link.mlir && test -L %t/link.mlir && FileCheck %s --check-prefix=LINK < %t/real.mlir
// LINK: func.func @f

// --emit-c into an existing directory: a failure leaves it as it was.
// RUN: mkdir -p %t/c && not acc-translate --emit-c %s -o %t/c 2>&1 | FileCheck %s --check-prefix=EMITC
// EMITC: tensor<4xf32> has no C type
// RUN: sh -c 'test -z "$(ls -A %t/c)"'

// view-graph writes its file only when the whole pipeline succeeded, and never over
// an input.
// RUN: not acc-opt %s --view-graph=%t/g.dot --pass bufferize
// RUN: not test -e %t/g.dot
// RUN: acc-opt %s --view-graph=%t/g.dot -o /dev/null && FileCheck %s --check-prefix=DOT < %t/g.dot
// DOT: digraph
// RUN: cp %s %t/in.mlir && not acc-opt %t/in.mlir --view-graph=%t/in.mlir 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: view-graph would overwrite '{{.*}}in.mlir', an input of this run
// RUN: cmp %s %t/in.mlir

// No temporary file is left behind.
// RUN: sh -c 'test -z "$(ls -A %t | grep acc-out)"'

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
