//! Component storage strategies.
//!
//! Every component is stored in a [`Column`]: something that maps entity ids
//! to values. The built-in strategies and user-defined ones implement the same
//! two traits, [`Column`] (access) and [`Storage`] (construction), so a custom
//! strategy is as first-class as the built-in ones:
//!
//! | strategy | type | layout |
//! | --- | --- | --- |
//! | `contiguous` | [`Contiguous`] | one buffer indexed by id (SoA) |
//! | `grouped` | [`Grouped`] | one buffer of tuples indexed by id (AoS) |
//! | `sparse_set` | [`SparseSetStorage`] | packed values, id-to-index map, swap-remove |
//! | `hash_map` | [`HashMapStorage`] | packed values found through a hash map from id, for rare components |
//! | `tag` | [`Tag`] | no data: presence bits of a zero-sized type |
//! | `many` | [`ManyColumn`] | first instances in a `contiguous` (or `sparse_set`, `hash_map`) column, the others and every key per id beside it |
//!
//! # Concurrency contract
//! While systems run, a column is only shared (`&self`); systems write values
//! through the raw pointers of [`Column::get_ptr`]. The scheduler guarantees
//! that no two threads access the value of the same id at the same time unless
//! both only read, so a column only has to keep distinct ids' values apart and
//! let writes happen through a shared borrow (values live in `UnsafeCell`s,
//! or in a buffer the column reaches through a raw pointer, not a borrow).

mod contiguous;
pub(crate) mod drops;
mod grouped;
mod hash_map;
mod many;
pub(crate) mod packed;
mod presence;
mod slots;
mod sparse_set;
mod tag;

pub use contiguous::{discard_contiguous, relocate_contiguous, Contiguous};
pub use grouped::{discard_grouped, member_drop, relocate_grouped, Group, GroupColumn, Grouped, Member};
pub use hash_map::{discard_hash_map, relocate_hash_map, HashMapStorage};
pub use many::{IterMut, ManyColumn, ManyFetch, ManyMut, ManyRef};
pub use sparse_set::{discard_sparse_set, relocate_sparse_set, SparseSetStorage};
pub use tag::{discard_tag, relocate_tag, tag_drop, Tag};

use crate::error::EntityLimit;
use crate::handle::EntityId;
use core::ops::Range;
use core::ptr::NonNull;

