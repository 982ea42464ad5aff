//! Typed `u32` entity IDs and the tables that hold them.
//!
//! Every IR object (op, value, block, region, use, body) lives in a table owned by its
//! [`Body`](crate::Body) (or, for bodies, by the [`Ir`](crate::Ir)) and is named by a
//! small copyable ID. IDs are only meaningful for the table they came from: using an ID
//! of one body to index another body is a logic error that indexing cannot detect.
//! `u32::MAX` is reserved as the "none" sentinel of [`PackedId`].

use std::fmt;

/// A typed index into a [`Table`].
pub trait EntityId: Copy + Eq + fmt::Debug {
    /// Builds the ID from a table position.
    fn from_index(index: usize) -> Self;
    /// The table position this ID names.
    fn index(self) -> usize;
}

/// Declares a `u32` newtype implementing [`EntityId`], displayed as `prefix` + number.
macro_rules! entity_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $crate::entity::EntityId for $name {
            #[inline]
            fn from_index(index: usize) -> Self {
                debug_assert!(index < u32::MAX as usize, "entity table overflow");
                $name(index as u32)
            }
            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}
pub(crate) use entity_id;

/// An append-only table of entities indexed by a typed ID (Cranelift's `PrimaryMap`).
#[derive(Clone, Debug)]
pub struct Table<K: EntityId, V> {
    items: Vec<V>,
    _key: std::marker::PhantomData<K>,
}

impl<K: EntityId, V> Default for Table<K, V> {
    fn default() -> Self {
        Table {
            items: Vec::new(),
            _key: std::marker::PhantomData,
        }
    }
}

impl<K: EntityId, V> Table<K, V> {
    /// Appends `value` and returns its ID.
    pub fn push(&mut self, value: V) -> K {
        let id = K::from_index(self.items.len());
        self.items.push(value);
        id
    }
    /// Number of entities ever pushed (erased ones included).
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// True when nothing was ever pushed.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// Reserves room for `n` more entities.
    pub fn reserve(&mut self, n: usize) {
        self.items.reserve(n);
    }
    /// Iterates over all IDs in creation order.
    pub fn keys(&self) -> impl Iterator<Item = K> + use<K, V> {
        (0..self.items.len()).map(K::from_index)
    }
    /// Every entity, mutably, in ID order.
    pub fn items_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.items.iter_mut()
    }
}

impl<K: EntityId, V> std::ops::Index<K> for Table<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, id: K) -> &V {
        &self.items[id.index()]
    }
}

impl<K: EntityId, V> std::ops::IndexMut<K> for Table<K, V> {
    #[inline]
    fn index_mut(&mut self, id: K) -> &mut V {
        &mut self.items[id.index()]
    }
}

/// An optional ID packed into 4 bytes, `u32::MAX` meaning none (Cranelift's
/// `PackedOption`). Used inside hot structures where `Option<K>` would cost 8 bytes.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct PackedId<K: EntityId>(u32, std::marker::PhantomData<K>);

impl<K: EntityId> PackedId<K> {
    /// The empty value.
    pub const NONE: Self = PackedId(u32::MAX, std::marker::PhantomData);
    /// Packs an optional ID.
    #[inline]
    pub fn new(id: Option<K>) -> Self {
        match id {
            Some(k) => PackedId(k.index() as u32, std::marker::PhantomData),
            None => Self::NONE,
        }
    }
    /// Unpacks to an `Option`.
    #[inline]
    pub fn get(self) -> Option<K> {
        if self.0 == u32::MAX {
            None
        } else {
            Some(K::from_index(self.0 as usize))
        }
    }
}

impl<K: EntityId> From<K> for PackedId<K> {
    fn from(k: K) -> Self {
        PackedId::new(Some(k))
    }
}

impl<K: EntityId> fmt::Debug for PackedId<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}
