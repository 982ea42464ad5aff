// Tests of the lit runner itself: a test requiring a missing feature is
// unsupported, not run (it would fail).
// REQUIRES: acc-lit-feature-nobody-has
// RUN: false