/// Access to the values of one component, by entity id.
///
/// # Safety
/// The context records in each entity's bitset which components it holds,
/// and systems then read and write those values through [`fetch`](Self::fetch),
/// [`get_ptr_unchecked`](Self::get_ptr_unchecked) and raw pointers without
/// checking that they exist. A column must therefore keep, for every id,
/// exactly the value its methods said they stored, and implementors
/// promise all of the following (`SAFETY.md` of `ecs-core` says who relies
/// on what).
///
/// *Holding values.* At any time each id holds one value or none.
/// - [`insert`](Self::insert)`(id, v)` and [`insert_new`](Self::insert_new)
///   leave `id` holding `v` (a value `id` held before is returned by
///   `insert`, and dropped or leaked by `insert_new`);
/// - [`fill`](Self::fill)`(ids)` leaves every id of `ids` holding the value
///   written through the pointer of [`prepare_fill`](Self::prepare_fill);
///   `prepare_fill(ids)`, when it returns `Some`, leaves the ids of `ids`
///   holding no value (one held before is dropped or leaked), and a value
///   written through its pointer is held only once `fill` records it;
/// - [`remove`](Self::remove)`(id)` leaves `id` holding none and returns the
///   value it held; [`discard`](Self::discard)`(id)` leaves `id` holding
///   none, the value it held dropped; [`remove_range`](Self::remove_range)`(ids)` leaves every
///   id of `ids` holding none, each value it held dropped;
/// - [`relocate`](Self::relocate)`(from, to)`, when `from` holds a value,
///   leaves `to` holding that value and `from` holding none; otherwise it
///   changes nothing;
/// - [`swap`](Self::swap)`(a, b)`, when both hold a value, leaves each
///   holding the other's;
/// - no method changes what an id holds except as listed above for the ids
///   the call names: the values of all other ids stay where they are,
///   untouched (a `&mut self` method may move the buffer they live in, see
///   the pointers below), and `&self` methods change nothing;
/// - a value an id holds is initialised and valid for `Item` (never read
///   after it was moved out or dropped), and each held value is dropped at
///   most once (returned, dropped by the column, or leaked).
///
/// *Observing values.* [`contains`](Self::contains)`(id)` is whether `id`
/// holds a value, and [`get`](Self::get), [`get_mut`](Self::get_mut) and
/// [`get_ptr`](Self::get_ptr) return `Some` exactly then, each leading to
/// the value held (`get_ptr_unchecked` and `fetch` too, when overridden or
/// implemented).
///
/// *Pointers.* The pointer from `get_ptr`, `get_ptr_unchecked` or `fetch`
/// points to the value `id` holds, is valid for reads and writes of it
/// until the next call of a `&mut self` method or the column is dropped,
/// and writing through it while the column is only shared-borrowed is
/// allowed (the value lives in an `UnsafeCell`, in memory the column owns
/// through a raw pointer rather than a borrow, or is zero-sized). Values of
/// distinct ids never overlap in memory. `&self` methods never create a
/// reference to the value of an id other than the one asked for, and may run
/// on several threads at once. When [`LINEAR`](Self::LINEAR) is true, the
/// values of consecutive ids are consecutive `Item`s in memory (see there).
///
/// *Unwinding.* A method that panics leaves every id the call does not name
/// as it was, and each id it names either as it was before the call or as
/// the call would have left it (the context reads nothing it has not
/// recorded, so either is sound, at worst a value is leaked); a panic in
/// `relocate` aborts the process.
///
/// The context keeps its side: it records a component in an entity's bitset
/// only once the call that stores the value has returned, and clears the
/// record before it removes the value. The built-in storages honour this
/// contract, each for the reason stated at its `unsafe impl`.
///
/// A custom storage that counts the values ever stored, keeping them in a
/// built-in storage, to which it leaves the contract:
///
/// ```
/// use ecs::storage::{Column, HashMapStorage, Storage};
/// use ecs::{EntityId, EntityLimit};
/// use std::ptr::NonNull;
///
/// pub struct Score(pub u32);
///
/// /// Scores in a hash map, counting insertions.
/// pub struct CountedScores {
///     inner: HashMapStorage<Score>,
///     pub inserted: usize,
/// }
///
/// impl Storage for CountedScores {
///     fn new(limit: EntityLimit) -> Self {
///         CountedScores { inner: HashMapStorage::new(limit), inserted: 0 }
///     }
/// }
///
/// // SAFETY: every method is `HashMapStorage`'s, which keeps the contract.
/// unsafe impl Column for CountedScores {
///     type Item = Score;
///     type Fetch = <HashMapStorage<Score> as Column>::Fetch;
///
///     fn insert(&mut self, id: EntityId, value: Score) -> Option<Score> {
///         self.inserted += 1;
///         self.inner.insert(id, value)
///     }
///     fn remove(&mut self, id: EntityId) -> Option<Score> {
///         self.inner.remove(id)
///     }
///     fn contains(&self, id: EntityId) -> bool {
///         self.inner.contains(id)
///     }
///     fn get(&self, id: EntityId) -> Option<&Score> {
///         self.inner.get(id)
///     }
///     fn get_mut(&mut self, id: EntityId) -> Option<&mut Score> {
///         self.inner.get_mut(id)
///     }
///     fn get_ptr(&self, id: EntityId) -> Option<NonNull<Score>> {
///         self.inner.get_ptr(id)
///     }
///     fn fetch_state(&self) -> Self::Fetch {
///         self.inner.fetch_state()
///     }
///     unsafe fn fetch(state: Self::Fetch, id: EntityId) -> NonNull<Score> {
///         // SAFETY: the caller keeps `fetch`'s contract, which is the inner
///         // storage's.
///         unsafe { HashMapStorage::<Score>::fetch(state, id) }
///     }
/// }
///
/// ecs::declare_context! {
///     pub context Game {
///         components { Score: custom(CountedScores); }
///         systems {}
///     }
/// }
///
/// let mut game = Game::new();
/// let e = game.step(|p| p.spawn((Score(1),)).unwrap());
/// game.step(|p| p.add(e, Score(2)).map(drop).unwrap());
/// game.step(|p| assert_eq!(p.get::<Score>(e).map(|s| s.0), Some(2)));
/// ```
pub unsafe trait Column: Send + Sync {
    /// The component type stored.
    type Item: Send + Sync + 'static;

