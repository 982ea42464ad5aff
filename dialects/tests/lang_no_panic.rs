//! The dialect-language loader never panics: every truncation and seeded mutations of
//! the lit suite's dialect files either load or produce diagnostics that render.

use acc_ir::SourceMap;

fn load(text: &str) {
    let mut ctx = acc_dialects::new_context();
    let mut sources = SourceMap::new();
    let file = sources.add("fuzz.acc", text.to_string());
    if let Err(diags) = acc_dialects::lang::load_file(&mut ctx, &sources, file) {
        assert!(!diags.is_empty());
        assert!(!sources.render(&ctx, &diags).is_empty());
    }
}

fn corpus() -> Vec<String> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../test/lit/dialect-lang/Inputs"
    );
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("dialect inputs")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "acc"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect();
    files.sort();
    assert!(files.len() >= 2);
    files
}

/// Mutations per input: `ACC_FUZZ_CASES` when set (the long run, docs/testing.md),
/// else `default`.
fn cases(default: usize) -> usize {
    std::env::var("ACC_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn truncations_and_mutations_never_panic() {
    let mut seed: u64 = 0x00C0_FFEE_1234_5678;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pieces = [
        "(",
        ")",
        "{",
        "}",
        "<",
        ">",
        "\"",
        "`",
        "$",
        ":",
        ",",
        "|",
        "op",
        "variadic",
        "format \"$x\"",
        "type($",
        "\u{e9}",
    ];
    for text in corpus() {
        for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            load(&text[..cut]);
        }
        for _ in 0..cases(300) {
            let mut t = text.clone();
            let at = (next() as usize) % (t.len() + 1);
            let at = (0..=at).rev().find(|&i| t.is_char_boundary(i)).unwrap_or(0);
            t.insert_str(at, pieces[(next() as usize) % pieces.len()]);
            load(&t);
        }
    }
}

#[test]
fn a_loaded_dialect_is_registered() {
    let mut ctx = acc_dialects::new_context();
    let mut sources = SourceMap::new();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../test/lit/dialect-lang/Inputs/dsp.acc"
    ))
    .unwrap();
    let file = sources.add("dsp.acc", text);
    let dialects = acc_dialects::lang::load_file(&mut ctx, &sources, file)
        .expect("dsp.acc loads")
        .dialects;
    assert_eq!(dialects[0].ops.len(), 6);
    let mac = ctx
        .lookup_op_name("dsp.mac")
        .and_then(|n| ctx.op_def(n).cloned())
        .expect("dsp.mac registered");
    assert!(mac.traits.pure);
    assert_eq!(
        mac.inherent_attrs,
        vec!["shift".to_string(), "mode".to_string()]
    );
    assert!(ctx.is_dialect_registered("dsp"));
}

/// IR using a text-defined dialect: truncated and mutated inputs never panic, and what
/// is accepted prints, re-parses and prints identically (custom and generic forms).
#[test]
fn declared_formats_round_trip_and_never_panic() {
    use acc_ir::printer::{PrintOptions, print_ir};
    let acc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../test/lit/dialect-lang/Inputs/dsp.acc"
    ))
    .unwrap();
    let ir_text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../test/lit/dialect-lang/dialect-roundtrip.mlir"
    ))
    .unwrap();
    let context = || {
        let mut ctx = acc_dialects::new_context();
        let mut sources = SourceMap::new();
        let f = sources.add("dsp.acc", acc.clone());
        acc_dialects::lang::load_file(&mut ctx, &sources, f).expect("dsp.acc loads");
        ctx
    };
    let exercise = |text: &str| {
        let mut ctx = context();
        let mut sources = SourceMap::new();
        let f = sources.add("in.mlir", text.to_string());
        let Ok(ir) = acc_ir::parser::parse_file(&mut ctx, &sources, f) else {
            return false;
        };
        if acc_ir::verifier::verify(&ctx, &ir).is_err() {
            return false;
        }
        for generic in [false, true] {
            let opts = PrintOptions {
                generic,
                ..Default::default()
            };
            let first = print_ir(&ctx, &ir, &opts);
            let mut ctx2 = context();
            let mut s2 = SourceMap::new();
            let f2 = s2.add("printed.mlir", first.clone());
            let ir2 = acc_ir::parser::parse_file(&mut ctx2, &s2, f2)
                .unwrap_or_else(|d| panic!("{}\n{first}", d.message));
            assert_eq!(print_ir(&ctx2, &ir2, &opts), first);
        }
        true
    };
    assert!(exercise(&ir_text), "the lit input itself is valid");
    let mut seed: u64 = 42;
    let pieces = [
        "(",
        ")",
        ",",
        ":",
        "->",
        "%arg0",
        "shift",
        "tensor<4xi8>",
        "{",
        "}",
        "dsp.yield",
        "vector<2xf32>",
    ];
    for cut in (0..=ir_text.len())
        .step_by(7)
        .filter(|&i| ir_text.is_char_boundary(i))
    {
        exercise(&ir_text[..cut]);
    }
    for _ in 0..cases(400) {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut t = ir_text.clone();
        let at = ((seed >> 33) as usize) % (t.len() + 1);
        let at = (0..=at).rev().find(|&i| t.is_char_boundary(i)).unwrap_or(0);
        t.insert_str(at, pieces[((seed >> 20) as usize) % pieces.len()]);
        exercise(&t);
    }
}
