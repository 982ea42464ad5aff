//! Interned strings: identifiers, op names, symbol names and string attribute values.
//!
//! Invariant: the bytes of every interned string live in `arena`, which only grows and is
//! dropped together with the map that points into it, so the `&'static str` keys handed
//! to the map never dangle while the interner is alive. They are never given out with
//! the `'static` lifetime: [`StrInterner::get`] ties them to `&self`.

use bumpalo::Bump;
use indexmap::IndexSet;
use rustc_hash::FxBuildHasher;

/// An interned string, compared by identity.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Sym(u32);

/// The string table of a [`Context`](crate::Context).
#[derive(Default)]
pub struct StrInterner {
    arena: Bump,
    strings: IndexSet<&'static str, FxBuildHasher>,
}

impl Clone for StrInterner {
    /// A copy with its own arena; every string keeps its [`Sym`].
    fn clone(&self) -> Self {
        let mut copy = StrInterner::default();
        copy.strings.reserve(self.strings.len());
        for s in &self.strings {
            copy.intern(s);
        }
        copy
    }
}

impl StrInterner {
    /// Interns `s`, returning the same [`Sym`] for equal strings.
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(index) = self.strings.get_index_of(s) {
            return Sym(index as u32);
        }
        let stored: &str = self.arena.alloc_str(s);
        // SAFETY: `stored` points into `self.arena`, which is never reset and lives exactly
        // as long as `self.strings` (both are fields of `self`). The extended lifetime is
        // never exposed: `get` re-borrows it for the lifetime of `&self`.
        let stored: &'static str = unsafe { std::mem::transmute::<&str, &'static str>(stored) };
        let (index, _) = self.strings.insert_full(stored);
        Sym(index as u32)
    }

    /// Looks `s` up without interning it.
    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.strings.get_index_of(s).map(|i| Sym(i as u32))
    }

    /// The text of an interned string.
    pub fn get(&self, sym: Sym) -> &str {
        self.strings[sym.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_identity() {
        let mut t = StrInterner::default();
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
