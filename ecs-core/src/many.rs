//! Several instances of a component per entity: the `many` storage
//! strategy.
//!
//! A component `A` declared `A: many;` is named `A` in rights lists and
//! `Many<A>` in code (bundles, `has::<Many<A>>`): an entity holds `Many<A>`
//! (and matches the systems over it)
//! while it holds at least one instance of `A`. Its column is a
//! [`ManyColumn`](crate::storage::ManyColumn).
//!
//! # Layout: first instances in a plain column
//!
//! ```text
//! first: [A; ids]        e0.a  e1.a  e2.a  e3.a ...   a plain column (contiguous)
//! more:  [u8; ids]        0     1     0     0   ...   1: the id holds more than one
//! side:  [Side; ids]     first key, last key, None | Box<{ rest: Vec<A>, keys }>
//! ```
//!
//! Each entity's first instance sits in an id-indexed column, exactly as a
//! `contiguous` component's value does: `Many<A>` is `A` under another
//! name (`repr(transparent)`), so a walk over first instances is a walk
//! over a plain column, and the compiler vectorises it as it does one. The
//! entities holding several instances are marked by a byte per id
//! (`more`), and their other instances, with every instance's key, live
//! per id in `side`, which walks over one-instance entities never touch.
//! A per-instance walk ([`Data::for_each_instance`](crate::Data::for_each_instance))
//! walks the first instances as a plain column, then the others: it skips
//! that second pass when no entity holds several (one count for the
//! column), and otherwise checks the `more` bytes of 8 consecutive
//! entities with one load, visiting only blocks with a byte set. A
//! per-entity view ([`ManyRef`](crate::ManyRef),
//! [`ManyMut`](crate::ManyMut), from the [`Instances`](crate::Instances)
//! and [`InstancesMut`](crate::InstancesMut) queries) joins the first
//! instance and the rest.
//!
//! A byte rather than a bit per id: a system split into subtasks gives
//! each its own entities, which may add or remove their instances while
//! the others run; a bit shares its word with 63 other ids, a byte with
//! none, so no write races another subtask's (no atomics on the walk).
//!
//! # Keys
//!
//! An instance is named by the pair ([`Entity`](crate::Entity),
//! [`InstanceKey`]). A key is a counter kept per id in `side` (not in the
//! walked column): each instance made at the id takes the next value, and
//! the counter never goes back, through removals of instances or of the
//! whole component, so a key of a removed instance never names a later
//! one. Killing the entity and reusing its id is covered by the handle's
//! generation (a stale `Entity` finds no entity); packing ids when entities
//! are reclaimed, and sorting them under `layout: archetypes`, move the
//! counter with the entity. A key costs 8 bytes per instance, kept apart,
//! and nothing in the walked column.
//!
//! # Measured
//!
//! Callgrind, `benches/drivers`' `many_walk`: entities of one 4-byte
//! instance beside a 4-byte `Pos`, 20 runs of `e.0 += pos.0`, the count at
//! 40 000 entities minus the count at 20 000, less the same difference for
//! the creation alone, per entity and run (instruction counts do not
//! depend on load):
//!
//! | walk | instructions per entity |
//! | --- | ---: |
//! | `for_each_instance::<&mut Emitter, &Pos>` | 3.49 |
//! | the same values `contiguous`, `for_each::<(&mut Emitter, &Pos)>` | 3.49 |
//! | by hand: first instances in a plain column, a bit per entity checked per 8 | 3.75 |
//! | before: `for_each::<(&mut Many<Emitter>, &Pos)>` over one enum per entity | 32.5 |
//! | `for_each::<(InstancesMut<Emitter>, &Pos)>`, `for e in set.iter_mut()` | 34.2 |
//! | every 10th entity with 3 instances: `for_each_instance` | 8.37 (6.98 per instance) |
//! | every 10th entity with 3 instances: `InstancesMut` | 36.8 |
//!
//! With one instance each, the per-instance walk is the `contiguous` walk
//! (the same blocks, vectorised; the second pass reads one count). The
//! per-entity view costs what building a view and iterating a first
//! instance and a slice cost for each entity, a loop the compiler does not
//! vectorise (a little more than the old layout's 32.5): walk instances with `for_each_instance`, and take the view
//! where an entity's instances are needed together (to add or remove
//! some, or compare them).

use core::fmt;
use core::num::NonZeroU64;

