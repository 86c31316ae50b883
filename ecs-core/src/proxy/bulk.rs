//! Changing many entities at once: a component added to every entity that
//! holds some others, or removed from every entity that holds it.
//!
//! These touch packed arrays (the entities' bitsets, the column) instead of
//! resolving one handle after another. When they change many entities (a
//! quarter of the ids or more), they queue one bulk change for matching
//! instead of each entity: before systems next run, the systems that name
//! the component are matched against every entity, a few instructions per
//! entity whose membership did not change. Fewer changes are queued entity
//! by entity, as [`Defer::add`] and [`Defer::remove`] queue them, so that
//! changing a handful of entities never costs a pass over all of them.

use crate::bitset::ComponentSet;
use crate::context::Context;
use crate::decl::{Component, ContextDecl};
use crate::entity::Entities;
use crate::handle::EntityId;
use crate::proxy::{Components, Defer};
use crate::storage::drops::Panics;
use crate::storage::Column;
use core::ops::Range;
use core::ptr::NonNull;

/// A change to fewer than `1 / FEW` of the ids is matched entity by entity.
const FEW: usize = 4;

impl<Cx: ContextDecl> Defer<'_, Cx> {
    /// Adds component `C`, with the value `value(id)`, to every live entity
    /// that holds every component of `W` (a tuple such as `(A, B)`; `()`
    /// for every live entity); an entity that holds `C` already gets the
    /// new value and drops the old one. Returns how many entities it gave
    /// `C`, in id order.
    ///
    /// EnTT's `insert` over a view, bevy's `insert_batch`: much faster than
    /// [`add`](Self::add) in a loop, since it resolves no handles and
    /// writes runs of entities that lack `C` straight into their slots.
    /// Systems see the change from the next time they run.
    ///
    /// ```
    /// # pub struct Health(pub f32);
    /// # pub struct Regenerating { pub per_second: f32 }
    /// # ecs::declare_context! {
    /// #     pub context World { components { Health: contiguous; Regenerating: sparse_set; } systems {} }
    /// # }
    /// # let mut world = World::new();
    /// # world.step(|p| { p.spawn((Health(1.0),)).unwrap(); p.create().unwrap(); });
    /// // Every entity holding `Health` starts regenerating.
    /// let n = world.step(|p| p.add_to_all::<(Health,), _>(|_| Regenerating { per_second: 2.0 }));
    /// assert_eq!(n, 1);
    /// ```
    ///
    /// # Panics
    /// A panic of `value` reaches the caller. The entities before the one
    /// whose value panicked hold their new `C`, the others are unchanged.
    ///
    /// A panicking `drop` of a value replaced stops nothing: every entity
    /// gets its new `C` (and every other old value is dropped), then the
    /// first such panic reaches the caller.
    pub fn add_to_all<W: Components<Cx>, C: Component<Cx>>(&mut self, mut value: impl FnMut(EntityId) -> C) -> usize {
        let cx = &mut *self.cx;
        let with = W::bits();
        // Holding `W` and lacking `C`: `bits & mask == with`.
        let mut mask = with;
        mask.insert(C::INDEX);
        let every_id_alive = !cx.entities.has_dying() && !cx.entities.has_holes();
        let alive =
            |entities: &Entities<Cx::Bits>, id: usize| every_id_alive || entities.is_id_alive(EntityId(id as u32));
        let n = cx.entities.id_bound();
        let mut added = 0;
        // Panics of replaced values' `drop`, resumed once every entity has
        // its new value (dropped unresumed if `value` panics).
        let mut panics = Panics::default();
        // Killed entities are counted too: an estimate is enough here.
        let takers = count(cx.entities.all_bits(), &with, &with);
        if takers * FEW < n {
            for i in 0..n {
                let id = EntityId(i as u32);
                if cx.entities.bits(id).contains_all(&with) && alive(&cx.entities, i) {
                    let at = (cx.entities.slot_with_id(id), id);
                    if let Some(old) = cx.insert_component::<C>(at, value(id)) {
                        panics.run(|| drop(old));
                    }
                    added += 1;
                }
            }
            panics.resume();
            return added;
        }
        // Queued first: whatever happens below, matching will see it.
        cx.entities.mark_bulk(C::INDEX);
        let mut id = 0;
        while id < n {
            let bits = cx.entities.all_bits()[id];
            if !bits.contains_all(&with) || !alive(&cx.entities, id) {
                id += 1;
            } else if bits.contains(C::INDEX) {
                let id_ = EntityId(id as u32);
                if let Some(old) = C::column_mut(&mut cx.storages).insert(id_, value(id_)) {
                    panics.run(|| drop(old));
                }
                added += 1;
                id += 1;
            } else {
                // A run of entities that lack `C`, stored at once.
                let start = id;
                id = if every_id_alive {
                    run_end(cx.entities.all_bits(), start + 1, &mask, &with)
                } else {
                    (start + 1..n)
                        .find(|&i| !cx.entities.all_bits()[i].masked_eq(&mask, &with) || !alive(&cx.entities, i))
                        .unwrap_or(n)
                };
                store_run(cx, start..id, &mut value);
                added += id - start;
            }
        }
        panics.resume();
        added
    }

    /// Removes component `C` from every entity that holds it (killed ones
    /// too), dropping the values; returns how many held it.
    ///
    /// EnTT's `clear<C>()`, flecs's `remove_all`: for components that mark
    /// a moment, such as "hit this step", cleared everywhere at once. Much
    /// faster than [`remove`](Self::remove) in a loop: one pass over the
    /// entities' bitsets, and the column emptied at once. Systems see the
    /// change from the next time they run.
    ///
    /// # Panics
    /// A panic of a value's `drop` reaches the caller once every entity has
    /// lost `C` and every other value was dropped (a panicking `drop` stops
    /// no other; the first panic is the one raised). The context stays
    /// consistent: no entity holds `C`, the column holds no value.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # pub struct Hit;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; Hit: tag; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let a = p.spawn((Position(0.0), Hit)).unwrap();
    ///     let b = p.spawn((Position(1.0), Hit)).unwrap();
    ///     p.spawn((Position(2.0),)).unwrap();
    ///     assert_eq!(p.remove_from_all::<Hit>(), 2);
    ///     assert!(!p.has::<Hit>(a) && !p.has::<Hit>(b));
    ///     assert!(p.has::<Position>(a));
    ///     assert_eq!(p.remove_from_all::<Hit>(), 0);
    /// });
    /// ```
    pub fn remove_from_all<C: Component<Cx>>(&mut self) -> usize {
        let cx = &mut *self.cx;
        let mut only = Cx::Bits::default();
        only.insert(C::INDEX);
        let holders = count(cx.entities.all_bits(), &only, &only);
        let n = cx.entities.id_bound();
        if holders == 0 {
            return 0;
        }
        if holders * FEW < n {
            let mut panics = Panics::default();
            for i in 0..n {
                let id = EntityId(i as u32);
                if cx.entities.bits(id).contains(C::INDEX) {
                    // The bit is clear and the value out of the column
                    // before it is dropped.
                    if let Some(old) = cx.remove_component::<C>((cx.entities.slot_with_id(id), id)) {
                        panics.run(|| drop(old));
                    }
                }
            }
            panics.resume();
            return holders;
        }
        cx.entities.mark_bulk(C::INDEX);
        for bits in cx.entities.all_bits_mut() {
            bits.remove(C::INDEX);
        }
        // The bitsets claim no value now; `remove_range` leaves none in the
        // column, however many `drop`s panic (its contract).
        C::column_mut(&mut cx.storages).remove_range(0..n);
        holders
    }
}

