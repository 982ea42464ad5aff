//! `acc-opt-example` knows every pass and named pipeline acc provides (it starts from
//! `acc_tools::registry`, as every tool does), plus `mul-to-shift`.

use std::process::Command;

#[test]
fn the_example_lists_every_pass_and_pipeline() {
    let out = Command::new(env!("CARGO_BIN_EXE_acc-opt-example"))
        .arg("--list-passes")
        .output()
        .expect("acc-opt-example runs");
    assert!(out.status.success());
    let listed = String::from_utf8(out.stdout).expect("UTF-8");
    let acc = acc_tools::registry();
    let names: Vec<&str> = acc
        .iter()
        .map(|p| p.name)
        .chain(acc.pipelines().map(|p| p.name))
        .collect();
    assert!(names.len() > 20, "acc has its passes: {names:?}");
    for name in names.iter().chain(&["mul-to-shift"]) {
        assert!(
            listed.lines().any(|l| l.starts_with(&format!("  {name} "))),
            "acc-opt-example --list-passes lacks '{name}':\n{listed}"
        );
    }
}
