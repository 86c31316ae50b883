//! Several instances of a component per entity: the value type of the `many`
//! storage strategy.
//!
//! A component `A` declared `A: many;` is stored as one [`Many<A>`] per
//! entity: a non-empty set of `A` instances, each with an [`InstanceKey`]
//! that names it for as long as it exists. The set is an ordinary component
//! value to the rest of the library (its column is `contiguous`,
//! `sparse_set` or `hash_map`, as `many(...)` says), so matching, killing,
//! reclaiming ids and dropping need nothing new: an entity holds `A` while
//! it holds a set, and a set is never empty.
//!
//! # Layout, and what one instance per entity costs
//!
//! ```text
//! Many<A> = One { value: [A; 1], key: [InstanceKey; 1] }     no allocation
//!         | Several(Box<{ values: Vec<A>, keys: Vec<InstanceKey> }>)   2+ instances
//! ```
//!
//! An entity with one instance (the common case: seed 004's explosion has
//! several emitters, most entities one) keeps it inline in the column, beside
//! its key: no allocation, no index from entity to instances, no linked list
//! of instances to walk (seed 004's `next_instance_index` array), and its
//! systems see a slice of one. `size_of::<Many<T>>()` is `T`'s size plus the
//! 8-byte key, rounded up to the alignment: the tag telling one from several
//! hides in the key's niche (a key is never 0), so `Many<u64>` is 16 bytes
//! and `Many<[f32; 3]>` 24 (unit-tested). The key is the one cost in memory
//! of one instance over a plain component, and it is what makes references
//! stable. In time, a system reaches each set through a branch (one or
//! several) and walks a slice, which the compiler does not vectorise across
//! entities as it does a `contiguous` column: a component every entity
//! holds exactly once is better declared `contiguous`. The instances of an entity with several are
//! one `Vec`, in the order they were added, their keys in a parallel `Vec`
//! that iteration does not touch.
//!
//! Measured (callgrind, `benches/drivers`' `many_walk`, 20 000 and 40 000
//! entities of one 4-byte instance each, 20 runs of `e.0 += pos.0`, the
//! creation's count taken out): a system's walk over `&mut Many<T>` costs
//! 32.5 instructions per entity, the same walk over a `contiguous` `T` 3.5.
//! Not staging the sets in blocks saves 4 of the 32.5 (tried, not kept).
//! The layout itself, walked by hand outside the library: this enum 24.0,
//! the first instance inline beside an optional box of the others (no key
//! stored) 12.0, a plain column of first instances beside a bit per entity
//! saying it has more (checked per block of 8) 3.75, a plain column 1.4.
//! Only the last two are vectorised, and both hand the closure one instance,
//! not an entity's slice: a walk that costs what `contiguous` costs is a
//! walk per instance over a column of first instances, with the entities
//! holding several (and their keys) kept apart. This module does not do
//! that yet: entities' sets stay one value each.
//!
//! A key is one `u64` per instance, taken from a process-wide counter when
//! the instance is made (seed 004's "monotonically increasing counter of
//! instances created"). No other bookkeeping is needed: the key is never
//! reused (2^64 instances), so a stale key can never name another instance,
//! whatever happened meanwhile: other instances removed (indices shift, keys
//! do not), the whole set replaced or removed and a new one added, sets
//! swapped between entities. (Keys counted per set, 0, 1, 2, ..., would cost
//! nothing for one instance, but a set removed and added again, or replaced
//! through `&mut`, would count from 0 again, and a stale reference would
//! name the new instance; keeping a counter per entity id outside the sets
//! would not survive a replacement through `&mut` either.) A stable
//! reference to an instance is the pair
//! ([`Entity`](crate::Entity), [`InstanceKey`]): the handle's generation
//! guards the entity, the key the instance.

use crate::storage::drops::drop_each;
use core::fmt;
use core::num::NonZeroU64;
use core::ops::{Deref, DerefMut};
use core::sync::atomic::{AtomicU64, Ordering};

