//! Pass timing: a tree of durations shaped like the pipeline (MLIR's `--mlir-timing`).
//!
//! Nested pipelines that run on many ops add up the time of every run (over all
//! functions, and over all threads when they run in parallel).

use std::time::Duration;

/// One line of the report and what is nested under it.
#[derive(Clone, Debug, Default)]
pub struct TimingNode {
    /// Its name: a pass title (`Canonicalizer`) or a pipeline (`'func.func' Pipeline`).
    pub name: String,
    /// Time spent in it.
    pub time: Duration,
    /// What ran inside it, in pipeline order.
    pub children: Vec<TimingNode>,
}

impl TimingNode {
    /// A node for `name`.
    pub fn new(name: impl Into<String>) -> TimingNode {
        TimingNode {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Adds `other`'s times to this node and its children, matched by position.
    pub fn merge(&mut self, other: &TimingNode) {
        self.time += other.time;
        for (i, c) in other.children.iter().enumerate() {
            match self.children.get_mut(i) {
                Some(mine) => mine.merge(c),
                None => self.children.push(c.clone()),
            }
        }
    }
}

/// The report for `nodes` (top-level lines, such as Parser, the pipeline and Output)
/// out of `total`, in MLIR's layout.
pub fn report(nodes: &[TimingNode], total: Duration) -> String {
    let rule = "===-------------------------------------------------------------------------===";
    let mut out = format!(
        "{rule}\n                         ... Execution time report ...\n{rule}\n  Total Execution Time: {:.4} seconds\n\n  ----Wall Time----  ----Name----\n",
        total.as_secs_f64()
    );
    let total_s = total.as_secs_f64().max(f64::MIN_POSITIVE);
    fn line(out: &mut String, n: &TimingNode, depth: usize, total_s: f64) {
        let t = n.time.as_secs_f64();
        out.push_str(&format!(
            "  {t:>8.4} ({:>5.1}%)  {}{}\n",
            100.0 * t / total_s,
            "  ".repeat(depth),
            n.name
        ));
        for c in &n.children {
            line(out, c, depth + 1, total_s);
        }
    }
    for n in nodes {
        line(&mut out, n, 0, total_s);
    }
    line(
        &mut out,
        &TimingNode {
            name: "Total".into(),
            time: total,
            children: Vec::new(),
        },
        0,
        total_s,
    );
    out
}
