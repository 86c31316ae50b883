//! Matching entities to systems, and a refresh's reclamation of killed
//! entities: the runtime code that depends on a context only through its
//! component set type. The context's shells (`context.rs`, `refresh.rs`,
//! `run.rs`) call it through [`RefreshCore`], so that the sets
//! `declare_context!` picks for up to 128 components (`Bits8` to `Bits128`)
//! use the copy compiled here, once, rather than each context compiling its
//! own (as [`Table`] and [`Match`] do for the table's and the sets'
//! bookkeeping). What needs the context's types (its columns) comes in
//! through [`Columns`], one call per value reclaimed or moved.

use crate::entity::{Entities, Life, Table};
use crate::event_sink::{fire_all, Event, EventSink};
use crate::handle::{Entity, EntityId};
use crate::names::Names;
use crate::schedule::{discard, keep_first, Payload};
use crate::sparse_set::Match;
use crate::subscriptions::Subscriptions;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A context's columns, as a refresh changes them: its
/// `ContextDecl::remove_component` and `relocate_component`.
pub(crate) trait Columns {
    /// Drops the value of component `index` of `id`, if any.
    fn remove(&mut self, index: usize, id: EntityId);
    /// Moves the value of component `index` from `from`, if any, to `to`,
    /// which holds none.
    fn relocate(&mut self, index: usize, from: EntityId, to: EntityId);
}

/// The parts of a context that matching and reclamation change.
pub(crate) struct Parts<'a, B> {
    pub(crate) entities: &'a mut Entities<B>,
    pub(crate) subscriptions: &'a mut Subscriptions,
    /// The systems' signatures, by system (`ContextDecl::SIGNATURES`).
    pub(crate) signatures: &'a [B],
}