    /// Whether the values of consecutive ids lie side by side: for a state
    /// from [`fetch_state`](Self::fetch_state) and ids `id..id + n` that all
    /// have values, the value of `id + k` is at `fetch(state, id).add(k)`.
    /// Systems then move a block of values at once (`contiguous` does);
    /// `false`, the default, makes no promise.
    const LINEAR: bool = false;

    /// Stores `value` for `id`, returning the value it replaces.
    ///
    /// The old value is returned, not dropped: the caller drops it once the
    /// column holds the new one, so that a panicking `drop` finds the
    /// column consistent.
    ///
    /// See [the trait's example](Column), which implements it.
    fn insert(&mut self, id: EntityId, value: Self::Item) -> Option<Self::Item>;

    /// Stores `value` for an `id` known to have none (a new entity's
    /// component): storages may skip looking for a value to replace.
    ///
    /// Implementations must behave as `insert` does when `id` has no value;
    /// when it has one (a broken promise from a safe caller), the old value
    /// may be leaked but memory stays sound.
    ///
    /// Provided; see [the trait's example](Column), which keeps this default.
    // Always inlined: a storage that keeps this default then compiles no
    // function of its own for it, only `insert` (at 64 components / 32
    // systems, 31 one-call functions of a debug build).
    #[inline(always)]
    fn insert_new(&mut self, id: EntityId, value: Self::Item) {
        // Dropped at the end of the statement (`drop(...)` would compile one
        // more function per item type in a debug build; so below).
        let _ = self.insert(id, value);
    }

    /// Prepares to store the values of new entities at the fresh ids `ids`
    /// in place, for [`Defer::spawn_batch`](crate::Defer::spawn_batch):
    /// returns a pointer to the slot of `ids.start`, the slot of
    /// `ids.start + k` being at `.add(k)`, valid for writes until the next
    /// call of a `&mut self` method other than this one. `None` (the
    /// default) when values have no fixed place; the batch then stores them
    /// with `insert_new`.
    ///
    /// A value written through the pointer is not held (a later `get`
    /// finds nothing, and the column never drops it) until
    /// [`fill`](Self::fill) records it. Storages that return `Some` must
    /// implement `fill`.
    ///
    /// Provided; see [the trait's example](Column), which keeps this default.
    // Always inlined: one function per component type in a debug build
    // otherwise, for a `None`.
    #[inline(always)]
    fn prepare_fill(&mut self, ids: Range<usize>) -> Option<NonNull<Self::Item>> {
        let _ = ids;
        None
    }

    /// Records that the slots of `ids` hold the values written through the
    /// pointer of [`prepare_fill`](Self::prepare_fill).
    ///
    /// Provided; see [the trait's example](Column), which keeps this default.
    ///
    /// # Safety
    /// `prepare_fill` returned `Some` for a range that contains `ids`, no
    /// other `&mut self` method was called since, and the slot of every id
    /// of `ids` was initialised through that pointer.
    ///
    /// # Panics
    /// The default implementation, which only storages whose `prepare_fill`
    /// returns `None` have (and then no caller meets the contract), panics.
    unsafe fn fill(&mut self, ids: Range<usize>) {
        let _ = ids;
        unreachable!("`fill` of a storage whose `prepare_fill` returns `None`")
    }

    /// Removes and returns the value of `id`, if any.
    ///
    /// See [the trait's example](Column), which implements it.
    fn remove(&mut self, id: EntityId) -> Option<Self::Item>;

    /// Removes and drops the value of `id`, if any: [`remove`](Self::remove)
    /// without handing the value back, which is how the context removes the
    /// components of the entities it reclaims (one call per component
    /// index, through the declaration's `match`). The built-in storages
    /// drop through their untyped cores, so that this dispatch compiles no
    /// function per component type.
    ///
    /// Provided (`remove`, its value dropped); see [the trait's
    /// example](Column), which keeps this default.
    #[inline]
    fn discard(&mut self, id: EntityId) {
        // Dropped at the end of the statement, as in `insert_new`.
        let _ = self.remove(id);
    }

