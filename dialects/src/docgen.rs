//! The dialect reference, generated from the definition files: one Markdown page per
//! dialect (`docs/dialects/<name>.md`). `acc-docgen` writes them; a test fails when the
//! committed pages differ from what the definitions generate.

use acc_ir::Context;

use crate::lang::DialectDecl;

/// The page of each dialect: file name (`<name>.md`) and contents.
pub fn pages(ctx: &Context, dialects: &[DialectDecl]) -> Vec<(String, String)> {
    dialects
        .iter()
        .map(|d| {
            (
                format!("{}.md", d.name),
                crate::lang::describe::dialect_page(ctx, d),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_declared_ops() {
        let mut ctx = Context::new();
        let dialects = crate::load_builtin_definitions(&mut ctx);
        let all = pages(&ctx, &dialects);
        let (name, page) = all.iter().find(|(n, _)| n == "func.md").expect("func page");
        assert_eq!(name, "func.md");
        assert!(page.starts_with("# The `func` dialect"));
        assert!(page.contains("### `func.func`"));
        assert!(page.contains("Traits: `IsolatedFromAbove`."));
        assert!(page.contains("| `sym_name` | `string` |"));
    }
}
