//! Property test: the parser, verifier and printer never panic, whatever the input.
//!
//! Inputs are the lit suite's files, truncations of each, and seeded random mutations
//! (byte edits and token splices). For every input that parses and verifies, the
//! printed text must parse and verify again and print identically (printing is a
//! fixed point), in both generic and custom form. Every failure must be a diagnostic
//! with a non-empty message that renders.
//!
//! The cases of one chunk share a context (cloning acc's loaded context costs more
//! than a case). The number of cases is bounded by default; the long run takes more,
//! in release mode (docs/testing.md):
//!
//!     ACC_FUZZ_CASES=5000 ACC_FUZZ_CUTS=100000 cargo test --release -p acc-ir --test no_panic

use std::path::Path;

use acc_ir::parser::parse_file;
use acc_ir::printer::{PrintOptions, print_ir};
use acc_ir::{Context, SourceMap, verifier};

/// A small deterministic PRNG (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SPLICES: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    ",",
    ":",
    "=",
    "->",
    "%0",
    "%x#1",
    "^bb0",
    "^bb1:",
    "@f",
    "#map",
    "!t",
    "\"",
    "\"s\"",
    "0x",
    "-",
    "1.5e",
    "i32",
    "tensor<",
    "memref<?x",
    "dense<",
    "loc(",
    "{-#",
    "#-}",
    "// -----",
    "affine_map<(d0) -> (d0",
    "func.func",
    "return",
    "module",
    "\"t.op\"() : () -> ()",
    "\u{e9}",
    "\\",
    "?",
    "*",
];

fn context(allow_unregistered: bool) -> Context {
    let mut ctx = acc_dialects::new_context();
    ctx.allow_unregistered = allow_unregistered;
    ctx
}

/// A bound from the environment variable `name`, or `default`.
fn bound(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Mutations per chunk (`ACC_FUZZ_CASES`).
fn mutations_per_chunk() -> usize {
    bound("ACC_FUZZ_CASES", 150)
}

/// Truncations per chunk at most, evenly spread (`ACC_FUZZ_CUTS`).
fn cuts_per_chunk() -> usize {
    bound("ACC_FUZZ_CUTS", 400)
}

/// Parses, verifies, prints and re-parses `text` in `ctx` (shared by the cases of a
/// chunk); panics only on a real defect. A text naming resources (which a context
/// keeps) runs in fresh contexts instead, so that each case and each printed form
/// must carry its own resources.
fn exercise(shared: &mut Context, text: &str, allow_unregistered: bool) {
    if text.contains("resource") || text.contains("{-#") {
        exercise_in(
            &mut context(allow_unregistered),
            text,
            allow_unregistered,
            true,
        );
    } else {
        exercise_in(shared, text, allow_unregistered, false);
    }
}

fn exercise_in(ctx: &mut Context, text: &str, allow_unregistered: bool, fresh_reparse: bool) {
    ctx.allow_unregistered = allow_unregistered;
    let mut sources = SourceMap::new();
    let file = sources.add("fuzz.mlir", text.to_string());
    let ir = match parse_file(ctx, &sources, file) {
        Ok(ir) => ir,
        Err(d) => {
            assert!(!d.message.is_empty(), "empty parse diagnostic for {text:?}");
            assert!(!sources.render(ctx, &[d]).is_empty());
            return;
        }
    };
    if let Err(diags) = verifier::verify(ctx, &ir) {
        assert!(diags.iter().all(|d| !d.message.is_empty()));
        assert!(!sources.render(ctx, &diags).is_empty());
        return;
    }
    for generic in [false, true] {
        let opts = PrintOptions {
            generic,
            debuginfo: true,
            ..Default::default()
        };
        let first = print_ir(ctx, &ir, &opts);
        let mut fresh;
        let ctx2: &mut Context = if fresh_reparse {
            fresh = context(allow_unregistered);
            &mut fresh
        } else {
            &mut *ctx
        };
        let mut sources2 = SourceMap::new();
        let f2 = sources2.add("printed.mlir", first.clone());
        let ir2 = parse_file(ctx2, &sources2, f2).unwrap_or_else(|d| {
            panic!(
                "printed IR does not parse: {}\n--- input ---\n{text}\n--- printed ---\n{first}",
                d.message
            )
        });
        if let Err(d) = verifier::verify(ctx2, &ir2) {
            panic!(
                "printed IR does not verify: {}\n--- printed ---\n{first}",
                d[0].message
            );
        }
        let second = print_ir(ctx2, &ir2, &opts);
        assert_eq!(
            first, second,
            "printing is not a fixed point for input:\n{text}"
        );
    }
}

fn corpus() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/lit");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "mlir")
                && let Ok(t) = std::fs::read_to_string(&p)
            {
                files.push((p.display().to_string(), t));
            }
        }
    }
    files.sort();
    assert!(files.len() >= 10, "lit corpus not found");
    files
}

/// Splits a file into its `// -----` chunks (each a self-contained input).
fn chunks(text: &str) -> Vec<String> {
    text.split("\n// -----\n").map(str::to_string).collect()
}

#[test]
fn corpus_round_trips() {
    for (name, text) in corpus() {
        for chunk in chunks(&text) {
            eprintln!("{name}");
            // Each in a context of its own: a chunk that registers a resource or
            // declares an alias must not feed the next.
            exercise(&mut context(true), &chunk, true);
            exercise(&mut context(false), &chunk, false);
        }
    }
}

