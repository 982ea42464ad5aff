// Tests of the lit runner itself: %-substitutions in RUN lines.
// RUN: echo "%s" | FileCheck %s --check-prefix=SRC
// SRC: harness/substitutions.mlir
// RUN: echo "%S %p" | FileCheck %s --check-prefix=DIR
// DIR: {{/harness /.*/harness$}}
// RUN: echo '100%%' | FileCheck %s --check-prefix=PCT
// PCT: {{^100%$}}
// RUN: echo hello > %t && FileCheck %s --check-prefix=TMP --input-file %t
// TMP: hello
// RUN: echo "line %(line) %(line+1)" | FileCheck %s --check-prefix=LINE
// LINE: line 10 11