/// The stable name of one instance of a `many` component.
///
/// Returned when the instance is added ([`Many::push`],
/// [`Defer::add_instance`](crate::Defer::add_instance)) and read back with
/// [`Many::key`]; [`Many::index_of`] finds where the instance is now.
/// Unique in the process: no two instances ever share a key, so a key of an
/// instance that was removed finds nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstanceKey(NonZeroU64);

impl InstanceKey {
    /// A key no instance had before.
    ///
    /// # Panics
    /// After 2^64 - 1 keys (centuries at one per nanosecond).
    fn mint() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        // Relaxed: only uniqueness matters, which the atomic add gives.
        let k = NEXT.fetch_add(1, Ordering::Relaxed);
        InstanceKey(NonZeroU64::new(k).expect("instance keys exhausted"))
    }

    /// The key as a number (distinct for distinct keys).
    pub fn get(self) -> u64 {
        self.0.get()
    }
}

/// The instances an entity holds of a component declared `many`: one or
/// more values of `T`, each with its [`InstanceKey`].
///
/// It dereferences to `[T]`, so systems iterate an entity's instances as a
/// slice: a query element `&Many<T>` reads them, `&mut Many<T>` modifies
/// them in place and may [`push`](Self::push) or [`remove`](Self::remove)
/// instances (never the last one: a set is never empty, so a system's
/// entities keep matching it). Giving an entity its first instance or taking
/// its last changes which systems it matches, so that goes through the
/// step proxy or a deferred function:
/// [`Defer::add_instance`](crate::Defer::add_instance) and
/// [`Defer::remove_instance`](crate::Defer::remove_instance) (from systems,
/// [`View::add_instance_later`](crate::View::add_instance_later) and
/// [`View::remove_instance_later`](crate::View::remove_instance_later)).
///
/// The module documentation (`ecs::many` in the runtime crate) describes the
/// layout and why one instance per entity costs no allocation.
///
/// ```
/// use ecs::{InstanceKey, Many};
///
/// let mut emitters = Many::new("smoke");
/// let rubble: InstanceKey = emitters.push("rubble");
/// let sparks = emitters.push("sparks");
/// assert_eq!(&emitters[..], ["smoke", "rubble", "sparks"]);
///
/// // Removing an instance shifts the indices of those after it; keys stay.
/// assert_eq!(emitters.remove(rubble), Some("rubble"));
/// assert_eq!(emitters.index_of(sparks), Some(1));
/// assert_eq!(emitters.get_by_key(sparks), Some(&"sparks"));
/// assert_eq!(emitters.get_by_key(rubble), None, "a removed key finds nothing");
///
/// // The last instance stays: a set is never empty.
/// let smoke = emitters.key(0).unwrap();
/// assert_eq!(emitters.remove(sparks), Some("sparks"));
/// assert_eq!(emitters.remove(smoke), None);
/// assert_eq!(emitters.len(), 1);
/// ```
pub struct Many<T> {
    repr: Repr<T>,
}

/// Invariant: `Several` holds at least two instances, with as many keys
/// as values, the key of `values[i]` being `keys[i]`.
enum Repr<T> {
    One { value: [T; 1], key: [InstanceKey; 1] },
    Several(Box<Several<T>>),
}

struct Several<T> {
    values: Vec<T>,
    keys: Vec<InstanceKey>,
}

impl<T> Drop for Several<T> {
    /// Every instance, even after a panicking `drop` (a `Vec` would abort
    /// on a second panic): the first panic is resumed at the end.
    fn drop(&mut self) {
        if core::mem::needs_drop::<T>() {
            drop_each(core::mem::take(&mut self.values).into_iter(), drop);
        }
    }
}

impl<T> Many<T> {
    /// A set of one instance, with a new key.
    pub fn new(value: T) -> Self {
        Many {
            repr: Repr::One {
                value: [value],
                key: [InstanceKey::mint()],
            },
        }
    }

    /// A set of the given instances, in order, each with a new key; `None`
    /// when `values` is empty (a set is never empty).
    pub fn from_vec(mut values: Vec<T>) -> Option<Self> {
        match values.len() {
            0 => None,
            1 => values.pop().map(Many::new),
            n => Some(Many {
                repr: Repr::Several(Box::new(Several {
                    values,
                    keys: (0..n).map(|_| InstanceKey::mint()).collect(),
                })),
            }),
        }
    }

