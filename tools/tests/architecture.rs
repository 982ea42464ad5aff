//! `docs/architecture.md` matches the tree: every workspace crate is in its map of
//! folders (and every folder it names is a crate), and every crate's dependencies on
//! other acc crates are among those its dependency table allows.

use std::collections::BTreeMap;
use std::path::Path;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The workspace members: folder, package name and the acc crates it depends on.
fn members() -> Vec<(String, String, Vec<String>)> {
    let root = std::fs::read_to_string(repo().join("Cargo.toml")).expect("Cargo.toml");
    let list = root
        .split_once("members = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .expect("a members list");
    let folders: Vec<String> = list
        .split(',')
        .map(|s| s.trim().trim_matches('"').to_string())
        .filter(|s| !s.is_empty())
        .collect();
    folders
        .into_iter()
        .map(|folder| {
            let manifest = std::fs::read_to_string(repo().join(&folder).join("Cargo.toml"))
                .unwrap_or_else(|e| panic!("{folder}/Cargo.toml: {e}"));
            let name = manifest
                .lines()
                .find_map(|l| l.strip_prefix("name = "))
                .map(|n| n.trim_matches('"').to_string())
                .expect("a package name");
            let deps = manifest
                .split_once("[dependencies]")
                .map(|(_, rest)| rest.split("\n[").next().unwrap_or(""))
                .unwrap_or("")
                .lines()
                .filter_map(|l| l.split_once(" = ").map(|(k, _)| k.trim().to_string()))
                .filter(|k| k.starts_with("acc-"))
                .collect();
            (folder, name, deps)
        })
        .collect()
}

/// The backquoted words of a Markdown table cell.
fn quoted(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_architecture_page_matches_the_tree() {
    let doc = std::fs::read_to_string(repo().join("docs/architecture.md")).expect("the page");
    let members = members();
    assert!(members.len() >= 15, "the workspace was read: {members:?}");
    // The map of folders: `| `folder/` | `crate` | ... |`.
    let mut mapped: BTreeMap<String, String> = BTreeMap::new();
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').collect();
        if let (Some(folder), Some(krate)) = (cells.get(1), cells.get(2))
            && let (Some(f), Some(k)) = (quoted(folder).first(), quoted(krate).first())
            && f.ends_with('/')
        {
            mapped.insert(f.trim_end_matches('/').to_string(), k.clone());
        }
    }
    for (folder, name, _) in &members {
        assert_eq!(
            mapped.get(folder),
            Some(name),
            "docs/architecture.md maps folder {folder}/ to crate {name}"
        );
    }
    for folder in mapped.keys() {
        assert!(
            members.iter().any(|(f, _, _)| f == folder),
            "docs/architecture.md names {folder}/, which is not a crate of the workspace"
        );
    }
    // The dependency table: `| `crate`, `crate` | `dep`, `dep` ... |`.
    let table = doc
        .split_once("## What may depend on what")
        .map(|(_, t)| t)
        .expect("the dependency section");
    let mut allowed: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').collect();
        let (Some(crates), Some(deps)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let deps = if deps.contains("any of the above") {
            None
        } else {
            Some(quoted(deps))
        };
        for c in quoted(crates) {
            allowed.insert(c, deps.clone());
        }
    }
    for (folder, name, deps) in &members {
        let Some(rule) = allowed.get(name) else {
            panic!("docs/architecture.md does not say what {name} ({folder}) may depend on");
        };
        let Some(ok) = rule else { continue };
        for d in deps {
            assert!(
                ok.contains(d),
                "{name} depends on {d}, which docs/architecture.md does not allow (it allows {ok:?})"
            );
        }
    }
}