/// The stable name of one instance of a `many` component, among the
/// instances its entity ever held: returned when the instance is added
/// ([`ManyMut::push`](crate::ManyMut::push),
/// [`Defer::add_instance`](crate::Defer::add_instance)), read back with
/// [`ManyRef::key`](crate::ManyRef::key). With the entity's handle it names
/// the instance for as long as it exists, and nothing after.
///
/// ```
/// # pub struct Emitter(pub u8);
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Emitter: many; }
/// #         systems {}
/// #     }
/// # }
/// let mut world = World::new();
/// world.step(|p| {
///     let e = p.create().unwrap();
///     let smoke = p.add_instance(e, Emitter(1)).unwrap();
///     let sparks = p.add_instance(e, Emitter(2)).unwrap();
///     assert!(p.remove_instance::<Emitter>(e, smoke).is_some());
///     // Removed, then the entity's instances removed and added again: the
///     // key names nothing, and new instances get new keys.
///     assert!(p.remove_instance::<Emitter>(e, sparks).is_some());
///     let again = p.add_instance(e, Emitter(3)).unwrap();
///     assert!(again != smoke && again != sparks);
///     assert!(p.instance::<Emitter>(e, smoke).is_none());
/// });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstanceKey(NonZeroU64);

impl InstanceKey {
    pub(crate) fn from_nonzero(k: NonZeroU64) -> Self {
        InstanceKey(k)
    }

    /// The key as a number (distinct for distinct keys of one entity).
    ///
    /// # Examples
    /// ```
    /// # pub struct Emitter(pub u8);
    /// # ecs::declare_context! {
    /// #     pub context World { components { Emitter: many; } systems {} }
    /// # }
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.create().unwrap();
    ///     let smoke = p.add_instance(e, Emitter(1)).unwrap();
    ///     let sparks = p.add_instance(e, Emitter(2)).unwrap();
    ///     assert_ne!(smoke.get(), sparks.get());
    /// });
    /// ```
    pub fn get(self) -> u64 {
        self.0.get()
    }
}

/// An instance of the `many` component `T`, as a component value: what a
/// bundle or [`Defer::add`](crate::Defer::add) gives an entity (its first
/// instance; a value added to an entity holding instances replaces them
/// all), and the name of the component in rights lists (`write:
/// [Emitter]` names it too).
///
/// It is opaque: a query `&Many<T>` would see only the first instance, so
/// it offers nothing to read. (Assigning a `Many<T>` through `&mut
/// Many<T>`, as `get_mut` or a `&mut Many<T>` query allow, sets the value
/// of the entity's first instance, which keeps its key, as writing through
/// [`Defer::instance_mut`](crate::Defer::instance_mut) does.) Systems read an entity's instances through
/// [`Instances<T>`](crate::Instances) and
/// [`InstancesMut<T>`](crate::InstancesMut), or each instance through
/// [`Data::for_each_instance`](crate::Data::for_each_instance); the step
/// proxy through [`Defer::instances`](crate::Defer::instances).
///
/// ```
/// use ecs::Many;
///
/// let first = Many::new("smoke");
/// assert_eq!(first.into_inner(), "smoke");
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Many<T>(pub(crate) T);

impl<T> Many<T> {
    /// One instance.
    ///
    /// # Examples
    /// ```
    /// use ecs::Many;
    ///
    /// let first = Many::new(3);
    /// assert_eq!(first.into_inner(), 3);
    /// ```
    #[inline]
    pub fn new(value: T) -> Self {
        Many(value)
    }

    /// The instance.
    ///
    /// # Examples
    /// ```
    /// use ecs::Many;
    ///
    /// assert_eq!(Many::new("smoke").into_inner(), "smoke");
    /// ```
    #[inline]
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> From<T> for Many<T> {
    fn from(value: T) -> Self {
        Many(value)
    }
}

impl<T: fmt::Debug> fmt::Debug for Many<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Many").field(&self.0).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A first instance is its value: the walked column is a plain one.
    #[test]
    fn a_first_instance_is_its_value() {
        use core::mem::{align_of, size_of};
        assert_eq!(size_of::<Many<[f32; 3]>>(), 12);
        assert_eq!(align_of::<Many<u64>>(), align_of::<u64>());
        assert_eq!(size_of::<Option<InstanceKey>>(), 8);
    }
}
