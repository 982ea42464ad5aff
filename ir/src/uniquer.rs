//! A concurrent uniquing table: each distinct value gets a stable `u32` index.
//!
//! Invariants: values are only ever appended, so an index stays valid (and its value
//! unchanged) for the life of the table; reading a value by index takes no lock
//! (`boxcar` never moves what it stores); interning takes one mutex, under which the
//! value is looked up and, if new, appended and indexed, so two threads interning equal
//! values get the same index. Indices are dense and given in insertion order.
//!
//! This is what lets passes run on several functions at once: they share one
//! [`Context`](crate::Context) and intern new types and attributes through `&Context`.

use std::hash::{BuildHasher, Hash};
use std::sync::Mutex;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// An append-only set of `T`, each with a `M` computed once when it is inserted.
pub(crate) struct Uniquer<T, M = ()> {
    items: boxcar::Vec<(T, M)>,
    /// Each value's hash (so growing the table never rehashes values, and a probe
    /// compares hashes before values) and index.
    index: Mutex<HashTable<(u64, u32)>>,
    hasher: FxBuildHasher,
}

impl<T, M> Default for Uniquer<T, M> {
    fn default() -> Self {
        Uniquer {
            items: boxcar::Vec::new(),
            index: Mutex::new(HashTable::new()),
            hasher: FxBuildHasher,
        }
    }
}

impl<T: Hash + Eq + Clone, M: Copy> Clone for Uniquer<T, M> {
    /// A copy in which every value keeps its index.
    fn clone(&self) -> Self {
        let copy = Uniquer::default();
        for (value, meta) in self.iter() {
            copy.intern(value.clone(), |_| *meta);
        }
        copy
    }
}

impl<T: Hash + Eq, M: Copy> Uniquer<T, M> {
    /// The value at `i`. Panics on an index this table never gave (a logic error:
    /// IDs come only from this table).
    #[inline]
    pub(crate) fn get(&self, i: u32) -> &T {
        &self.items[i as usize].0
    }

    /// The metadata of the value at `i`.
    #[inline]
    pub(crate) fn meta(&self, i: u32) -> M {
        self.items[i as usize].1
    }

    /// Number of values.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.items.count()
    }

    /// The index of `value`, if present.
    pub(crate) fn lookup<Q>(&self, value: &Q) -> Option<u32>
    where
        Q: Hash + ?Sized,
        T: std::borrow::Borrow<Q>,
        Q: Eq,
    {
        let hash = self.hasher.hash_one(value);
        let index = self.index.lock().unwrap_or_else(|p| p.into_inner());
        index
            .find(hash, |&(h, i)| {
                h == hash && self.items[i as usize].0.borrow() == value
            })
            .map(|&(_, i)| i)
    }

    /// The index of `value`, inserting it (with the metadata `meta` computes, and the
    /// stored form `store` makes) when absent.
    pub(crate) fn intern_with<Q>(
        &self,
        value: &Q,
        store: impl FnOnce(&Q) -> T,
        meta: impl FnOnce(&Q) -> M,
    ) -> u32
    where
        Q: Hash + Eq + ?Sized,
        T: std::borrow::Borrow<Q>,
    {
        let hash = self.hasher.hash_one(value);
        let mut index = self.index.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&(_, i)) = index.find(hash, |&(h, i)| {
            h == hash && self.items[i as usize].0.borrow() == value
        }) {
            return i;
        }
        let m = meta(value);
        let i = self.items.push((store(value), m)) as u32;
        index.insert_unique(hash, (hash, i), |&(h, _)| h);
        i
    }

    /// The index of `value`, inserting it (with the metadata `meta` computes) when
    /// absent.
    pub(crate) fn intern(&self, value: T, meta: impl FnOnce(&T) -> M) -> u32 {
        let hash = self.hasher.hash_one(&value);
        let mut index = self.index.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&(_, i)) = index.find(hash, |&(h, i)| {
            h == hash && self.items[i as usize].0 == value
        }) {
            return i;
        }
        let m = meta(&value);
        let i = self.items.push((value, m)) as u32;
        index.insert_unique(hash, (hash, i), |&(h, _)| h);
        i
    }

    /// Every value and its metadata, in index order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &(T, M)> {
        self.items.iter().map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_share_an_index_across_threads() {
        let u: Uniquer<String> = Uniquer::default();
        let a = u.intern_with("a", |s| s.to_string(), |_| ());
        std::thread::scope(|s| {
            for t in 0..4 {
                let u = &u;
                s.spawn(move || {
                    for i in 0..500 {
                        let v = format!("v{}", (i + t * 7) % 300);
                        let k = u.intern_with(v.as_str(), |s| s.to_string(), |_| ());
                        assert_eq!(u.get(k), &v);
                    }
                });
            }
        });
        assert_eq!(u.len(), 301);
        assert_eq!(u.lookup("a"), Some(a));
        assert_eq!(u.lookup("v299").map(|i| u.get(i).as_str()), Some("v299"));
        assert_eq!(u.lookup("nope"), None);
    }
}