    /// Removes and drops the value of every id of `ids` that has one, as
    /// [`remove`](Self::remove) does one by one (the default); storages may
    /// clear a range at once.
    ///
    /// Whatever `drop` panics, after the call (returning or unwinding) no id
    /// of `ids` holds a value, and every value the range held was dropped
    /// once: a panicking `drop` stops only itself, the others still run, and
    /// the first panic is resumed at the end, as dropping a `Vec` goes on
    /// after a panicking element (a second panic does not abort here: its
    /// payload is dropped). The context trusts this: it clears the
    /// components' bits of every entity before calling it
    /// ([`Defer::remove_from_all`](crate::Defer::remove_from_all)), so a
    /// value left behind would be one no entity claims.
    ///
    /// Provided; see [the trait's example](Column), which keeps this default.
    fn remove_range(&mut self, ids: Range<usize>) {
        drops::drop_each(ids, |i| drop(self.remove(EntityId(i as u32))));
    }

    /// Moves the value of `from`, if any, to `to`: the context packs entity
    /// ids this way when it reclaims entities (`to` belongs to no entity).
    ///
    /// Relocation drops nothing, so that no user `drop` runs while the
    /// context is halfway through moving an entity: should `to` hold a value
    /// (one that no entity claims, left by a spawn that panicked), that value
    /// moves to `from` instead of being dropped, where it stays unclaimed
    /// (`from` is past the entities' ids once packed) until that id is given
    /// the component or the column is dropped.
    ///
    /// The default removes the value and inserts it again (and gives back
    /// to `from` what `insert` returns); storages that keep an index of ids
    /// may update it in place instead. A panic here (or in the `remove` and
    /// `insert` the default calls) aborts the process.
    ///
    /// Provided; see [the trait's example](Column), which keeps this default.
    #[inline]
    fn relocate(&mut self, from: EntityId, to: EntityId) {
        if let Some(value) = self.remove(from)
            && let Some(unclaimed) = self.insert(to, value)
        {
            let _ = self.insert(from, unclaimed);
        }
    }

    /// Exchanges the values of `a` and `b`, which both hold one: the
    /// context sorts entity ids this way under `layout: archetypes`.
    ///
    /// Like relocation, it drops nothing. The default removes both values
    /// and inserts each at the other id (a value `insert` returns, which a
    /// column keeping its contract never does after `remove`, is dropped);
    /// the built-in storages exchange in place. A panic here aborts the
    /// process.
    ///
    /// Provided; see [the trait's example](Column), which keeps this default.
    #[inline]
    fn swap(&mut self, a: EntityId, b: EntityId) {
        if a == b {
            return;
        }
        let (va, vb) = (self.remove(a), self.remove(b));
        if let Some(v) = vb {
            let _ = self.insert(a, v);
        }
        if let Some(v) = va {
            let _ = self.insert(b, v);
        }
    }

    /// Whether `id` has a value.
    ///
    /// See [the trait's example](Column), which implements it.
    fn contains(&self, id: EntityId) -> bool;

    /// The value of `id`, if any.
    ///
    /// See [the trait's example](Column), which implements it.
    fn get(&self, id: EntityId) -> Option<&Self::Item>;

    /// The value of `id`, mutably, if any.
    ///
    /// See [the trait's example](Column), which implements it.
    fn get_mut(&mut self, id: EntityId) -> Option<&mut Self::Item>;

    /// A pointer to the value of `id`, if any; see the trait's contract.
    ///
    /// See [the trait's example](Column), which implements it.
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<Self::Item>>;

    /// What iteration keeps from one entity to the next, such as the base
    /// pointer of a buffer indexed by id, so that the hot loop of a system
    /// does no more than pointer arithmetic.
    type Fetch: Copy;

    /// The iteration state of this column.
    ///
    /// See [the trait's example](Column), which implements it.
    fn fetch_state(&self) -> Self::Fetch;

    /// A pointer to the value of `id`, from an iteration state.
    ///
    /// See [the trait's example](Column), which implements it.
    ///
    /// # Safety
    /// `state` comes from `fetch_state` on this column, which has not been
    /// borrowed mutably since (nor dropped), and `id` has a value. The
    /// pointer obeys the same contract as `get_ptr`'s.
    unsafe fn fetch(state: Self::Fetch, id: EntityId) -> NonNull<Self::Item>;

