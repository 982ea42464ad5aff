//! Data layouts written as strings (`#tensor.layout<"NCHW16c">`): which logical
//! dimension each stored dimension holds, and how blocked dimensions split.
//!
//! Grammar: a sequence of dimensions, outermost first. An upper-case letter is a whole
//! logical dimension (`N`, `C`, `H`, `W`, `O`, `I`); a number followed by a lower-case
//! letter is an inner block of the dimension of that letter (`16c`: 16 channels). A
//! blocked dimension's upper-case letter holds the number of blocks. Every lower-case
//! letter needs its upper-case letter; no letter appears twice.

use acc_ir::attrs::AttrData;
use acc_ir::{AttrId, Context, DYNAMIC};

/// One stored dimension of a layout.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LayoutDim {
    /// The logical dimension, upper case (`'C'` for both `C` and `16c`).
    pub letter: char,
    /// For an inner block, its size.
    pub block: Option<i64>,
}

/// A parsed layout: its stored dimensions, outermost first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The stored dimensions.
    pub dims: Vec<LayoutDim>,
}

impl Layout {
    /// Parses a layout string, or says what is wrong with it.
    pub fn parse(text: &str) -> Result<Layout, String> {
        let mut dims: Vec<LayoutDim> = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            let dim = if c.is_ascii_uppercase() {
                LayoutDim {
                    letter: c,
                    block: None,
                }
            } else if c.is_ascii_digit() {
                let mut n = c.to_digit(10).map_or(0, i64::from);
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                    n = n.saturating_mul(10).saturating_add(i64::from(d));
                    chars.next();
                }
                match chars.next() {
                    Some(l) if l.is_ascii_lowercase() && n > 0 => LayoutDim {
                        letter: l.to_ascii_uppercase(),
                        block: Some(n),
                    },
                    _ => {
                        return Err(format!(
                            "layout \"{text}\": a block size must be positive and followed by a lower-case letter"
                        ));
                    }
                }
            } else {
                return Err(format!(
                    "layout \"{text}\": unexpected '{c}' (expected upper-case letters and blocks such as 16c)"
                ));
            };
            if dims.iter().any(|d| {
                *d == dim || (d.letter == dim.letter && d.block.is_some() == dim.block.is_some())
            }) {
                return Err(format!(
                    "layout \"{text}\": dimension {} appears twice",
                    dim.letter
                ));
            }
            dims.push(dim);
        }
        for d in &dims {
            if d.block.is_some()
                && !dims
                    .iter()
                    .any(|o| o.letter == d.letter && o.block.is_none())
            {
                return Err(format!(
                    "layout \"{text}\": block of {} without dimension {}",
                    d.letter.to_ascii_lowercase(),
                    d.letter
                ));
            }
        }
        Ok(Layout { dims })
    }

    /// The layout of a `#tensor.layout<"...">` attribute.
    pub fn of_attr(ctx: &Context, a: AttrId) -> Result<Layout, String> {
        match ctx.attr_data(a) {
            AttrData::Declared { params, .. } => match params.first().map(|p| ctx.attr_data(*p)) {
                Some(AttrData::String { value, .. }) => Layout::parse(ctx.str(*value)),
                _ => Err("a layout attribute holds a string".into()),
            },
            _ => Err("expected a #tensor.layout attribute".into()),
        }
    }

    /// The logical size of `letter` in a tensor of this layout with `shape`: the outer
    /// size times every block of it (dynamic if any part is).
    pub fn logical(&self, shape: &[i64], letter: char) -> Result<i64, String> {
        if shape.len() != self.dims.len() {
            return Err(format!(
                "a tensor of rank {} does not have a layout of {} dimensions",
                shape.len(),
                self.dims.len()
            ));
        }
        let mut size = 1i64;
        let mut found = false;
        for (d, &s) in self.dims.iter().zip(shape) {
            if d.letter != letter {
                continue;
            }
            found = true;
            if let Some(b) = d.block
                && s != b
                && s != DYNAMIC
            {
                return Err(format!("the {b}-element block of {letter} has size {s}"));
            }
            if s == DYNAMIC || size == DYNAMIC {
                size = DYNAMIC;
            } else {
                size = size.saturating_mul(s);
            }
        }
        if !found {
            return Err(format!("the layout has no dimension {letter}"));
        }
        Ok(size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_and_blocked_layouts() {
        let l = Layout::parse("NCHW16c").unwrap();
        assert_eq!(l.dims.len(), 5);
        assert_eq!(l.logical(&[1, 2, 8, 8, 16], 'C'), Ok(32));
        assert_eq!(l.logical(&[1, 2, 8, 8, 16], 'H'), Ok(8));
        assert!(l.logical(&[1, 2, 8, 8, 8], 'C').is_err());
        assert!(Layout::parse("NCHW16x").is_err());
        assert!(Layout::parse("NCCHW").is_err());
        assert!(Layout::parse("NHW0c").is_err());
        assert_eq!(Layout::parse("OIHW16i16o").unwrap().dims.len(), 6);
    }
}