#[test]
fn truncations_never_panic() {
    let most = cuts_per_chunk().max(1);
    for (_, text) in corpus() {
        for chunk in chunks(&text) {
            let cuts: Vec<usize> = (0..=chunk.len())
                .filter(|&i| chunk.is_char_boundary(i))
                .collect();
            // Every cut for small chunks, an even sample for large ones.
            let step = (cuts.len() / most).max(1);
            let mut ctx = context(true);
            for &cut in cuts.iter().step_by(step) {
                exercise(&mut ctx, &chunk[..cut], true);
            }
        }
    }
}

#[test]
fn mutations_never_panic() {
    let mut rng = Rng(0x5EED_ACC0_1234_5678);
    let cases = mutations_per_chunk();
    for (_, text) in corpus() {
        for chunk in chunks(&text) {
            let mut ctx = context(true);
            for _ in 0..cases {
                let mut bytes = chunk.clone().into_bytes();
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(bytes.len() + 1);
                    match rng.below(4) {
                        0 if at < bytes.len() => {
                            bytes.remove(at);
                        }
                        1 if at < bytes.len() => {
                            let alphabet = b" (){}[]<>,:=%^@#!\"0x-.?*\\";
                            bytes[at] = alphabet[rng.below(alphabet.len())];
                        }
                        _ => {
                            let s = SPLICES[rng.below(SPLICES.len())];
                            bytes.splice(at..at, s.bytes());
                        }
                    }
                }
                let mutated = String::from_utf8_lossy(&bytes).into_owned();
                exercise(&mut ctx, &mutated, rng.below(2) == 0);
            }
        }
    }
}

/// The deepest nesting the parser accepts must also verify, print and re-parse (the
/// verifier and printer recurse too), here on a test thread's small stack in debug.
#[test]
fn deepest_accepted_nesting_round_trips() {
    let mut depth = 0;
    for n in (1..200).rev() {
        let text = format!(
            "{}{}",
            "\"t.r\"() ({\n".repeat(n),
            "}) : () -> ()\n".repeat(n)
        );
        let mut ctx = context(true);
        let mut sources = SourceMap::new();
        let f = sources.add("deep.mlir", text.clone());
        if parse_file(&mut ctx, &sources, f).is_ok() {
            depth = n;
            exercise(&mut ctx, &text, true);
            break;
        }
    }
    assert!(depth >= 50, "only {depth} nested regions are accepted");
    let types = format!(
        "\"t.op\"() {{a = {}i32{}}} : () -> ()",
        "tuple<".repeat(150),
        ">".repeat(150)
    );
    exercise(&mut context(true), &types, true);
}

#[test]
fn deep_nesting_is_a_diagnostic() {
    let cases = [
        format!(
            "\"t.op\"() {{a = {}1{}}} : () -> ()",
            "[".repeat(100_000),
            "]".repeat(100_000)
        ),
        format!(
            "\"t.op\"() {{a = {}i32{}}} : () -> ()",
            "tuple<".repeat(50_000),
            ">".repeat(50_000)
        ),
        "\"t.op\"() ({".repeat(20_000),
        format!(
            "\"t.op\"() {{a = dense<{}1{}> : tensor<1xi8>}} : () -> ()",
            "[".repeat(100_000),
            "]".repeat(100_000)
        ),
        format!(
            "\"t.op\"() : () -> () loc({}\"a\"{})",
            "fused[".repeat(10_000),
            "]".repeat(10_000)
        ),
        format!("func.func @f() {{ {} }}", "\"t.r\"() ({ ".repeat(5_000)),
    ];
    for c in cases {
        let mut ctx = context(true);
        let mut sources = SourceMap::new();
        let f = sources.add("deep.mlir", c);
        let err = parse_file(&mut ctx, &sources, f).expect_err("deep nesting must be rejected");
        assert!(
            err.message.contains("nesting deeper than"),
            "{}",
            err.message
        );
    }
}

/// Aliases cannot build types or attributes deeper or larger than the limits.
#[test]
fn alias_expansion_is_bounded() {
    let mut deep = String::from("!t0 = i32\n");
    for i in 1..=300 {
        // Tuples nest freely (complex<complex<...>> is not a valid type).
        deep.push_str(&format!("!t{i} = tuple<!t{}>\n", i - 1));
    }
    deep.push_str("func.func private @f(!t300)\n");
    let mut wide = String::from("!t0 = i32\n");
    for i in 1..=64 {
        wide.push_str(&format!("!t{i} = tuple<!t{}, !t{}>\n", i - 1, i - 1));
    }
    wide.push_str("func.func private @f(!t64)\n");
    let mut attrs = String::from("#a0 = [1]\n");
    for i in 1..=64 {
        attrs.push_str(&format!("#a{i} = [#a{}, #a{}]\n", i - 1, i - 1));
    }
    attrs.push_str("func.func private @f() attributes {x = #a64}\n");
    for text in [deep, wide, attrs] {
        let mut ctx = context(false);
        let mut sources = SourceMap::new();
        let f = sources.add("alias.mlir", text);
        let err = parse_file(&mut ctx, &sources, f).expect_err("expansion limit");
        assert!(err.message.contains("expands to"), "{}", err.message);
    }
}
