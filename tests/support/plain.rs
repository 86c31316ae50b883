//! A custom storage for tests: the built-in hash map behind `Column`'s
//! default `swap` and `relocate` (included by `#[path]` from the tests that
//! run every storage).

use ecs::storage::{Column, HashMapStorage, Storage};
use ecs::{EntityId, EntityLimit};
use std::ptr::NonNull;

/// A custom storage (the built-in hash map behind the `Column` defaults).
pub struct Plain<T>(HashMapStorage<T>);

impl<T: Send + Sync + 'static> Storage for Plain<T> {
    fn new(limit: EntityLimit) -> Self {
        Plain(HashMapStorage::new(limit))
    }
}

// SAFETY: every method is the wrapped storage's, which keeps the contract.
unsafe impl<T: Send + Sync + 'static> Column for Plain<T> {
    type Item = T;
    fn insert(&mut self, id: EntityId, value: T) -> Option<T> {
        self.0.insert(id, value)
    }
    fn remove(&mut self, id: EntityId) -> Option<T> {
        self.0.remove(id)
    }
    fn contains(&self, id: EntityId) -> bool {
        self.0.contains(id)
    }
    fn get(&self, id: EntityId) -> Option<&T> {
        self.0.get(id)
    }
    fn get_mut(&mut self, id: EntityId) -> Option<&mut T> {
        self.0.get_mut(id)
    }
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<T>> {
        self.0.get_ptr(id)
    }
    type Fetch = <HashMapStorage<T> as Column>::Fetch;
    fn fetch_state(&self) -> Self::Fetch {
        self.0.fetch_state()
    }
    unsafe fn fetch(state: Self::Fetch, id: EntityId) -> NonNull<T> {
        // SAFETY: the caller's guarantees are the wrapped storage's.
        unsafe { HashMapStorage::fetch(state, id) }
    }
}
