// Tests of the lit runner itself: a RUN line continued with '\'.
// RUN: echo one \
// RUN:   two \
// RUN:   three | FileCheck %s
// CHECK: one two three
