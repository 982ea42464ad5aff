// Not a test: the runner skips directories named Inputs.
// RUN: false
value = 42