    /// The number of instances (at least 1).
    #[inline]
    #[expect(clippy::len_without_is_empty, reason = "a set is never empty")]
    pub fn len(&self) -> usize {
        self.keys().len()
    }

    /// The instances, in the order they were added.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match &self.repr {
            Repr::One { value, .. } => value,
            Repr::Several(s) => &s.values,
        }
    }

    /// The instances, mutably (their number cannot change through a slice).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.repr {
            Repr::One { value, .. } => value,
            Repr::Several(s) => &mut s.values,
        }
    }

    /// The keys of the instances, in the same order as
    /// [`as_slice`](Self::as_slice).
    #[inline]
    pub fn keys(&self) -> &[InstanceKey] {
        match &self.repr {
            Repr::One { key, .. } => key,
            Repr::Several(s) => &s.keys,
        }
    }

    /// The key of the instance at `index`, if there is one.
    #[inline]
    pub fn key(&self, index: usize) -> Option<InstanceKey> {
        self.keys().get(index).copied()
    }

    /// Where the instance named `key` is now; `None` when this set does not
    /// hold it (removed, or another set's). A linear search of the keys,
    /// which are few per entity and kept apart from the values.
    #[inline]
    pub fn index_of(&self, key: InstanceKey) -> Option<usize> {
        self.keys().iter().position(|&k| k == key)
    }

    /// The instance named `key`, if this set holds it.
    #[inline]
    pub fn get_by_key(&self, key: InstanceKey) -> Option<&T> {
        let i = self.index_of(key)?;
        self.as_slice().get(i)
    }

    /// The instance named `key`, mutably, if this set holds it.
    #[inline]
    pub fn get_by_key_mut(&mut self, key: InstanceKey) -> Option<&mut T> {
        let i = self.index_of(key)?;
        self.as_mut_slice().get_mut(i)
    }

    /// The instances with their keys.
    pub fn iter_keyed(&self) -> impl Iterator<Item = (InstanceKey, &T)> + '_ {
        self.keys().iter().copied().zip(self.as_slice())
    }

    /// Adds an instance after the others and returns its new key.
    pub fn push(&mut self, value: T) -> InstanceKey {
        let key = InstanceKey::mint();
        match &mut self.repr {
            Repr::Several(s) => {
                s.values.push(value);
                s.keys.push(key);
            }
            Repr::One { .. } => {
                let mut values = Vec::with_capacity(2);
                let mut keys = Vec::with_capacity(2);
                // Allocate before moving the first instance out, so that an
                // allocation failure leaves `self` as it was.
                let several = Box::new(Several {
                    values: Vec::new(),
                    keys: Vec::new(),
                });
                let Repr::One {
                    value: [first],
                    key: [first_key],
                } = core::mem::replace(&mut self.repr, Repr::Several(several))
                else {
                    unreachable!("matched `One` above")
                };
                values.push(first);
                values.push(value);
                keys.push(first_key);
                keys.push(key);
                let Repr::Several(s) = &mut self.repr else {
                    unreachable!("just set")
                };
                s.values = values;
                s.keys = keys;
            }
        }
        key
    }

    /// Removes the instance named `key` and returns it, keeping the order
    /// of the others; `None` when this set does not hold it, or when it is
    /// the only instance (the set stays as it is: take an entity's last
    /// instance with [`Defer::remove_instance`](crate::Defer::remove_instance),
    /// which removes the component).
    pub fn remove(&mut self, key: InstanceKey) -> Option<T> {
        let i = self.index_of(key)?;
        let Repr::Several(s) = &mut self.repr else {
            return None;
        };
        s.keys.remove(i);
        let value = s.values.remove(i);
        if s.values.len() == 1 {
            // Back to one instance inline: no allocation kept for it.
            let (Some(last), Some(last_key)) = (s.values.pop(), s.keys.pop()) else {
                unreachable!("one instance left")
            };
            self.repr = Repr::One {
                value: [last],
                key: [last_key],
            };
        }
        Some(value)
    }

    /// The instances, in order, as a `Vec` (their keys are forgotten).
    pub fn into_vec(self) -> Vec<T> {
        match self.repr {
            Repr::One { value: [v], .. } => vec![v],
            Repr::Several(mut s) => core::mem::take(&mut s.values),
        }
    }
}

