//! A sparse integer set of entity ids: O(1) insert, remove and lookup, and a
//! dense array to iterate (thesis, ch. 14).
//!
//! ```text
//! sparse: id -> position in dense     dense: the ids, packed
//!   [ -, 1, -, 0 ]                       [ 3, 1 ]
//! ```
//! Removal swaps the last id into the hole, so the dense order is the order
//! of insertion except where removals moved an id.

use crate::entity::EntityId;

const ABSENT: u32 = u32::MAX;

/// A set of entity ids with a packed array for iteration.
///
/// Invariant: `dense[sparse[id]] == id` for every member, `sparse[id] ==
/// ABSENT` (or `id >= sparse.len()`) for every other id, and `dense` holds no
/// id twice. When `run` is true, `dense[i] == dense[0] + i` for every `i`:
/// the members are one ascending run of ids (kept up to date cheaply; once
/// false it stays false until the set is emptied).
#[derive(Debug, Clone)]
pub struct SparseSet {
    dense: Vec<EntityId>,
    sparse: Vec<u32>,
    run: bool,
}

impl Default for SparseSet {
    fn default() -> Self {
        Self {
            dense: Vec::new(),
            sparse: Vec::new(),
            run: true,
        }
    }
}

impl SparseSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty set with room for ids below `ids` and `ids` members.
    pub fn with_capacity(ids: usize) -> Self {
        Self {
            dense: Vec::with_capacity(ids),
            sparse: Vec::with_capacity(ids),
            run: true,
        }
    }

    /// Whether `id` is a member.
    #[inline]
    pub fn contains(&self, id: EntityId) -> bool {
        self.sparse.get(id.index()).is_some_and(|&p| p != ABSENT)
    }

    /// The position of `id` in the packed array, if a member.
    #[inline]
    pub fn position(&self, id: EntityId) -> Option<usize> {
        match self.sparse.get(id.index()) {
            Some(&p) if p != ABSENT => Some(p as usize),
            _ => None,
        }
    }

    /// Adds `id`; returns whether it was absent.
    #[inline]
    pub fn insert(&mut self, id: EntityId) -> bool {
        let i = id.index();
        if i >= self.sparse.len() {
            self.grow(i);
        }
        let slot = &mut self.sparse[i];
        if *slot != ABSENT {
            return false;
        }
        *slot = self.dense.len() as u32;
        self.run &= self.dense.last().is_none_or(|last| last.0.wrapping_add(1) == id.0);
        self.dense.push(id);
        true
    }

    #[cold]
    fn grow(&mut self, i: usize) {
        let len = (i + 1).max(self.sparse.len() * 2);
        self.sparse.resize(len, ABSENT);
    }

    /// Removes `id` by moving the last member into its place; returns whether
    /// it was present.
    pub fn remove(&mut self, id: EntityId) -> bool {
        if !self.contains(id) {
            return false;
        }
        let pos = core::mem::replace(&mut self.sparse[id.index()], ABSENT) as usize;
        let last = self.dense.pop().expect("a member exists");
        if last != id {
            self.dense[pos] = last;
            self.sparse[last.index()] = pos as u32;
            self.run = false;
        }
        if self.dense.is_empty() {
            self.run = true;
        }
        true
    }

    /// The members, packed.
    #[inline]
    pub fn as_slice(&self) -> &[EntityId] {
        &self.dense
    }

    /// The first member when the members are one ascending run of ids
    /// (`as_slice()[i] == first + i`), as they are for entities created
    /// together and not removed out of order.
    #[inline]
    pub fn run_start(&self) -> Option<EntityId> {
        if self.run {
            self.dense.first().copied()
        } else {
            None
        }
    }

    /// Number of members.
    #[inline]
    pub fn len(&self) -> usize {
        self.dense.len()
    }

    /// Whether there are no members.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.dense.is_empty()
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        for id in self.dense.drain(..) {
            self.sparse[id.index()] = ABSENT;
        }
        self.run = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_keeps_invariant() {
        let mut s = SparseSet::new();
        for i in [5, 1, 9, 3] {
            assert!(s.insert(EntityId(i)));
        }
        assert!(!s.insert(EntityId(9)));
        assert!(s.remove(EntityId(1)));
        assert!(!s.remove(EntityId(1)));
        assert!(!s.remove(EntityId(100)));
        assert_eq!(s.as_slice(), &[EntityId(5), EntityId(3), EntityId(9)]);
        for &id in s.as_slice() {
            assert!(s.contains(id));
        }
        assert_eq!(s.run_start(), None);
        s.clear();
        assert!(s.is_empty() && !s.contains(EntityId(5)));
        for i in 10..20 {
            s.insert(EntityId(i));
        }
        assert_eq!(s.run_start(), Some(EntityId(10)));
        s.remove(EntityId(19));
        assert_eq!(s.run_start(), Some(EntityId(10)), "removing the last keeps the run");
        s.remove(EntityId(12));
        assert_eq!(s.run_start(), None, "a swap-remove breaks it");
    }
}