    /// A pointer to the value of `id`, without checking that it exists.
    ///
    /// Provided; see [the trait's example](Column), which keeps this default.
    ///
    /// # Safety
    /// `id` must have a value (`contains(id)`).
    #[inline]
    #[allow(
        clippy::redundant_pattern_matching,
        reason = "`is_some` is a function per type in a debug build"
    )]
    unsafe fn get_ptr_unchecked(&self, id: EntityId) -> NonNull<Self::Item> {
        let ptr = self.get_ptr(id);
        // `matches!`, not `is_some`: one more function per item type in a
        // debug build.
        debug_assert!(matches!(ptr, Some(_)), "get_ptr_unchecked on an id without a value");
        // SAFETY: the caller guarantees `id` has a value, so `get_ptr` is `Some`.
        unsafe { ptr.unwrap_unchecked() }
    }
}

/// A component storage strategy that a context can create on its own.
///
/// Implement it (and [`Column`]) for a type and name it in a declaration with
/// `Component: custom(MyStorage)`.
///
/// ```
/// use ecs::storage::{Column, Contiguous, Storage};
/// use ecs::EntityLimit;
///
/// /// An empty column of any storage.
/// fn empty<S: Storage>() -> S {
///     S::new(EntityLimit::Dynamic { initial: 16 })
/// }
///
/// let column: Contiguous<u32> = empty();
/// assert_eq!(column.get(ecs::EntityId::from_bits(0)), None);
/// ```
pub trait Storage: Column + Sized {
    /// An empty storage. With [`EntityLimit::Fixed`], allocate for the limit
    /// here: a fixed context promises that storage never reallocates.
    ///
    /// A context makes its storages where nothing can unwind: a panic here,
    /// when a context is made, aborts the process.
    ///
    /// See [the trait's example](Storage), which calls it, and [`Column`]'s, which implements it.
    fn new(limit: EntityLimit) -> Self;
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Checks one column type against the contract, with values 0..n.
    pub(crate) fn exercise<C: Column<Item = u64>>(mut c: C) {
        let ids = [0u32, 7, 3, 100, 42];
        for &i in &ids {
            assert!(!c.contains(EntityId(i)));
            assert_eq!(c.insert(EntityId(i), i as u64 * 10), None);
        }
        assert_eq!(c.insert(EntityId(3), 33), Some(30));
        for &i in &ids {
            let want = if i == 3 { 33 } else { i as u64 * 10 };
            assert_eq!(c.get(EntityId(i)), Some(&want));
            // SAFETY: no other reference to the value exists here.
            assert_eq!(unsafe { *c.get_ptr(EntityId(i)).unwrap().as_ptr() }, want);
            // SAFETY: the id has a value (inserted above).
            assert_eq!(unsafe { *c.get_ptr_unchecked(EntityId(i)).as_ptr() }, want);
            // SAFETY: the state is fresh and the id has a value.
            assert_eq!(unsafe { *C::fetch(c.fetch_state(), EntityId(i)).as_ptr() }, want);
        }
        *c.get_mut(EntityId(7)).unwrap() += 1;
        let p = c.get_ptr(EntityId(42)).unwrap();
        // SAFETY: `p` is valid until the next `&mut self` call; nothing else
        // refers to id 42's value.
        unsafe { *p.as_ptr() += 1 };
        assert_eq!(c.get(EntityId(42)), Some(&421));
        assert_eq!(c.remove(EntityId(0)), Some(0));
        assert_eq!(c.remove(EntityId(0)), None);
        assert_eq!(c.remove(EntityId(5000)), None);
        assert_eq!(c.get(EntityId(0)), None);
        assert_eq!(c.get(EntityId(5000)), None);
        assert_eq!(c.get(EntityId(7)), Some(&71));
        assert_eq!(c.get(EntityId(100)), Some(&1000));
        // `swap` exchanges two held values and touches no other id.
        c.swap(EntityId(7), EntityId(100));
        assert_eq!(c.get(EntityId(7)), Some(&1000));
        assert_eq!(c.get(EntityId(100)), Some(&71));
        assert_eq!(c.get(EntityId(42)), Some(&421));
        c.swap(EntityId(42), EntityId(42));
        assert_eq!(c.get(EntityId(42)), Some(&421));
        // `discard` removes one id's value and touches no other id; an id
        // without one stays without.
        c.discard(EntityId(7));
        c.discard(EntityId(7));
        c.discard(EntityId(5000));
        assert!(!c.contains(EntityId(7)) && c.get(EntityId(7)).is_none());
        assert_eq!(c.get(EntityId(42)), Some(&421));
        assert_eq!(c.get(EntityId(100)), Some(&71));
        assert_eq!(c.get(EntityId(3)), Some(&33));
        // `insert_new` stores for an id without a value (one past every
        // slot so far too: growth) as `insert` does, and replaces a value
        // the id holds after all.
        c.insert_new(EntityId(7), 77);
        c.insert_new(EntityId(150), 9);
        c.insert_new(EntityId(3), 34);
        assert_eq!(c.get(EntityId(7)), Some(&77));
        assert_eq!(c.get(EntityId(150)), Some(&9));
        assert_eq!(c.get(EntityId(3)), Some(&34));
        assert_eq!(c.get(EntityId(42)), Some(&421));
        assert_eq!(c.remove(EntityId(3)), Some(34));
        assert_eq!(c.get(EntityId(150)), Some(&9));
        assert_eq!(c.get(EntityId(7)), Some(&77));
    }