impl<T> Deref for Many<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> DerefMut for Many<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<'a, T> IntoIterator for &'a Many<T> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'a, T> IntoIterator for &'a mut Many<T> {
    type Item = &'a mut T;
    type IntoIter = core::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_mut_slice().iter_mut()
    }
}

impl<T> From<T> for Many<T> {
    fn from(value: T) -> Self {
        Many::new(value)
    }
}

/// A clone holds new instances: equal values under new keys (a key names
/// one instance only).
impl<T: Clone> Clone for Many<T> {
    fn clone(&self) -> Self {
        Many::from_vec(self.as_slice().to_vec()).expect("a set is never empty")
    }
}

impl<T: fmt::Debug> fmt::Debug for Many<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.iter_keyed().map(|(k, v)| (k.get(), v)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::{Arc, Mutex};

    #[test]
    fn keys_are_stable_and_never_reused() {
        let mut m = Many::new(0);
        let keys: Vec<_> = (1..6).map(|i| m.push(i)).collect();
        assert_eq!(&m[..], [0, 1, 2, 3, 4, 5]);
        assert_eq!(m.remove(keys[1]), Some(2));
        assert_eq!(m.remove(keys[1]), None);
        assert_eq!(&m[..], [0, 1, 3, 4, 5]);
        for (i, &k) in keys.iter().enumerate().filter(|&(i, _)| i != 1) {
            assert_eq!(m.get_by_key(k), Some(&(i as i32 + 1)));
        }
        let fresh = m.push(9);
        assert!(!keys.contains(&fresh) && fresh != m.keys()[0]);
        let clone = m.clone();
        assert_eq!(&clone[..], &m[..]);
        assert!(
            clone.keys().iter().all(|k| m.index_of(*k).is_none()),
            "a clone has new keys"
        );
        assert!(Many::<u8>::from_vec(Vec::new()).is_none());
    }

    /// One instance costs its value and its key, nothing else: the enum's
    /// tag lives in the key's niche (a key is never 0).
    #[test]
    fn a_set_of_one_is_its_value_and_key() {
        use core::mem::size_of;
        assert_eq!(size_of::<Many<u64>>(), 16);
        assert_eq!(size_of::<Many<[f32; 3]>>(), 24);
        assert_eq!(size_of::<Many<[u8; 32]>>(), 40);
        assert_eq!(size_of::<Option<InstanceKey>>(), 8);
    }

    #[test]
    fn shrinks_back_to_one_inline_and_keeps_the_last() {
        let mut m = Many::new('a');
        let b = m.push('b');
        let a = m.key(0).unwrap();
        assert_eq!(m.remove(a), Some('a'));
        assert!(matches!(m.repr, Repr::One { .. }));
        assert_eq!((m.len(), m.key(0)), (1, Some(b)));
        assert_eq!(m.remove(b), None, "the last instance stays");
        m.as_mut_slice()[0] = 'z';
        assert_eq!(m.into_vec(), ['z']);
    }

    /// Dropping a set drops every instance once, whatever panics.
    #[test]
    fn panicking_instances_stop_no_other_drop() {
        struct Boom(u32, Arc<Mutex<Vec<u32>>>);
        impl Drop for Boom {
            fn drop(&mut self) {
                self.1.lock().unwrap().push(self.0);
                if self.0 % 2 == 1 {
                    panic!("boom {}", self.0);
                }
            }
        }
        let log = Arc::new(Mutex::new(Vec::new()));
        let m = Many::from_vec((0..5).map(|n| Boom(n, log.clone())).collect()).unwrap();
        let r = catch_unwind(AssertUnwindSafe(move || drop(m)));
        let payload = r.expect_err("two drops panicked");
        assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some("boom 1"));
        assert_eq!(*log.lock().unwrap(), [0, 1, 2, 3, 4]);
    }
}
