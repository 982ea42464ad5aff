//! The tables `:ops` and `:suggest` print: one row per op or pass, names padded to the
//! longest, sorted by name.

use acc_ir::Context;

use super::apply::Suggestion;

/// The registered ops of dialect `filter`, or whose name starts with `filter` when it
/// holds a dot, or all of them, each with its summary; `None` when none matches.
pub fn ops(ctx: &Context, filter: Option<&str>) -> Option<String> {
    let mut ops: Vec<_> = ctx
        .registered_ops()
        .filter(|d| match filter {
            None => true,
            Some(f) if f.contains('.') => d.name.starts_with(f),
            Some(f) => d.dialect() == f,
        })
        .collect();
    if ops.is_empty() {
        return None;
    }
    ops.sort_by(|a, b| a.name.cmp(&b.name));
    let width = ops.iter().map(|d| d.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for d in ops {
        out.push_str(&format!("  {:<width$}  {}\n", d.name, d.summary));
    }
    Some(out)
}

/// The `:suggest` report: each pass, the lines it changes and its summary.
pub fn suggestions(found: &[Suggestion]) -> String {
    if found.is_empty() {
        return "no pass changes the module\n".to_string();
    }
    let width = found.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let mut out = String::from("passes that change the module:\n");
    for s in found {
        out.push_str(&format!(
            "  {:<width$}  {:<16}  {}\n",
            s.name,
            s.counts.to_string(),
            s.summary
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repl::diff::LineCounts;

    #[test]
    fn filters_ops_by_dialect_or_prefix() {
        let ctx = acc_dialects::new_context();
        let func = ops(&ctx, Some("func")).expect("func ops");
        assert!(func.lines().all(|l| l.trim_start().starts_with("func.")));
        assert!(func.contains("func.return "));
        let prefix = ops(&ctx, Some("arith.addi")).expect("arith.addi");
        assert_eq!(prefix.lines().count(), 1, "{prefix}");
        // A dialect name is matched whole: `ari` is no dialect.
        assert!(ops(&ctx, Some("ari")).is_none());
    }

    #[test]
    fn reports_suggestions() {
        assert_eq!(suggestions(&[]), "no pass changes the module\n");
        let found = [Suggestion {
            name: "cse",
            summary: "Eliminate common subexpressions",
            counts: LineCounts {
                removed: 3,
                added: 2,
            },
        }];
        assert_eq!(
            suggestions(&found),
            "passes that change the module:\n  cse  -3 +2 lines       Eliminate common \
             subexpressions\n"
        );
    }
}
