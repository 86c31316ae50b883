//! `hash_map`: a hash map from id to value, for large components that few
//! entities hold.

use super::drops::drop_each;
use super::{Column, Storage};
use crate::decl::ComponentBounds;
use crate::entity::EntityId;
use crate::error::EntityLimit;
use core::cell::UnsafeCell;
use core::ops::Range;
use core::ptr::NonNull;
use rustc_hash::FxHashMap;

/// Memory only for the entities that hold the component; lookups hash the id.
///
/// ```
/// use ecs::storage::{Column, HashMapStorage, Storage};
/// use ecs::{EntityId, EntityLimit};
///
/// let mut column = HashMapStorage::<String>::new(EntityLimit::Dynamic { initial: 0 });
/// let id = EntityId::from_bits(3);
/// assert_eq!(column.insert(id, "a".to_string()), None);
/// assert_eq!(column.insert(id, "b".to_string()), Some("a".to_string()));
/// assert_eq!(column.get(id), Some(&"b".to_string()));
/// assert_eq!(column.remove(id), Some("b".to_string()));
/// assert!(!column.contains(id));
/// ```
pub struct HashMapStorage<T> {
    map: FxHashMap<u32, UnsafeCell<T>>,
}

// SAFETY: as for `Contiguous`: shared access hands out `&T` and raw pointers
// whose writes the scheduler coordinates per id; the map's structure changes
// only under `&mut self`.
unsafe impl<T: ComponentBounds> Sync for HashMapStorage<T> {}
// SAFETY: its one field is a map of `T`s by id, which are `Send` when `T` is,
// and `T: Send`. Written out (not derived) so that a `T` that is not thread-
// safe reports `ComponentBounds`'s one error, not `Send`'s besides.
unsafe impl<T: ComponentBounds> Send for HashMapStorage<T> {}

impl<T: ComponentBounds> Storage for HashMapStorage<T> {
    fn new(_limit: EntityLimit) -> Self {
        Self {
            map: FxHashMap::default(),
        }
    }
}

impl<T> HashMapStorage<T> {
    /// Number of ids holding a value.
    ///
    /// # Examples
    /// ```
    /// use ecs::storage::{Column, HashMapStorage, Storage};
    /// use ecs::{EntityId, EntityLimit};
    ///
    /// let mut column = HashMapStorage::<u64>::new(EntityLimit::Dynamic { initial: 0 });
    /// assert!(column.is_empty());
    /// column.insert(EntityId::from_bits(5), 1);
    /// column.insert(EntityId::from_bits(900), 2);
    /// assert_eq!(column.len(), 2);
    /// column.remove(EntityId::from_bits(5));
    /// assert_eq!(column.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether no id holds a value.
    ///
    /// # Examples
    /// See [`len`](Self::len)'s example.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

// SAFETY: each id owns one `UnsafeCell` in the map; entries move only when the
// map is modified, which takes `&mut self`; `&self` methods touch only the
// entry asked for.
unsafe impl<T: ComponentBounds> Column for HashMapStorage<T> {
    type Item = T;

    fn insert(&mut self, id: EntityId, value: T) -> Option<T> {
        self.map
            .insert(id.0, UnsafeCell::new(value))
            .map(UnsafeCell::into_inner)
    }

    fn remove(&mut self, id: EntityId) -> Option<T> {
        self.map.remove(&id.0).map(UnsafeCell::into_inner)
    }

    fn remove_range(&mut self, ids: Range<usize>) {
        if ids.len() > self.map.len() {
            // Fewer entries than ids: the keys in range, then each removed.
            let keys: Vec<u32> = self
                .map
                .keys()
                .copied()
                .filter(|&k| ids.contains(&(k as usize)))
                .collect();
            drop_each(keys.into_iter(), |k| drop(self.map.remove(&k)));
        } else {
            drop_each(ids, |i| drop(self.map.remove(&(i as u32))));
        }
    }

    #[inline]
    fn contains(&self, id: EntityId) -> bool {
        self.map.contains_key(&id.0)
    }

    #[inline]
    fn get(&self, id: EntityId) -> Option<&T> {
        // SAFETY: callers of the column contract never write a value while a
        // shared reference to it exists.
        self.map.get(&id.0).map(|c| unsafe { &*c.get() })
    }

    #[inline]
    fn get_mut(&mut self, id: EntityId) -> Option<&mut T> {
        self.map.get_mut(&id.0).map(UnsafeCell::get_mut)
    }

    #[inline]
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<T>> {
        self.map.get(&id.0).and_then(|c| NonNull::new(c.get()))
    }

    /// The storage itself: a lookup per entity.
    type Fetch = NonNull<Self>;

    #[inline]
    fn fetch_state(&self) -> NonNull<Self> {
        NonNull::from(self)
    }

    #[inline]
    unsafe fn fetch(this: NonNull<Self>, id: EntityId) -> NonNull<T> {
        // SAFETY: the caller guarantees the storage is live and not mutably
        // borrowed, and that `id` has a value.
        unsafe { this.as_ref().get_ptr_unchecked(id) }
    }
}

impl<T> Drop for HashMapStorage<T> {
    fn drop(&mut self) {
        // Every value, even after panicking `drop`s. Values without drop
        // glue: the map frees the memory, and no code is compiled for them
        // here.
        if core::mem::needs_drop::<T>() {
            drop_each(self.map.drain(), drop);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract() {
        super::super::tests::exercise(HashMapStorage::<u64>::new(EntityLimit::Fixed(10)));
        super::super::tests::exercise(HashMapStorage::<u64>::new(EntityLimit::Dynamic { initial: 0 }));
    }
}
