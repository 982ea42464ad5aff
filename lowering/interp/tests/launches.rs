//! The asynchronous device program (`hw.launch`, `hw.wait`): a launch's work may run
//! until its token is waited for, so the interpreter refuses every access the tokens
//! do not order, and computes what the program computes when they do.

mod common;

use acc_interp::{Interpreter, Limits};
use common::{numbers, parse, value};

const M: &str = "memref<4xi32>";

/// Runs `@f` of `body` (a function of three `memref<4xi32>` buffers x, y, z on
/// devices @a and @b) on x = 1..4, y and z zero: z's elements, or the error.
fn run(body: &str) -> Result<Vec<f64>, String> {
    let text = format!(
        r#"
hw.device @a kind "accelerator"
hw.device @b kind "dsp"
func.func @f(%x: {M}, %y: {M}, %z: {M}) -> {M} {{
{body}
}}
"#
    );
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, &text);
    let args = vec![
        value(&mut ctx, M, &[1.0, 2.0, 3.0, 4.0]),
        value(&mut ctx, M, &[0.0; 4]),
        value(&mut ctx, M, &[0.0; 4]),
    ];
    Interpreter::new(&ctx, &ir, Limits::default())
        .call("f", args)
        .map(|out| numbers(&out[0]))
        .map_err(|e| e.message)
}

/// A launch on `device` copying `from` into `to`, with `after` tokens.
fn copy(token: &str, device: &str, after: &str, from: &str, to: &str) -> String {
    format!(
        r#"  {token} = hw.launch @{device} {after} ({from}, {to} : {M}, {M}) {{
  ^bb0(%p: {M}, %q: {M}):
    loop.copy %p, %q : {M} to {M}
    hw.yield
  }}"#
    )
}

#[test]
fn a_launch_after_anothers_token_reads_what_it_wrote() {
    let body = [
        copy("%t", "a", "", "%x", "%y"),
        copy("%u", "b", "after(%t)", "%y", "%z"),
        "  hw.wait %u".into(),
        format!("  return %z : {M}"),
    ]
    .join("\n");
    assert_eq!(run(&body), Ok(vec![1.0, 2.0, 3.0, 4.0]));
}

#[test]
fn launches_on_one_device_run_in_order_without_tokens() {
    let body = [
        copy("%t", "a", "", "%x", "%y"),
        copy("%u", "a", "", "%y", "%z"),
        "  hw.wait %u".into(),
        format!("  return %z : {M}"),
    ]
    .join("\n");
    assert_eq!(run(&body), Ok(vec![1.0, 2.0, 3.0, 4.0]));
}

#[test]
fn another_device_reading_a_result_without_its_token_is_an_error() {
    let body = [
        copy("%t", "a", "", "%x", "%y"),
        copy("%u", "b", "", "%y", "%z"),
        "  hw.wait %t, %u".into(),
        format!("  return %z : {M}"),
    ]
    .join("\n");
    let e = run(&body).unwrap_err();
    assert!(
        e.contains("reads cell 0 of a buffer that the hw.launch on @a at")
            && e.contains("writes, without coming after it"),
        "{e}"
    );
}

#[test]
fn the_host_reading_a_result_before_the_wait_is_an_error() {
    let body = [
        copy("%t", "a", "", "%x", "%y"),
        "  %i = arith.constant 2 : index".into(),
        format!("  %v = loop.load %y[%i] : {M}"),
        "  hw.wait %t".into(),
        format!("  return %z : {M}"),
    ]
    .join("\n");
    let e = run(&body).unwrap_err();
    assert!(
        e.contains("reads cell 2 of a buffer that the hw.launch on @a"),
        "{e}"
    );
    assert!(e.contains("before waiting for its token"), "{e}");
}

#[test]
fn the_host_writing_an_input_before_the_wait_is_an_error() {
    let body = [
        copy("%t", "a", "", "%x", "%y"),
        "  %i = arith.constant 0 : index".into(),
        "  %c = arith.constant 9 : i32".into(),
        format!("  loop.store %c, %x[%i] : {M}"),
        "  hw.wait %t".into(),
        format!("  return %z : {M}"),
    ]
    .join("\n");
    let e = run(&body).unwrap_err();
    assert!(
        e.contains("writes cell 0 of a buffer that the hw.launch on @a"),
        "{e}"
    );
    assert!(e.contains("reads, before waiting"), "{e}");
}

#[test]
fn the_host_reading_an_input_a_launch_only_reads_is_allowed() {
    let body = [
        copy("%t", "a", "", "%x", "%y"),
        "  %i = arith.constant 0 : index".into(),
        format!("  %v = loop.load %x[%i] : {M}"),
        format!("  loop.store %v, %z[%i] : {M}"),
        "  hw.wait %t".into(),
        format!("  return %z : {M}"),
    ]
    .join("\n");
    assert_eq!(run(&body), Ok(vec![1.0, 0.0, 0.0, 0.0]));
}

#[test]
fn waiting_for_a_later_launch_ends_those_it_came_after() {
    // %u comes after %t: waiting for %u is waiting for both, so the host may read
    // what %t wrote.
    let body = [
        copy("%t", "a", "", "%x", "%y"),
        copy("%u", "b", "after(%t)", "%x", "%z"),
        "  hw.wait %u".into(),
        "  %i = arith.constant 3 : index".into(),
        format!("  %v = loop.load %y[%i] : {M}"),
        "  %j = arith.constant 0 : index".into(),
        format!("  loop.store %v, %z[%j] : {M}"),
        format!("  return %z : {M}"),
    ]
    .join("\n");
    assert_eq!(run(&body), Ok(vec![4.0, 2.0, 3.0, 4.0]));
}

#[test]
fn returning_before_waiting_is_an_error() {
    let body = [
        copy("%t", "a", "", "%x", "%y"),
        format!("  return %z : {M}"),
    ]
    .join("\n");
    let e = run(&body).unwrap_err();
    assert!(
        e.contains("returned with 1 launches whose tokens nothing waited for"),
        "{e}"
    );
}

#[test]
fn freeing_a_buffer_a_launch_uses_before_the_wait_is_an_error() {
    let body = [
        format!("  %w = loop.alloc() : {M}"),
        copy("%t", "a", "", "%x", "%w"),
        format!("  loop.dealloc %w : {M}"),
        "  hw.wait %t".into(),
        format!("  return %z : {M}"),
    ]
    .join("\n");
    let e = run(&body).unwrap_err();
    assert!(e.contains("frees a buffer that the hw.launch on @a"), "{e}");
}

#[test]
fn a_buffer_in_a_devices_own_memory_may_be_freed_behind_its_launches() {
    // Freed for @a's later launches, which run after this one.
    let local = "memref<4xi32, \"a_local\">";
    let body = [
        format!("  %w = loop.alloc() : {local}"),
        format!(
            r#"  %t = hw.launch @a (%x, %w, %y : {M}, {local}, {M}) {{
  ^bb0(%p: {M}, %l: {local}, %q: {M}):
    loop.copy %p, %l : {M} to {local}
    loop.copy %l, %q : {local} to {M}
    hw.yield
  }}"#
        ),
        format!("  loop.dealloc %w : {local}"),
        "  hw.wait %t".into(),
        format!("  return %y : {M}"),
    ]
    .join("\n");
    assert_eq!(run(&body), Ok(vec![1.0, 2.0, 3.0, 4.0]));
}