/// How many bitsets are `value` under `mask` (no early exit: the compiler
/// vectorises it). Counted in chunks of fewer than 256 in a byte each, so
/// that the vector lanes are as narrow as one-byte bitsets, not as wide as a
/// `usize` count.
fn count<B: ComponentSet>(bits: &[B], mask: &B, value: &B) -> usize {
    bits.chunks(255)
        .map(|chunk| {
            let n = chunk.iter().fold(0u8, |n, b| n + u8::from(b.masked_eq(mask, value)));
            usize::from(n)
        })
        .sum()
}

/// The first index from `from` on whose bitset is not `value` under `mask`,
/// or `bits.len()`: whole chunks are compared without an early exit, so that
/// the compiler vectorises the scan.
fn run_end<B: ComponentSet>(bits: &[B], from: usize, mask: &B, value: &B) -> usize {
    const CHUNK: usize = 16;
    let mut end = from;
    while let Some(chunk) = bits.get(end..end + CHUNK) {
        if !chunk.iter().fold(true, |eq, b| eq & b.masked_eq(mask, value)) {
            break;
        }
        end += CHUNK;
    }
    end + bits[end.min(bits.len())..]
        .iter()
        .position(|b| !b.masked_eq(mask, value))
        .unwrap_or(bits.len() - end.min(bits.len()))
}

/// Stores `value(id)` as component `C` of every entity of `ids`, live
/// entities that lack `C`, and records it in their bitsets.
fn store_run<Cx: ContextDecl, C: Component<Cx>>(
    cx: &mut Context<Cx>,
    ids: Range<usize>,
    value: &mut impl FnMut(EntityId) -> C,
) {
    let (storages, entities) = (&mut cx.storages, &mut cx.entities);
    let column = C::column_mut(storages);
    let Some(first) = column.prepare_fill(ids.clone()) else {
        for i in ids {
            let id = EntityId(i as u32);
            column.insert_new(id, value(id));
            entities.all_bits_mut()[i].insert(C::INDEX);
        }
        return;
    };
    // Written straight into the slots; the guard records those written, also
    // when `value` panics, so that none is leaked or left unclaimed.
    let mut run = Run::<Cx, C> {
        column,
        bits: &mut entities.all_bits_mut()[ids.clone()],
        first,
        start: ids.start,
        written: 0,
    };
    for i in ids {
        let v = value(EntityId(i as u32));
        // SAFETY: `prepare_fill(ids)` returned `first` and the column had no
        // other `&mut` call since (the run holds it); `written < ids.len()`,
        // so the slot is that of an id of `ids`, not written yet.
        unsafe { run.first.add(run.written).write(v) };
        run.written += 1;
    }
}

/// The values of a run being written into a column's slots: records the
/// `written` first ones when dropped.
struct Run<'a, Cx: ContextDecl, C: Component<Cx>> {
    column: &'a mut C::Column,
    /// The bitsets of the run's ids.
    bits: &'a mut [Cx::Bits],
    first: NonNull<C>,
    start: usize,
    written: usize,
}

impl<Cx: ContextDecl, C: Component<Cx>> Drop for Run<'_, Cx, C> {
    fn drop(&mut self) {
        let ids = self.start..self.start + self.written;
        // SAFETY: `first` came from `prepare_fill` of a range that contains
        // `ids`, the column had no other `&mut` call since (`store_run`
        // only writes through `first`), and each of the `written` first
        // slots was written.
        unsafe { self.column.fill(ids) };
        // Values first, then the bits: they never claim a missing value.
        for bits in &mut self.bits[..self.written] {
            bits.insert(C::INDEX);
        }
    }
}