/// Matching and reclamation for one component set type.
///
/// Sealed by [`ComponentSet`], which no other crate can implement; not
/// part of the public API (its arguments cannot be named outside this
/// crate).
#[doc(hidden)]
#[expect(
    private_interfaces,
    reason = "its arguments are crate-private: only this crate can call it"
)]
pub trait RefreshCore: Table + Match {
    /// Matches the entities created or changed since the last matching to
    /// systems, pushing the events when `collect`: afterwards, system `i`
    /// processes exactly the entities that are not reclaimed and whose
    /// bitset contains `signatures[i]`, the subscriber sets have no holes
    /// left, and a set holding every entity is in id order.
    fn match_dirty(parts: Parts<'_, Self>, fired: &mut Vec<Event>, collect: bool);
    /// [`match_dirty`](Self::match_dirty), then the events fired to `events`.
    fn match_and_fire(parts: Parts<'_, Self>, events: &mut dyn EventSink, collect: bool);
    /// A refresh after the deferred functions: reclaims the dying entities
    /// (values dropped through `columns`, names released), packs the ids
    /// (values moved through `columns`), then matches what changed when
    /// `match_now` (pushing the events when `collect`) or else compacts the
    /// subscriber sets. The first panic of a value's `drop` reaches the
    /// caller once all that is done, except the matching.
    fn reclaim(
        parts: Parts<'_, Self>,
        names: &mut Option<Box<Names>>,
        columns: &mut dyn Columns,
        fired: &mut Vec<Event>,
        collect: bool,
        match_now: bool,
    );
}

/// `RefreshCore` through the bodies below; `$inline` is `never` for the
/// sets compiled here (not generic, so compiled once in this crate, and
/// not inlined, so that callers link to that copy).
macro_rules! refresh_core {
    ($($inline:meta => $set:ty $(, const $w:ident)?;)*) => {$(
        #[expect(private_interfaces, reason = "the trait's arguments are crate-private: only this crate calls it")]
        impl$(<const $w: usize>)? RefreshCore for $set {
            #[$inline]
            fn match_dirty(parts: Parts<'_, Self>, fired: &mut Vec<Event>, collect: bool) {
                match_dirty(parts, fired, collect)
            }
            #[$inline]
            fn match_and_fire(parts: Parts<'_, Self>, events: &mut dyn EventSink, collect: bool) {
                let mut fired = Vec::new();
                match_dirty(parts, &mut fired, collect);
                fire_all(events, fired);
            }
            #[$inline]
            fn reclaim(
                parts: Parts<'_, Self>,
                names: &mut Option<Box<Names>>,
                columns: &mut dyn Columns,
                fired: &mut Vec<Event>,
                collect: bool,
                match_now: bool,
            ) {
                reclaim(parts, names, columns, fired, collect, match_now)
            }
        }
    )*};
}

refresh_core! {
    inline(never) => crate::bitset::Bits8;
    inline(never) => crate::bitset::Bits16;
    inline(never) => crate::bitset::Bits32;
    inline(never) => crate::bitset::Bits64;
    inline(never) => crate::bitset::Bits128;
    inline => crate::bitset::Bitset<W>, const W;
}

/// [`RefreshCore::match_dirty`].
#[inline]
fn match_dirty<B: Table + Match>(parts: Parts<'_, B>, fired: &mut Vec<Event>, collect: bool) {
    let Parts {
        entities,
        subscriptions,
        signatures,
    } = parts;
    if entities.has_dirty() {
        match_entities(entities, subscriptions, signatures, fired, collect);
    }
    if !entities.bulk().is_empty() {
        match_bulk(entities, subscriptions, signatures, fired, collect);
    }
    // Closes the holes removals left, keeping the sets' order; packing
    // moves entities out of id order, so a set holding every entity
    // becomes one ascending run again, which systems walk linearly. (A
    // tidy set costs one check.) Every member of a set is an entity, and
    // every entity's id is below the bound.
    subscriptions.compact_into_runs(entities.id_bound());
}

/// Matches the entities queued one by one.
#[inline]
fn match_entities<B: Table + Match>(
    entities: &mut Entities<B>,
    subscriptions: &mut Subscriptions,
    signatures: &[B],
    fired: &mut Vec<Event>,
    collect: bool,
) {
    // Runs of entities alike (a batch of new ones) are matched at once.
    entities.drain_dirty(|first, ids, life, bits| {
        let want = |i: usize| life == Life::Alive && bits.contains_all(&signatures[i]);
        let start = ids.start;
        let handle = |id: EntityId| Entity {
            slot: first.slot + (id.0 - start),
            generation: first.generation,
        };
        let whole = subscriptions.update_run(ids.clone(), want, |id, i, subscribed| {
            if collect {
                fired.push(if subscribed {
                    Event::Subscribe(i, handle(id))
                } else {
                    Event::Unsubscribe(i, handle(id))
                });
            }
        });
        if whole && collect {
            // Every wanted system gained each entity: the events one-by-one
            // matching gives, in its order.
            for id in ids {
                for i in (0..signatures.len()).filter(|&i| want(i)) {
                    fired.push(Event::Subscribe(i, handle(EntityId(id))));
                }
            }
        }
    });
}

/// Matches the systems that name a component changed in bulk (added to or
/// removed from any number of entities at once) against every entity: one
/// comparison per entity and such system, and a change only where
/// membership differs (the entities queued one by one were matched just
/// before). No id is a hole outside a refresh's reclamation, so each holds
/// an entity, alive or killed, matched by its components as
/// `match_entities` matches it. The bulk changes are forgotten only once
/// matched.
#[inline]
fn match_bulk<B: Table + Match>(
    entities: &mut Entities<B>,
    subscriptions: &mut Subscriptions,
    signatures: &[B],
    fired: &mut Vec<Event>,
    collect: bool,
) {
    let changed = entities.bulk();
    let table = &*entities;
    let mut report = |i: usize, id: EntityId, subscribed: bool| {
        let handle = table.entity_with_id(id);
        fired.push(if subscribed {
            Event::Subscribe(i, handle)
        } else {
            Event::Unsubscribe(i, handle)
        });
    };
    let report: Option<&mut dyn FnMut(usize, EntityId, bool)> = if collect { Some(&mut report) } else { None };
    subscriptions.rematch(signatures, table, &changed, report);
    entities.clear_bulk();
}

/// [`RefreshCore::reclaim`].
#[inline]
fn reclaim<B: Table + Match>(
    parts: Parts<'_, B>,
    names: &mut Option<Box<Names>>,
    columns: &mut dyn Columns,
    fired: &mut Vec<Event>,
    collect: bool,
    match_now: bool,
) {
    // A panicking `drop` in reclamation waits until the context is in
    // order (every dying entity reclaimed, ids packed), then reaches the
    // caller without this refresh's events; the next refresh or run
    // compacts the sets, as after any refresh that matched nothing.
    let panicked = if parts.entities.has_dying() {
        reclaim_dying(parts.entities, parts.subscriptions, names, columns, fired, collect)
    } else {
        None
    };
    if parts.entities.has_holes() {
        // The entities with the highest ids move into the ids the reclaimed
        // ones left: values and subscriptions follow, handles stay valid,
        // and the ids stay packed.
        let subscriptions = &mut *parts.subscriptions;
        // Between moving an entity's values and moving its subscriptions, a
        // system's set may name an id whose values are elsewhere. Only a
        // custom storage's `relocate` (or the `remove` and `insert` of the
        // default) could panic there (relocation drops no value, and the
        // built-in storages only fail to allocate, which aborts); unwinding
        // would leave that state behind, so abort instead.
        let guard = AbortOnUnwind;
        parts.entities.pack(|from, to, bits| {
            bits.for_each(|c| columns.relocate(c, from, to));
            subscriptions.relocate(from, to);
        });
        core::mem::forget(guard);
    }
    if let Some(payload) = panicked {
        std::panic::resume_unwind(payload);
    }
    if match_now {
        match_dirty(parts, fired, collect);
    } else {
        // Matching waits for the next run (see `Context`), but the holes
        // reclamation left are closed now, so that the sets' memory stays
        // bounded however many steps pass without a run.
        parts.subscriptions.compact_into_runs(parts.entities.id_bound());
    }
}

/// Reclaims every dying entity: removes it from the systems' sets, drops
/// its values and frees its slot, pushing the events when `collect`.
///
/// A value whose `drop` panics stops nothing: the rest of the entity's
/// values and the rest of the dying entities are reclaimed all the same,
/// and the first panic is returned for the caller to resume once the
/// refresh has put the context in order. The payloads of the others are
/// dropped where their own panics cannot escape ([`discard`]): nothing
/// unwinds out of here before the dying buffer is restored.
fn reclaim_dying<B: Table>(
    entities: &mut Entities<B>,
    subscriptions: &mut Subscriptions,
    names: &mut Option<Box<Names>>,
    columns: &mut dyn Columns,
    fired: &mut Vec<Event>,
    collect: bool,
) -> Option<Payload> {
    let dying = entities.take_dying();
    let mut done = 0;
    let mut first_panic = None;
    while done < dying.len() {
        // Unwind safety: `reclaim_one` leaves the context consistent at
        // every `drop` it calls (the value's bit is already clear), and
        // calling it again on the same slot finishes what a panic
        // interrupted.
        let interrupted = catch_unwind(AssertUnwindSafe(|| {
            while let Some(&slot) = dying.get(done) {
                reclaim_one(entities, subscriptions, names, columns, slot, |e| {
                    if collect {
                        fired.push(e);
                    }
                });
                done += 1;
            }
        }));
        if let Err(payload) = interrupted {
            // Each panic consumed a value, so this loop ends.
            if let Some(unkept) = keep_first(&mut first_panic, payload) {
                discard(unkept);
            }
        }
    }
    entities.restore_dying_buffer(dying);
    first_panic
}

/// Reclaims the dying entity of `slot`; calls `fire` with its events. Each
/// value's bit is cleared before the value is dropped, so calling it again
/// after a panicking `drop` drops only the values left.
#[inline]
fn reclaim_one<B: Table>(
    entities: &mut Entities<B>,
    subscriptions: &mut Subscriptions,
    names: &mut Option<Box<Names>>,
    columns: &mut dyn Columns,
    slot: u32,
    mut fire: impl FnMut(Event),
) {
    let (handle, id) = entities.entity_at(slot);
    // A set that no longer holds the id reports nothing: removing twice is
    // removing once.
    subscriptions.remove(id, |i| fire(Event::Unsubscribe(i, handle)));
    let bits = *entities.bits(id);
    bits.for_each(|c| {
        entities.clear_dying_bit(id, c);
        columns.remove(c, id);
    });
    entities.free_slot(slot);
    if let Some(names) = names {
        names.release(slot);
    }
    fire(Event::Reclaim(handle));
}

/// Aborts the process if dropped, which only unwinding does (the owner
/// forgets it once past the code it guards).
struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        eprintln!("ecs: a storage panicked while entity ids were being packed; aborting");
        std::process::abort();
    }
}
