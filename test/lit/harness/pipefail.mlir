// Tests of the lit runner itself: a pipeline fails when any stage fails
// (pipefail), so this expected failure does fail.
// XFAIL: *
// RUN: false | cat
