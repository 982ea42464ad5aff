//! `docs/writing-a-pass.md` shows this crate's files in full: each fenced block whose
//! info string names a file (`title="passes/example/..."`) must equal that file, so
//! that the tutorial builds and runs from the docs alone.

use std::path::Path;

#[test]
fn tutorial_shows_the_example_files_verbatim() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(repo.join("docs/writing-a-pass.md")).expect("the tutorial");
    let mut checked = 0;
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let Some((_, title)) = line.split_once("title=\"") else {
            continue;
        };
        let path = title.trim_end_matches('"');
        let mut block = String::new();
        for l in lines.by_ref() {
            if l == "```" {
                break;
            }
            block.push_str(l);
            block.push('\n');
        }
        let file = std::fs::read_to_string(repo.join(path)).unwrap_or_default();
        assert_eq!(
            block, file,
            "docs/writing-a-pass.md shows a stale copy of {path}"
        );
        checked += 1;
    }
    assert_eq!(checked, 5, "the tutorial shows the crate's five files");
}
