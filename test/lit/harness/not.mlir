// Tests of the lit runner itself: `not` inverts exit codes, `not --crash`
// expects a signal, and a signal under plain `not` is a failure (exit 1; the
// last line checks that through sh, as lit's shell evaluates `not not` itself).
// RUN: not false
// RUN: not sh -c 'exit 3'
// RUN: not not true
// RUN: not --crash sh -c 'kill -KILL $$'
// RUN: not not --crash sh -c 'exit 1'
// RUN: not sh -c 'not sh -c "kill -TERM \$\$"'