    /// A value counting its drops, whose `drop` panics when `panics` is set.
    pub(crate) struct Bomb {
        pub(crate) panics: bool,
        pub(crate) drops: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    }

    impl Drop for Bomb {
        fn drop(&mut self) {
            self.drops.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if self.panics {
                panic!("a value's drop panics");
            }
        }
    }

    /// `insert_new` onto an id whose value (an unclaimed one) panics when
    /// dropped: the old value is dropped once, the new one by the
    /// unwinding, and the id is left without a value; the other ids keep
    /// theirs, and the column drops them once.
    pub(crate) fn insert_new_over_a_panicking_value<C: Column<Item = Bomb>>(mut c: C) {
        let drops = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let bomb = |panics| Bomb {
            panics,
            drops: drops.clone(),
        };
        c.insert_new(EntityId(5), bomb(false));
        c.insert_new(EntityId(2), bomb(true));
        c.insert_new(EntityId(9), bomb(false));
        let new = bomb(false);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| c.insert_new(EntityId(2), new)));
        assert!(caught.is_err());
        assert_eq!(drops.load(std::sync::atomic::Ordering::SeqCst), 2);
        assert!(!c.contains(EntityId(2)) && c.get(EntityId(2)).is_none());
        assert!(c.contains(EntityId(5)) && c.contains(EntityId(9)));
        drop(c);
        assert_eq!(drops.load(std::sync::atomic::Ordering::SeqCst), 4);
    }

    /// `insert_new` onto an id that holds a value (an unclaimed one, left
    /// by a spawn that panicked) drops the old value once, keeps the new
    /// one, and the column drops that one once.
    /// A value aligned to 64 bytes, for [`stores_over_aligned_values`].
    #[repr(align(64))]
    pub(crate) struct Wide(pub(crate) u8);

    /// Values of an over-aligned type are stored aligned, past a fixed
    /// limit's room too (a column whose constructor builds untyped parts
    /// must give them the type's layout).
    pub(crate) fn stores_over_aligned_values<C: Column<Item = Wide>>(mut c: C) {
        for i in 0..20 {
            c.insert_new(EntityId(i), Wide(i as u8));
        }
        for i in 0..20 {
            let w = c.get(EntityId(i)).unwrap();
            assert_eq!(((w as *const Wide).addr() % 64, w.0), (0, i as u8));
        }
    }

    pub(crate) fn insert_new_drops_replaced<C: Column<Item = std::sync::Arc<()>>>(mut c: C) {
        let (old, new) = (std::sync::Arc::new(()), std::sync::Arc::new(()));
        c.insert_new(EntityId(4), old.clone());
        c.insert_new(EntityId(1), old.clone());
        assert_eq!(std::sync::Arc::strong_count(&old), 3);
        c.insert_new(EntityId(4), new.clone());
        assert_eq!(std::sync::Arc::strong_count(&old), 2);
        assert!(std::sync::Arc::ptr_eq(c.get(EntityId(4)).unwrap(), &new));
        assert!(std::sync::Arc::ptr_eq(c.get(EntityId(1)).unwrap(), &old));
        drop(c);
        assert_eq!(
            (std::sync::Arc::strong_count(&old), std::sync::Arc::strong_count(&new)),
            (1, 1)
        );
    }
}
