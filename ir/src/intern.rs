//! Interned strings: identifiers, op names, symbol names and string attribute values.
//!
//! Invariant: the bytes of every interned string live in `arena`, which only grows and is
//! dropped together with the table that points into it, so the `&'static str` entries
//! never dangle while the interner is alive. They are never given out with the
//! `'static` lifetime: [`StrInterner::get`] ties them to `&self`. Interning takes
//! `&self` (see [`crate::uniquer`]), so threads sharing a context can intern.

use std::sync::Mutex;

use bumpalo::Bump;

use crate::uniquer::Uniquer;

/// An interned string, compared by identity.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Sym(u32);

/// The string table of a [`Context`](crate::Context).
#[derive(Default)]
pub struct StrInterner {
    arena: Mutex<Bump>,
    strings: Uniquer<&'static str>,
}

impl Clone for StrInterner {
    /// A copy with its own arena; every string keeps its [`Sym`].
    fn clone(&self) -> Self {
        let copy = StrInterner::default();
        for (s, ()) in self.strings.iter() {
            copy.intern(s);
        }
        copy
    }
}

impl StrInterner {
    /// Interns `s`, returning the same [`Sym`] for equal strings.
    pub fn intern(&self, s: &str) -> Sym {
        let arena = &self.arena;
        Sym(self.strings.intern_with(
            s,
            |s| {
                let arena = arena.lock().unwrap_or_else(|p| p.into_inner());
                let stored: &str = arena.alloc_str(s);
                // SAFETY: `stored` points into `self.arena`, which is never reset and
                // lives exactly as long as `self.strings` (both are fields of `self`).
                // The extended lifetime is never exposed: `get` re-borrows it for the
                // lifetime of `&self`.
                unsafe { std::mem::transmute::<&str, &'static str>(stored) }
            },
            |_| (),
        ))
    }

    /// Looks `s` up without interning it.
    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.strings.lookup(s).map(Sym)
    }

    /// The text of an interned string.
    pub fn get(&self, sym: Sym) -> &str {
        self.strings.get(sym.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_identity() {
        let t = StrInterner::default();
        let a = t.intern("func.func");
        let b = t.intern("arith.addi");
        assert_ne!(a, b);
        assert_eq!(t.intern("func.func"), a);
        assert_eq!(t.get(b), "arith.addi");
        assert_eq!(t.lookup("nope"), None);
        for i in 0..10_000 {
            t.intern(&format!("s{i}"));
        }
        assert_eq!(t.get(a), "func.func");
        let copy = t.clone();
        assert_eq!(copy.get(b), "arith.addi");
        assert_eq!(copy.lookup("s9999"), t.lookup("s9999"));
    }
}
