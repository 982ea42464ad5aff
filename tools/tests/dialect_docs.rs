//! The committed dialect reference (`docs/dialects/*.md`) matches what the registered
//! definitions generate. When this fails, regenerate with
//! `cargo run --bin acc-docgen -- --out docs/dialects`.

use std::path::Path;

#[test]
fn dialect_docs_are_up_to_date() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/dialects");
    let pages = acc_tools::docgen::pages(&[]).expect("built-in dialects document");
    assert!(pages.len() >= 3);
    let stale = acc_tools::docgen::stale_pages(&out, &pages);
    assert!(
        stale.is_empty(),
        "stale dialect docs: {}; run `cargo run --bin acc-docgen -- --out docs/dialects`",
        stale.join(", ")
    );
}
