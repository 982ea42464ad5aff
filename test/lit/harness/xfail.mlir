// Tests of the lit runner itself: an XFAIL test must fail.
// XFAIL: *
// RUN: false
