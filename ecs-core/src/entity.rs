//! Entity ids, handles and the table of entity metadata.
//!
//! An entity has two numbers:
//! - its **id** ([`EntityId`]), the index of its values in every per-entity
//!   table (columns, subscriber sets). Ids stay packed: after each refresh
//!   the live entities hold exactly the ids `0..n`, because reclaiming an
//!   entity moves the entity with the highest id into the hole it leaves
//!   (the `swap_remove` of a hand-written `Vec`). So an id is valid for one
//!   step: systems and the step proxy use ids, and the next refresh may
//!   give the entity another;
//! - its **slot**, which the entity keeps all its life, and which a handle
//!   ([`Entity`]) names together with the slot's generation. Slots are
//!   reused in O(1) through a free list (lowest first), so a handle also
//!   holds the generation the slot had when the handle was made; the table
//!   bumps the generation every time it reclaims the slot, and a handle
//!   whose generation differs from the table's is stale and reads as dead.
//!
//! Generations have 31 bits and wrap: after 2^31 reclamations of the same
//! slot a very old handle would match again. At one reclamation of one slot
//! per microsecond that takes over half an hour of doing nothing else; we
//! accept it, as hecs and bevy_ecs do. (The 32nd bit marks a killed entity,
//! and ids and slots stay below 2^31 - 1, so that a slot's metadata fits in
//! 8 bytes.)
//!
//! The set of components an entity holds (its bitset) is kept by id, beside
//! the id's slot, not in the slot's metadata: operations on every entity
//! (matching a bulk change, adding or removing a component everywhere) then
//! walk one packed array, which the compiler vectorises.

use crate::bitset::ComponentSet;
use crate::error::EntityLimit;
use crate::generations::Generations;
use crate::handle::{Entity, EntityId};
use std::sync::Arc;
/// The life-cycle state of a slot.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Life {
    /// On the free list.
    Free,
    /// Alive and usable.
    Alive,
    /// Killed; its components stay until the next refresh reclaims it.
    Dying,
}

/// Bit 31 of [`Meta::tag`]: the entity is killed (dying).
const DYING: u32 = 1 << 31;
/// Bit 31 of [`Meta::place`]: the entity is on the `dirty` list.
const DIRTY: u32 = 1 << 31;
/// The id part of [`Meta::place`] of a free slot; ids stay below it.
const NO_ID: u32 = DIRTY - 1;

/// What the table knows of one slot, in 8 bytes: the flags live in the top
/// bits of the generation and the id.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Meta {
    /// The generation (bumped each time the slot is reclaimed) in bits 0-30;
    /// [`DYING`] when the entity is killed, and while the slot is free. A
    /// handle holds the generation alone, so a killed entity's handles stop
    /// matching at once, and no handle matches a free slot.
    tag: u32,
    /// The entity's id in bits 0-30, [`NO_ID`] while the slot is free;
    /// [`DIRTY`] while the slot is on the `dirty` list (its components
    /// changed since the last matching).
    place: u32,
}

impl Meta {
    /// An alive entity with id `index`.
    #[inline]
    fn alive(generation: u32, index: u32, dirty: bool) -> Self {
        Self {
            tag: generation,
            place: index | if dirty { DIRTY } else { 0 },
        }
    }

    #[inline]
    fn generation(&self) -> u32 {
        self.tag & !DYING
    }

    #[inline]
    fn index(&self) -> u32 {
        self.place & !DIRTY
    }

    #[inline]
    fn dirty(&self) -> bool {
        self.place & DIRTY != 0
    }

    #[inline]
    fn life(&self) -> Life {
        if self.index() == NO_ID {
            Life::Free
        } else if self.tag & DYING != 0 {
            Life::Dying
        } else {
            Life::Alive
        }
    }

    /// The id of the entity a handle with `generation` refers to, if that
    /// entity is alive.
    #[inline]
    fn alive_id(&self, generation: u32) -> Option<u32> {
        // A killed entity's tag has `DYING` set, and so has a free slot's
        // (`free_slot`, `restored`), which no handle has (a handle's
        // generation is a `generation()`, bit 31 clear): one comparison
        // tells a live entity of the handle's generation, even from a
        // handle 2^31 reclamations old that wraps onto a free slot.
        (self.tag == generation).then_some(self.index())
    }
}

/// Appends `count` metas to `meta`: `first`, then copies of it whose id is
/// one higher each time (the fresh slots of [`Entities::create_run`], slot
/// `first + k` holding id `index + k`). `first`'s id plus `count` stays
/// below [`NO_ID`] (the table's limit), so no id overflows into the
/// `DIRTY` bit.
///
/// This writes 80 KB for 10 000 entities, the only per-entity table of
/// simple_insert besides the columns: built by `extend` with a map, the
/// compiler assembled each pair of `u32`s in vector registers, 12
/// instructions per 4 entities, and the loop took ~24% of the workload's
/// time (`perf record -e cpu-clock`, `callgrind insert ecs`). Two 16-byte
/// stores and two additions per 4 entities, in SSE2 (part of every x86-64
/// target), fill 10 000 in 0.66 µs against 1.95 µs for the `extend` (and
/// 1.3 µs for scalar 8-byte stores).
#[inline]
fn push_alive_run(meta: &mut Vec<Meta>, count: usize, first: Meta) {
    meta.reserve(count);
    let len = meta.len();
    let spare = &mut meta.spare_capacity_mut()[..count];
    let done = fill_run_bulk(spare, first);
    for (k, m) in spare[done..].iter_mut().enumerate() {
        m.write(Meta {
            tag: first.tag,
            place: first.place + (done + k) as u32,
        });
    }
    // SAFETY: the `count` slots after `len` are in the capacity (reserved
    // above) and were all written: `fill_run_bulk` the first `done`, the
    // loop the rest.
    unsafe { meta.set_len(len + count) };
}

/// Writes the run of [`push_alive_run`] into the whole chunks of 4 of
/// `out` (vector stores, 4 metas in two of them); returns how many metas
/// it wrote, the rest being the caller's.
#[cfg(target_arch = "x86_64")]
#[inline]
fn fill_run_bulk(out: &mut [core::mem::MaybeUninit<Meta>], first: Meta) -> usize {
    use core::arch::x86_64::{__m128i, _mm_add_epi32, _mm_loadu_si128, _mm_storeu_si128};
    // A meta is two `u32`s (no padding), so 16 bytes hold two, each field
    // in a 32-bit lane, wherever the layout puts it: adding a meta of tag
    // 0 and place 4 lane by lane adds 4 to each id, and no stored lane
    // carries (ids stay below `NO_ID`, the caller's contract). Lanes past
    // the run (the chunk not written, the additions after the last store)
    // may wrap, hence `wrapping_add`: they are never stored.
    const { assert!(core::mem::size_of::<Meta>() == 8 && core::mem::size_of::<[Meta; 2]>() == 16) };
    let lanes: [Meta; 4] = core::array::from_fn(|k| Meta {
        tag: first.tag,
        place: first.place.wrapping_add(k as u32),
    });
    let step = [Meta { tag: 0, place: 4 }; 2];
    // SAFETY: SSE2 is enabled in every x86-64 build (the target's
    // baseline), which is all these intrinsics need; each load reads 16
    // bytes inside `lanes` (32 bytes) or `step` (16 bytes), initialised
    // `Meta`s of plain `u32`s, and `_mm_loadu_si128` needs no alignment.
    let (mut low, mut high, step) = unsafe {
        let lanes = lanes.as_ptr().cast::<__m128i>();
        (
            _mm_loadu_si128(lanes),
            _mm_loadu_si128(lanes.add(1)),
            _mm_loadu_si128(step.as_ptr().cast::<__m128i>()),
        )
    };
    let whole = out.len() / 4 * 4;
    for chunk in out[..whole].chunks_exact_mut(4) {
        let to = chunk.as_mut_ptr().cast::<__m128i>();
        // SAFETY: SSE2 as above; `chunk` is 4 writable `MaybeUninit<Meta>`,
        // 32 bytes, and `_mm_storeu_si128` needs no alignment. The bytes
        // written are those of 4 valid metas (each lane a `u32`).
        unsafe {
            _mm_storeu_si128(to, low);
            _mm_storeu_si128(to.add(1), high);
            low = _mm_add_epi32(low, step);
            high = _mm_add_epi32(high, step);
        }
    }
    whole
}

/// [`fill_run_bulk`] elsewhere: nothing in bulk, the caller's loop writes
/// every meta.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn fill_run_bulk(_: &mut [core::mem::MaybeUninit<Meta>], _: Meta) -> usize {
    0
}

/// The table of entity metadata.
///
/// ```text
///  slot -> meta: generation | killed, id | dirty
///  id   -> slot_of: the slot,  bits: the components held
/// ```
///
/// Invariants:
/// - `meta.len()` slots have been handed out at least once; a slot is on
///   `free` exactly when its `life` is `Free`;
/// - `slot_of[i]` is the slot of the entity with id `i`, for every `i` below
///   `slot_of.len()`, and the id in `meta[slot_of[i]]` is `i`: the slots that are
///   not free and the ids `0..slot_of.len()` correspond one to one, except
///   that an id on `holes` belongs to no entity (its slot was freed) until
///   `pack` fills it;
/// - `bits[i]` holds the components of the entity with id `i` (bit `c` is
///   set exactly when the storage of component `c` holds a value for `i`),
///   and `bits.len() == slot_of.len()`; a hole's bits are empty;
/// - a slot is on `dying` exactly when its `life` is `Dying`;
/// - a slot is on `dirty` exactly when its `dirty` flag is set; none is,
///   and `bulk` is empty, when `matched` is false;
/// - with a fixed limit, `meta`, `slot_of` and `bits` were allocated once
///   with room for the limit and never grow past it.
pub struct Entities<B> {
    meta: Vec<Meta>,
    slot_of: Vec<u32>,
    bits: Vec<B>,
    free: Vec<u32>,
    free_unsorted: bool,
    holes: Vec<u32>,
    dying: Vec<u32>,
    dirty: Vec<u32>,
    /// Components added to or removed from many entities at once since the
    /// last matching: the systems that name one of them are matched again
    /// against every entity, instead of queuing each entity on `dirty`.
    bulk: B,
    /// Whether changes are queued for matching at all: not in a context
    /// without systems, where matching has nothing to do.
    matched: bool,
    alive: usize,
    limit: EntityLimit,
    /// The generation table other threads read, once a
    /// [`Liveness`](crate::Liveness) handle was asked for: kept equal to
    /// `meta` (each slot's generation, and whether its entity is alive)
    /// by every creation, kill and reclamation. `None` until then, so a
    /// context that never hands one out pays a branch per change.
    shared: Option<Arc<Generations>>,
    /// Whether an entity was created, gained or lost a component of
    /// `order_mask`, or moved to another id since the last
    /// [`arrange`](Self::arrange): only then can the ids be out of order
    /// (`layout: archetypes`).
    moved: bool,
    /// The components the order of `arrange` depends on, as its last call
    /// gave them (none before): changes of other components leave the order
    /// as it is. Until the first `arrange`, `moved` is set whenever an
    /// entity exists (creations set it), so no change is missed.
    order_mask: B,
    /// What the last `arrange` left and what changed since, so that the
    /// next one patches the order rather than reading every id.
    order: crate::layout::Order<B>,
    /// This table's version: which table it is (`instance`, unique in the
    /// process) and how many times its entities' ids, lives or component
    /// sets changed (`changes`), bumped by every creation, kill, reclamation,
    /// move and change of a component set. Equal versions mean the same
    /// live entities holding the same components at the same ids, which is
    /// what a [`PreparedQuery`](crate::PreparedQuery) caches.
    instance: u64,
    changes: u64,
}

/// The next table's `instance`: every table gets its own, so that the
/// version of one never equals another's.
static INSTANCES: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

impl<B: ComponentSet> Entities<B> {
    /// An empty table for the given limit.
    pub fn new(limit: EntityLimit) -> Self {
        Self::with_matching_in(limit, true)
    }

    /// An empty table for the given limit that queues changed entities for
    /// matching only if `matched` (a context without systems has nothing to
    /// match them to, and allocates no queue).
    #[inline]
    pub(crate) fn with_matching(limit: EntityLimit, matched: bool) -> Self
    where
        B: Table,
    {
        B::with_matching(limit, matched)
    }

    /// [`with_matching`](Self::with_matching)'s body, compiled once per
    /// set type (see [`Table`]).
    fn with_matching_in(limit: EntityLimit, matched: bool) -> Self {
        let cap = limit.initial_capacity();
        let fixed = limit.is_fixed();
        Self {
            meta: Vec::with_capacity(cap),
            slot_of: Vec::with_capacity(cap),
            bits: Vec::with_capacity(cap),
            free: Vec::with_capacity(if fixed { cap } else { 0 }),
            free_unsorted: false,
            holes: Vec::new(),
            dying: Vec::new(),
            // A fixed context's entities are all known: no regrowth while a
            // wave of new entities is queued for matching.
            dirty: Vec::with_capacity(if fixed && matched { cap } else { 0 }),
            bulk: B::default(),
            matched,
            alive: 0,
            limit,
            shared: None,
            moved: false,
            order_mask: B::default(),
            order: crate::layout::Order::default(),
            instance: INSTANCES.fetch_add(1, core::sync::atomic::Ordering::Relaxed),
            changes: 0,
        }
    }

    /// The table's version: see the field `changes`. Equal versions, read
    /// from the same table or not, mean that no id, life or component set
    /// changed in between (a `u64` counted once per change never wraps).
    #[inline]
    pub(crate) fn version(&self) -> (u64, u64) {
        (self.instance, self.changes)
    }

    /// Records that an id, a life or a component set changed.
    #[inline(always)]
    fn changed(&mut self) {
        self.changes += 1;
    }

    /// Number of entities alive (not yet killed).
    #[inline]
    pub fn alive_count(&self) -> usize {
        self.alive
    }

    /// Number of ids in use (live and killed entities, and holes waiting to
    /// be packed); every entity's id is below it.
    #[inline]
    pub fn id_bound(&self) -> usize {
        self.slot_of.len()
    }

    /// The entity limit.
    pub fn limit(&self) -> EntityLimit {
        self.limit
    }

    /// Takes the lowest free slot, or a fresh one, and the next id, and
    /// marks the entity alive and dirty.
    #[inline]
    pub(crate) fn create(&mut self) -> Option<Entity> {
        self.create_with(&B::default(), |_| {})
    }

    /// Takes the lowest free slot, or a fresh one, and the next id (ids are
    /// packed, so that is [`id_bound`](Self::id_bound)); calls `store` with
    /// the id, which stores the values of the components of `bits`; then
    /// marks the entity alive and dirty, holding `bits`. `None` (and `store`
    /// is not called) when a fixed table is full or the slots are exhausted.
    ///
    /// The bitset is written after the values are stored, so that it never
    /// claims a value that is missing, even if `store` panics: the slot then
    /// stays free (or unissued) and the id unused, and a value stored before
    /// the panic stays in its column, unclaimed, until the id's next holder
    /// is given that component (`Column::insert_new` replaces it) or the
    /// column is dropped.
    ///
    /// The free list is sorted (descending) lazily, at the first creation
    /// after slots were freed; it is sorted but for the slots freed since, so
    /// the stable sort, which merges runs, costs little more than a pass.
    #[inline]
    pub(crate) fn create_with(&mut self, bits: &B, store: impl FnOnce(EntityId)) -> Option<Entity> {
        // Only `store` differs from one bundle to another: the rest is in
        // `next_index` and `record_created`, compiled once per context
        // rather than once per bundle type.
        let index = self.next_index()?;
        // One call site, so that `store` is inlined.
        store(EntityId(index));
        Some(self.record_created(index, bits))
    }

    /// The id the next entity created takes, if there is room for one.
    #[inline]
    pub(crate) fn next_index(&mut self) -> Option<u32> {
        self.sort_free();
        if self.free.is_empty() && self.meta.len() >= self.id_limit() {
            return None;
        }
        // Fewer ids are in use than slots handed out, below `id_limit`.
        Some(self.slot_of.len() as u32)
    }

    /// Records a new entity with id `index` (from `next_index`, the free
    /// list unchanged since) holding `bits`: the lowest free slot, or a
    /// fresh one.
    pub(crate) fn record_created(&mut self, index: u32, bits: &B) -> Entity {
        let e = if !self.free.is_empty() {
            self.reuse_free_slot(index, bits)
        } else {
            let slot = self.meta.len() as u32;
            self.meta.push(Meta::alive(0, index, false));
            self.publish(slot, 0, true);
            self.slot_of.push(slot);
            self.bits.push(*bits);
            self.mark_dirty(slot);
            Entity { slot, generation: 0 }
        };
        self.alive += 1;
        self.moved = true;
        self.changed();
        e
    }

    /// Sorts the free list (descending, so the lowest slot is popped first)
    /// if slots were freed since it was last sorted.
    #[inline]
    fn sort_free(&mut self) {
        if self.free_unsorted {
            sort_descending(&mut self.free);
            self.free_unsorted = false;
        }
    }

    /// Gives the lowest free slot to a new entity with id `index` (the next
    /// one) holding `bits`, queued for matching; returns its handle.
    #[inline]
    fn reuse_free_slot(&mut self, index: u32, bits: &B) -> Entity {
        let slot = self.free.pop().expect("a free slot");
        let meta = &mut self.meta[slot as usize];
        *meta = Meta::alive(meta.generation(), index, meta.dirty());
        let generation = meta.generation();
        self.publish(slot, generation, true);
        self.slot_of.push(slot);
        self.bits.push(*bits);
        self.mark_dirty(slot);
        Entity { slot, generation }
    }

    /// Records `count` new alive, dirty entities holding `bits` at the ids
    /// from [`id_bound`](Self::id_bound) on, whose values the caller has
    /// stored; they take the free slots, lowest first, then fresh ones.
    /// Returns the handles of those that reused a slot (they come first)
    /// and the range of fresh slots (generation 0) of the others.
    ///
    /// # Panics
    /// When there is room for fewer than `count` entities (the caller
    /// checks [`room`](Self::room) first).
    #[inline]
    pub(crate) fn create_run(&mut self, count: usize, bits: &B) -> (Vec<Entity>, core::ops::Range<u32>)
    where
        B: Table,
    {
        B::create_run(self, count, bits)
    }

    /// [`create_run`](Self::create_run)'s body, compiled once per set type
    /// (see [`Table`]).
    fn create_run_in(&mut self, count: usize, bits: &B) -> (Vec<Entity>, core::ops::Range<u32>) {
        assert!(count <= self.room(), "no room for {count} entities");
        self.sort_free();
        let reused_count = count.min(self.free.len());
        let mut reused = Vec::with_capacity(reused_count);
        for _ in 0..reused_count {
            let index = self.slot_of.len() as u32;
            reused.push(self.reuse_free_slot(index, bits));
        }
        let index = self.slot_of.len() as u32;
        let fresh = count - reused_count;
        let first = self.meta.len();
        // Room at once (a fixed table has it already): no regrowth in the
        // loops below.
        self.meta.reserve(fresh);
        self.slot_of.reserve(fresh);
        self.bits.reserve(fresh);
        push_alive_run(&mut self.meta, fresh, Meta::alive(0, index, self.matched));
        // Below `id_limit` (checked by `room`), so every slot fits in a `u32`.
        let slots = first as u32..(first + fresh) as u32;
        if let Some(shared) = &self.shared {
            for slot in slots.clone() {
                shared.set(slot, 0, true);
            }
        }
        self.slot_of.extend(slots.clone());
        self.bits.resize(self.slot_of.len(), *bits);
        if self.matched {
            self.dirty.extend(slots.clone());
        }
        self.alive += count;
        self.moved = true;
        self.changed();
        (reused, slots)
    }

    /// One past the highest slot (and id) the table may hand out: the fixed
    /// limit, or [`NO_ID`] (2^31 - 1, which marks free slots).
    #[inline]
    fn id_limit(&self) -> usize {
        let ids = NO_ID as usize;
        match self.limit {
            EntityLimit::Fixed(n) => n.min(ids),
            EntityLimit::Dynamic { .. } => ids,
        }
    }

    /// How many more entities can be created before the next reclamation:
    /// the free slots plus the slots never handed out.
    #[inline]
    pub(crate) fn room(&self) -> usize {
        self.free.len() + self.id_limit().saturating_sub(self.meta.len())
    }

    /// Makes room in the tables for `n` more entities without reallocating
    /// (a fixed table already has room for its limit).
    pub(crate) fn reserve(&mut self, n: usize) {
        let fresh = n.saturating_sub(self.free.len());
        self.meta.reserve(fresh);
        self.slot_of.reserve(n);
        self.bits.reserve(n);
        if self.matched {
            self.dirty.reserve(n);
        }
    }

    /// The slot of a handle that is alive, and its entity's id.
    #[inline]
    pub(crate) fn resolve(&self, e: Entity) -> Option<(u32, EntityId)> {
        let id = self.meta.get(e.slot as usize)?.alive_id(e.generation)?;
        Some((e.slot, EntityId(id)))
    }

    /// Whether the handle refers to the entity its slot holds now, and that
    /// entity is alive (not killed).
    #[inline]
    pub fn is_alive(&self, e: Entity) -> bool {
        self.resolve(e).is_some()
    }

    /// The id of a live entity, valid until the next refresh.
    #[inline]
    pub fn id_of(&self, e: Entity) -> Option<EntityId> {
        self.resolve(e).map(|(_, id)| id)
    }

    /// The slot of the entity with this id (live, killed, or a hole).
    #[inline]
    fn slot_at(&self, id: EntityId) -> Option<u32> {
        self.slot_of.get(id.index()).copied()
    }

    /// Whether the id holds a live entity.
    #[inline]
    pub fn is_id_alive(&self, id: EntityId) -> bool {
        self.handle(id).is_some()
    }

    /// The handle of the entity the id holds now, if alive.
    #[inline]
    pub fn handle(&self, id: EntityId) -> Option<Entity> {
        let slot = self.slot_at(id)?;
        let m = &self.meta[slot as usize];
        // `slot_of` and the ids in `meta` agree (invariant), except on holes,
        // whose slots are free.
        debug_assert!(m.life() == Life::Free || m.index() == id.0);
        (m.life() == Life::Alive).then_some(Entity {
            slot,
            generation: m.generation(),
        })
    }

    /// The component bitset of the entity with id `id` (below
    /// [`id_bound`](Self::id_bound)).
    #[inline]
    pub(crate) fn bits(&self, id: EntityId) -> &B {
        &self.bits[id.index()]
    }

    /// The component bitsets of every id, by id.
    #[inline]
    pub(crate) fn all_bits(&self) -> &[B] {
        &self.bits
    }

    /// The component bitsets of every id, to change many at once; the
    /// caller queues the change for matching with
    /// [`mark_bulk`](Self::mark_bulk).
    #[inline]
    pub(crate) fn all_bits_mut(&mut self) -> &mut [B] {
        self.moved = true;
        self.order.forget();
        self.changed();
        &mut self.bits
    }

    /// Clears component `bit` of the dying entity of id `id`, at its
    /// reclamation (systems no longer process it).
    #[inline]
    pub(crate) fn clear_dying_bit(&mut self, id: EntityId, bit: usize) {
        self.moved = true;
        if self.order_mask.contains(bit) {
            self.order.changed(id.0);
        }
        // Here, not only in `free_slot`: the value is dropped next, and a
        // panicking drop ends the reclamation before `free_slot` runs.
        self.changed();
        self.bits[id.index()].remove(bit);
    }

    /// Sets or clears component `bit` of the live entity of `slot`, with id
    /// `id`, and queues it for matching (for the tests; the context writes
    /// the bit through `bits_mut` or `take_bit`).
    #[cfg(test)]
    pub(crate) fn set_bit(&mut self, (slot, id): (u32, EntityId), bit: usize, present: bool) {
        let bits = self.bits_mut(id);
        if present {
            bits.insert(bit);
        } else {
            bits.remove(bit);
        }
        self.noted_bit((slot, id), bit, true);
    }

    /// The component set of the live entity with id `id`, to set one bit
    /// in: the caller then calls [`noted_bit`](Self::noted_bit). One bounds
    /// check for the test
    /// of the bit and its change (`Context::insert_component` stores the
    /// value in between).
    #[inline(always)]
    pub(crate) fn bits_mut(&mut self, id: EntityId) -> &mut B {
        &mut self.bits[id.index()]
    }

    /// Records that the live entity of `slot`, with id `id`, gained or lost
    /// component `bit` through [`bits_mut`](Self::bits_mut): a change of
    /// the order's components moves it out of order (`layout: archetypes`),
    /// the table's version changes, and with `queue` it is queued for
    /// matching (the caller passes whether a system's signature names
    /// `bit`: only then can the change alter which systems process it).
    ///
    /// The order's components are the ones signatures name (the context
    /// passes their union to [`arrange`](Self::arrange)), so without
    /// `queue` the bit is not among them and `order_mask` is not read: the
    /// caller's `queue` is a constant, and a toggle of a component no
    /// system names skips the test (2 instructions of ~45 per toggle in
    /// `fragmented_churn`).
    #[inline(always)]
    pub(crate) fn noted_bit(&mut self, (slot, id): (u32, EntityId), bit: usize, queue: bool) {
        debug_assert!(
            queue || !self.order_mask.contains(bit),
            "component {bit} orders ids but no signature names it"
        );
        if queue && self.order_mask.contains(bit) {
            self.moved = true;
            self.order.changed(id.0);
        }
        self.changed();
        if queue {
            self.mark_dirty(slot);
        }
    }

    /// Sets component `bit` of the live entity with id `id`, which held it
    /// already when `held`, recording a change as
    /// [`noted_bit`](Self::noted_bit) does for a component no signature
    /// names (`queue` false): only the table's version, bumped by
    /// `!held`. Setting a set bit changes nothing, so neither needs a
    /// branch on `held`.
    #[inline(always)]
    pub(crate) fn insert_unqueued_bit(&mut self, id: EntityId, bit: usize, held: bool) {
        debug_assert!(
            !self.order_mask.contains(bit),
            "component {bit} orders ids but no signature names it"
        );
        self.bits[id.index()].insert(bit);
        self.changes += u64::from(!held);
    }

    /// Clears component `bit` of the live entity of `slot`, with id `id`, if
    /// it holds it, recording the change as [`noted_bit`](Self::noted_bit)
    /// does; returns whether it held it. The set is read and written
    /// through one bounds check (a test, then a write, were two).
    #[inline(always)]
    pub(crate) fn take_bit(&mut self, (slot, id): (u32, EntityId), bit: usize, queue: bool) -> bool {
        let bits = &mut self.bits[id.index()];
        if !bits.contains(bit) {
            return false;
        }
        bits.remove(bit);
        self.noted_bit((slot, id), bit, queue);
        true
    }

    /// Queues for matching a change of component `bit` on any number of
    /// entities: before systems next run, the systems that name it are
    /// matched against every entity.
    #[inline]
    pub(crate) fn mark_bulk(&mut self, bit: usize) {
        if self.matched {
            self.bulk.insert(bit);
        }
    }

    /// The components changed in bulk since the last
    /// [`clear_bulk`](Self::clear_bulk).
    #[inline]
    pub(crate) fn bulk(&self) -> B {
        self.bulk
    }

    /// Forgets the bulk changes, once matched.
    #[inline]
    pub(crate) fn clear_bulk(&mut self) {
        self.bulk.clear();
    }

    /// The slot of the entity with id `id` (below
    /// [`id_bound`](Self::id_bound)).
    #[inline]
    pub(crate) fn slot_with_id(&self, id: EntityId) -> u32 {
        self.slot_of[id.index()]
    }

    /// The handle of the entity with id `id`, alive or killed (`id` below
    /// [`id_bound`](Self::id_bound), outside a refresh, where no id is a
    /// hole).
    #[inline]
    pub(crate) fn entity_with_id(&self, id: EntityId) -> Entity {
        self.entity_at(self.slot_with_id(id)).0
    }

    #[inline]
    fn mark_dirty(&mut self, slot: u32) {
        let meta = &mut self.meta[slot as usize];
        if !meta.dirty() && self.matched {
            meta.place |= DIRTY;
            self.dirty.push(slot);
        }
    }

    /// Marks the live entity of a slot as killed and queues it for
    /// matching, which takes it out of every system's set before systems
    /// next run; returns whether it was alive.
    fn kill_slot(&mut self, slot: u32) -> bool {
        match self.meta.get_mut(slot as usize) {
            Some(m) if m.life() == Life::Alive => {
                m.tag |= DYING;
                let generation = m.generation();
                self.publish(slot, generation, false);
                self.alive -= 1;
                self.changed();
                self.dying.push(slot);
                self.mark_dirty(slot);
                true
            }
            _ => false,
        }
    }

    /// The ids of the killed entities not reclaimed yet, in kill order.
    pub(crate) fn dying_ids(&self) -> impl Iterator<Item = EntityId> + '_ {
        self.dying
            .iter()
            .map(|&slot| EntityId(self.meta[slot as usize].index()))
    }

    /// Kills the entity of a live handle; returns whether it was alive.
    #[inline]
    pub(crate) fn kill(&mut self, e: Entity) -> bool {
        self.resolve(e).is_some_and(|(slot, _)| self.kill_slot(slot))
    }

    /// Kills the live entity with this id (valid since the last refresh);
    /// returns whether it was alive.
    pub(crate) fn kill_id(&mut self, id: EntityId) -> bool {
        self.handle(id).is_some_and(|e| self.kill_slot(e.slot))
    }

    /// Takes the list of killed entities' slots, leaving it empty.
    pub(crate) fn take_dying(&mut self) -> Vec<u32> {
        core::mem::take(&mut self.dying)
    }

    /// Gives back the (emptied) buffer of `take_dying`, to reuse its memory.
    pub(crate) fn restore_dying_buffer(&mut self, mut buf: Vec<u32>) {
        if self.dying.is_empty() {
            buf.clear();
            self.dying = buf;
        }
    }

    /// The handle and id of the entity of a slot that is not free.
    #[inline]
    pub(crate) fn entity_at(&self, slot: u32) -> (Entity, EntityId) {
        let m = &self.meta[slot as usize];
        (
            Entity {
                slot,
                generation: m.generation(),
            },
            EntityId(m.index()),
        )
    }

    /// Frees the slot of a dying entity whose components were all removed:
    /// bumps the generation so handles read dead, puts the slot on the free
    /// list, and leaves its id a hole for [`pack`](Self::pack).
    pub(crate) fn free_slot(&mut self, slot: u32) {
        let meta = &mut self.meta[slot as usize];
        debug_assert_eq!(meta.life(), Life::Dying);
        debug_assert!(self.bits[meta.index() as usize] == B::default());
        self.holes.push(meta.index());
        // `DYING` stays set while the slot is free: see `alive_id`.
        meta.tag = meta.generation().wrapping_add(1) | DYING;
        meta.place = NO_ID | (meta.place & DIRTY);
        let generation = meta.generation();
        self.publish(slot, generation, false);
        self.free.push(slot);
        self.free_unsorted = true;
        self.changed();
    }

    /// Sorts the ids by the components of `named` each entity holds
    /// (`layout: archetypes`, see `layout.rs`), if an entity was created,
    /// gained or lost one of them, or moved since the last call: `swap(a, b, bits_a, bits_b)` must exchange the
    /// entities of ids `a` and `b` everywhere else (their values, given the
    /// sets they held before the exchange); this table exchanges their
    /// slots and sets. Returns the number of exchanges.
    ///
    /// Call only outside a refresh's reclamation, where no entity is dying
    /// and no id is a hole.
    #[inline]
    pub(crate) fn arrange(&mut self, named: &B, mut swap: impl FnMut(EntityId, EntityId, &B, &B)) -> usize
    where
        B: Table,
    {
        B::arrange(self, named, &mut swap)
    }

    /// [`arrange`](Self::arrange)'s body, compiled once per set type (see
    /// [`Table`]).
    fn arrange_in(&mut self, named: &B, swap: &mut dyn FnMut(EntityId, EntityId, &B, &B)) -> usize {
        self.order_mask = *named;
        if !core::mem::replace(&mut self.moved, false) {
            return 0;
        }
        debug_assert!(self.holes.is_empty() && self.dying.is_empty());
        self.changed();
        let mut sets = core::mem::take(&mut self.bits);
        let (slot_of, meta) = (&mut self.slot_of, &mut self.meta);
        let swaps = crate::layout::arrange(&mut sets, named, &mut self.order, |a, b, set_a, set_b| {
            swap(EntityId(a as u32), EntityId(b as u32), &set_a, &set_b);
            slot_of.swap(a, b);
            for id in [a, b] {
                let m = &mut meta[slot_of[id] as usize];
                m.place = id as u32 | (m.place & DIRTY);
            }
        });
        self.bits = sets;
        swaps
    }

    /// The runs of ids the last [`arrange`](Self::arrange) left, each with
    /// the named components its entities hold and the id one past its end,
    /// in order.
    pub(crate) fn runs(&self) -> &[(B, usize)] {
        self.order.runs()
    }

    /// Whether freed ids wait to be filled by [`pack`](Self::pack).
    #[inline]
    pub(crate) fn has_holes(&self) -> bool {
        !self.holes.is_empty()
    }

    /// Fills every hole that freeing slots left, so that the entities hold
    /// the ids `0..n` again: from the highest hole down, the entity with the
    /// highest id moves into the hole (`relocate(from, to, bits)` must move
    /// its values and subscriptions), or the hole is dropped when it is the
    /// highest id. That is the order of a hand-written `swap_remove` of the
    /// dead from the back.
    #[inline]
    pub(crate) fn pack(&mut self, mut relocate: impl FnMut(EntityId, EntityId, &B))
    where
        B: Table,
    {
        B::pack(self, &mut relocate)
    }

    /// [`pack`](Self::pack)'s body, compiled once per set type (see
    /// [`Table`]).
    fn pack_in(&mut self, relocate: &mut dyn FnMut(EntityId, EntityId, &B)) {
        let mut holes = core::mem::take(&mut self.holes);
        if !holes.is_empty() {
            self.changed();
        }
        sort_descending_unstable(&mut holes);
        for &hole in &holes {
            // Every hole above this one is gone, so the last id holds an
            // entity (or is this hole).
            let last = self.slot_of.len() as u32 - 1;
            if hole != last {
                self.moved = true;
                let slot = self.slot_of[last as usize];
                let bits = self.bits[last as usize];
                relocate(EntityId(last), EntityId(hole), &bits);
                self.slot_of[hole as usize] = slot;
                self.bits[hole as usize] = bits;
                self.order.changed(hole);
                let meta = &mut self.meta[slot as usize];
                meta.place = hole | (meta.place & DIRTY);
            }
            self.slot_of.pop();
            self.bits.pop();
            self.order.shrunk(self.bits.len());
        }
        holes.clear();
        self.holes = holes;
    }

    /// Calls `f` with every entity queued for matching, in the order they
    /// were queued, gathered into runs, then empties the queue. A run is
    /// entities queued one after the other whose slots and ids both
    /// ascend by one, with the same generation, life and bitset (a batch of
    /// new entities is one run): `f(first, ids, life, bits)` gets the
    /// handle of the first, the run's ids (the entity of id `ids.start + k`
    /// has slot `first.slot() + k` and `first`'s generation), their life and
    /// bitset. Entities reclaimed since they were queued are skipped
    /// (reclamation already removed them from every system); killed ones,
    /// which their kill queued, come with [`Life::Dying`], and no system
    /// wants them.
    ///
    /// Each entity's flag is cleared before `f` sees it, and the queue is
    /// emptied only at the end: if `f` panics, the queue keeps every entity
    /// (some perhaps queued twice, which matching does not mind), so none
    /// misses the next matching.
    ///
    /// Generic over `f`, which it inlines, unlike the table's other
    /// bookkeeping ([`Table`]): entities changed one by one are each a run,
    /// and a call through a pointer per run made `benches/drivers`'
    /// `arrange_churn filler` cost 293k instead of 248k instructions per
    /// step (callgrind).
    #[inline]
    pub(crate) fn drain_dirty(&mut self, mut f: impl FnMut(Entity, core::ops::Range<u32>, Life, &B)) {
        let n = self.dirty.len();
        let mut k = 0;
        while k < n {
            let slot = self.dirty[k];
            k += 1;
            let meta = &mut self.meta[slot as usize];
            meta.place &= !DIRTY;
            let life = meta.life();
            if life == Life::Free {
                continue;
            }
            let generation = meta.generation();
            let id = meta.index();
            let bits = self.bits[id as usize];
            // The run goes on while the next queued entity is the next slot
            // with the next id, alike.
            let mut end = id + 1;
            while k < n && self.dirty[k] == slot + (end - id) {
                let m = &mut self.meta[self.dirty[k] as usize];
                // A free slot's index is `NO_ID`, never `end`.
                if m.index() != end
                    || m.generation() != generation
                    || m.life() != life
                    || self.bits[end as usize] != bits
                {
                    break;
                }
                m.place &= !DIRTY;
                end += 1;
                k += 1;
            }
            f(Entity { slot, generation }, id..end, life, &bits);
        }
        self.dirty.clear();
    }

    /// Whether any entity waits for matching.
    #[inline]
    pub(crate) fn has_dirty(&self) -> bool {
        !self.dirty.is_empty()
    }

    /// Whether any entity waits for reclamation.
    #[inline]
    pub(crate) fn has_dying(&self) -> bool {
        !self.dying.is_empty()
    }

    /// The generation of every slot handed out so far, by slot, and the
    /// slot of every id: what a saved context records of its entities
    /// (with no entity dying and no hole, which holds outside a step).
    #[cfg(feature = "serde")]
    pub(crate) fn table(&self) -> (impl ExactSizeIterator<Item = u32> + '_, &[u32]) {
        debug_assert!(self.dying.is_empty() && self.holes.is_empty());
        (self.meta.iter().map(Meta::generation), &self.slot_of)
    }

    /// A table whose slots have the given generations, and whose id `i`
    /// is the alive entity of slot `slot_of[i]`, holding no component,
    /// queued for matching; every other slot is free. `Err` with a reason,
    /// and nothing made, when the table is not one a context could hold:
    /// more slots than the limit allows, a generation with bit 31 set, a
    /// slot out of range or given two ids.
    #[cfg(feature = "serde")]
    pub(crate) fn restored(
        limit: EntityLimit,
        matched: bool,
        generations: &[u32],
        slot_of: &[u32],
    ) -> Result<Self, crate::error::RestoreError> {
        use crate::error::RestoreError;
        let mut table = Self::with_matching_in(limit, matched);
        if generations.len() > table.id_limit() {
            return Err(RestoreError::TooManyEntities {
                slots: generations.len(),
                limit: table.id_limit(),
            });
        }
        // OR-ed without an early exit, so that the loop is vectorised; the
        // search for the culprit runs only on a malformed table.
        if generations.iter().fold(0, |acc, &g| acc | g) & DYING != 0 {
            let g = generations.iter().find(|&&g| g & DYING != 0).copied().unwrap_or(DYING);
            return Err(RestoreError::Malformed(format!(
                "generation {g} does not fit in 31 bits"
            )));
        }
        // Ids in the slots of the same numbers (what a batch of new entities
        // saves), checked first: no slot can be given two ids, and every
        // slot past them is free, so the table is written in two passes.
        let in_order =
            slot_of.len() <= generations.len() && slot_of.iter().enumerate().all(|(id, &slot)| slot as usize == id);
        let mut taken = Vec::new();
        if !in_order {
            taken = vec![false; generations.len()];
            for &slot in slot_of {
                match taken.get_mut(slot as usize) {
                    None => {
                        return Err(RestoreError::Malformed(format!(
                            "slot {slot} is out of range ({} slots)",
                            generations.len()
                        )))
                    }
                    Some(true) => return Err(RestoreError::Malformed(format!("slot {slot} holds two entities"))),
                    Some(t) => *t = true,
                }
            }
        }
        // A free slot's tag has `DYING` set (see `alive_id`).
        table.meta.extend(generations.iter().map(|&g| Meta {
            tag: g | DYING,
            place: NO_ID,
        }));
        if in_order {
            let live = &mut table.meta[..slot_of.len()];
            for (id, (m, &g)) in live.iter_mut().zip(generations).enumerate() {
                *m = Meta::alive(g, id as u32, matched);
            }
            if matched {
                table.dirty.extend(0..slot_of.len() as u32);
            }
        } else {
            for (id, &slot) in slot_of.iter().enumerate() {
                table.meta[slot as usize] = Meta::alive(generations[slot as usize], id as u32, matched);
                if matched {
                    table.dirty.push(slot);
                }
            }
        }
        table.slot_of.extend_from_slice(slot_of);
        table.moved = true;
        table.bits.resize(slot_of.len(), B::default());
        // Descending, so that the lowest free slot is popped first.
        if in_order {
            table
                .free
                .extend((slot_of.len() as u32..generations.len() as u32).rev());
        } else {
            table
                .free
                .extend((0..generations.len() as u32).rev().filter(|&s| !taken[s as usize]));
        }
        table.alive = slot_of.len();
        Ok(table)
    }

    /// Sets the generation of a free slot (for tests of wrap-around).
    #[cfg(test)]
    pub(crate) fn set_generation(&mut self, slot: u32, generation: u32) {
        let meta = &mut self.meta[slot as usize];
        meta.tag = generation | (meta.tag & DYING);
        self.publish(slot, generation, false);
    }

    /// Records a slot's new state in the shared generation table, if one
    /// was handed out.
    #[inline(always)]
    fn publish(&self, slot: u32, generation: u32, alive: bool) {
        if let Some(shared) = &self.shared {
            shared.set(slot, generation, alive);
        }
    }

    /// The generation table other threads read, created (with every slot's
    /// state) the first time it is asked for and kept up to date from then
    /// on. A fixed table's is allocated whole now; a dynamic one's grows in
    /// chunks that never move.
    pub(crate) fn shared_generations(&mut self) -> Arc<Generations> {
        let meta = &self.meta;
        let limit = self.limit;
        self.shared
            .get_or_insert_with(|| {
                let first = match limit {
                    EntityLimit::Fixed(n) => n,
                    EntityLimit::Dynamic { initial } => initial.max(meta.len()).max(1024),
                };
                let table = Generations::new(first);
                for (slot, m) in meta.iter().enumerate() {
                    table.set(slot as u32, m.generation(), m.life() == Life::Alive);
                }
                Arc::new(table)
            })
            .clone()
    }
}

/// The entity table's bookkeeping for one component set type: what runs
/// once per refresh, per batch or per exchange of ids rather than per
/// entity created or read. The table calls it through this trait so that
/// the sets `declare_context!` picks for up to 128 components (`Bits8` to
/// `Bits128`) use the copy compiled here, once, rather than each context
/// compiling its own; the callbacks go through `&mut dyn`, one call per
/// entity moved. [`Bitset`](crate::Bitset) of more words keeps a copy per
/// context. ([`Entities::drain_dirty`] stays generic: see there.)
///
/// Sealed by [`ComponentSet`], which no other crate can implement; not
/// part of the public API.
#[doc(hidden)]
pub trait Table: ComponentSet {
    /// [`Entities::with_matching`].
    fn with_matching(limit: EntityLimit, matched: bool) -> Entities<Self>;
    /// [`Entities::create_run`].
    fn create_run(t: &mut Entities<Self>, count: usize, bits: &Self) -> (Vec<Entity>, core::ops::Range<u32>);
    /// [`Entities::arrange`].
    fn arrange(t: &mut Entities<Self>, named: &Self, swap: &mut dyn FnMut(EntityId, EntityId, &Self, &Self)) -> usize;
    /// [`Entities::pack`].
    fn pack(t: &mut Entities<Self>, relocate: &mut dyn FnMut(EntityId, EntityId, &Self));
    /// [`Entities::kill_id`] for each of `ids` in order, then empties
    /// `ids`, keeping its memory.
    fn kill_ids(t: &mut Entities<Self>, ids: &mut Vec<EntityId>);
    /// Drops the table: a context holds it in a `ManuallyDrop` and drops it
    /// through this, so that the table's drop glue (its vectors, the
    /// order, the shared generations) is compiled here, once, rather than
    /// in every crate that declares a context.
    ///
    /// # Safety
    /// As [`ManuallyDrop::drop`]: `t` is not used after (but to be
    /// forgotten).
    unsafe fn drop_table(t: &mut core::mem::ManuallyDrop<Entities<Self>>);
}

/// `Table` through the bodies above; `$inline` is `never` for the sets
/// compiled here (not generic, so compiled once in this crate, and not
/// inlined, so that callers link to that copy).
macro_rules! table {
    ($($inline:meta => $set:ty $(, const $w:ident)?;)*) => {$(
        impl$(<const $w: usize>)? Table for $set {
            #[$inline]
            fn with_matching(limit: EntityLimit, matched: bool) -> Entities<Self> {
                Entities::with_matching_in(limit, matched)
            }
            #[$inline]
            fn create_run(t: &mut Entities<Self>, count: usize, bits: &Self) -> (Vec<Entity>, core::ops::Range<u32>) {
                t.create_run_in(count, bits)
            }
            #[$inline]
            fn arrange(t: &mut Entities<Self>, named: &Self, swap: &mut dyn FnMut(EntityId, EntityId, &Self, &Self)) -> usize {
                t.arrange_in(named, swap)
            }
            #[$inline]
            fn pack(t: &mut Entities<Self>, relocate: &mut dyn FnMut(EntityId, EntityId, &Self)) {
                t.pack_in(relocate)
            }
            #[$inline]
            fn kill_ids(t: &mut Entities<Self>, ids: &mut Vec<EntityId>) {
                for &id in ids.iter() {
                    t.kill_id(id);
                }
                ids.clear();
            }
            #[$inline]
            unsafe fn drop_table(t: &mut core::mem::ManuallyDrop<Entities<Self>>) {
                // SAFETY: the caller uses `t` no more.
                unsafe { core::mem::ManuallyDrop::drop(t) }
            }
        }
    )*};
}

table! {
    inline(never) => crate::bitset::Bits8;
    inline(never) => crate::bitset::Bits16;
    inline(never) => crate::bitset::Bits32;
    inline(never) => crate::bitset::Bits64;
    inline(never) => crate::bitset::Bits128;
    inline => crate::bitset::Bitset<W>, const W;
}

impl<B> Drop for Entities<B> {
    /// Every entity reads dead through the [`Liveness`](crate::Liveness)
    /// handles that outlive the table.
    fn drop(&mut self) {
        if let Some(shared) = &self.shared {
            release_all(shared, &self.meta);
        }
    }
}

/// Marks every slot of `meta` dead in `shared`: not generic, so compiled
/// once, here, rather than with each table's drop.
fn release_all(shared: &Generations, meta: &[Meta]) {
    for (slot, m) in meta.iter().enumerate() {
        shared.set(slot as u32, m.generation(), false);
    }
}

/// Sorts slots or ids in descending order, stably (merging the sorted runs
/// the free list holds). Out of line and not generic, unlike the
/// `Entities<B>` calling it, so that the sort is compiled once, in this
/// crate, rather than in every crate that declares a context.
#[inline(never)]
fn sort_descending(v: &mut [u32]) {
    v.sort_by(|a, b| b.cmp(a));
}

/// [`sort_descending`], not stable (equal values are indistinguishable).
#[inline(never)]
fn sort_descending_unstable(v: &mut [u32]) {
    v.sort_unstable_by(|a, b| b.cmp(a));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitset::Bitset;

    type E = Entities<Bitset<1>>;

    impl E {
        fn slot_and_id(&self, slot: u32) -> (u32, EntityId) {
            (slot, self.entity_at(slot).1)
        }
    }

    /// The runs `drain_dirty` gives: (first slot, generation, ids, life).
    fn runs(t: &mut E) -> Vec<(u32, u32, core::ops::Range<u32>, Life)> {
        let mut v = Vec::new();
        t.drain_dirty(|e, ids, life, _| v.push((e.slot, e.generation, ids, life)));
        v
    }

    #[test]
    fn drain_dirty_gathers_entities_alike_into_runs() {
        let mut t = E::new(EntityLimit::Dynamic { initial: 0 });
        let mut a = Bitset::<1>::default();
        a.insert(0);
        let mut ab = a;
        ab.insert(1);
        t.create_run(3, &a);
        t.create_run(2, &ab);
        t.create_with(&ab, |_| {});
        assert_eq!(
            runs(&mut t),
            [(0, 0, 0..3, Life::Alive), (3, 0, 3..6, Life::Alive)],
            "a batch is one run, which a like entity queued next extends"
        );
        assert!(!t.has_dirty());
        // Killed, then a run reusing the freed slots: generations differ
        // from the fresh slots', so they are runs apart.
        t.kill_slot(1);
        t.kill_slot(2);
        assert_eq!(runs(&mut t), [(1, 0, 1..3, Life::Dying)]);
        reclaim(&mut t);
        let (reused, fresh) = t.create_run(3, &a);
        assert_eq!(reused.len(), 2);
        assert_eq!(fresh, 6..7);
        assert_eq!(
            runs(&mut t),
            [(1, 1, 4..6, Life::Alive), (6, 0, 6..7, Life::Alive)],
            "the ids after the 4 packed ones"
        );
        // Queued out of order, or with another bitset: no run.
        t.set_bit(t.slot_and_id(3), 1, false);
        t.set_bit(t.slot_and_id(0), 1, true);
        t.set_bit(t.slot_and_id(4), 1, true);
        let r = runs(&mut t);
        assert_eq!(r.len(), 3, "{r:?}");
        assert!(r.iter().all(|(_, _, ids, _)| ids.len() == 1));
    }

    /// Reclaims the killed entities and packs the ids, recording each move.
    fn reclaim(t: &mut E) -> Vec<(u32, u32)> {
        for slot in t.take_dying() {
            let (_, id) = t.entity_at(slot);
            t.all_bits_mut()[id.index()] = Default::default();
            t.free_slot(slot);
        }
        let mut moves = Vec::new();
        t.pack(|from, to, _| moves.push((from.0, to.0)));
        moves
    }

    #[test]
    fn a_table_that_is_never_matched_queues_nothing() {
        let mut t = E::with_matching(EntityLimit::Dynamic { initial: 4 }, false);
        let bits = Bitset::<1>::default();
        let e = t.create().unwrap();
        t.create_run(3, &bits);
        let at = t.resolve(e).unwrap();
        t.set_bit(at, 0, true);
        t.mark_bulk(1);
        assert!(!t.has_dirty(), "nothing to match, nothing queued");
        assert!(t.bulk().is_empty(), "nothing to match, nothing queued");
        assert_eq!(t.alive_count(), 4);
        assert!(t.bits(at.1).contains(0));
        assert_eq!(t.dirty.capacity(), 0, "and allocates no queue");
        t.reserve(100);
        assert_eq!(t.dirty.capacity(), 0, "not even when reserving");
    }

    #[test]
    fn slots_are_reused_with_new_generation() {
        let mut t = E::new(EntityLimit::Dynamic { initial: 0 });
        let a = t.create().unwrap();
        assert!(t.is_alive(a));
        assert!(t.kill(a));
        assert!(!t.is_alive(a), "killed reads dead at once");
        assert!(!t.kill(a), "second kill is harmless");
        reclaim(&mut t);
        let b = t.create().unwrap();
        assert_eq!(a.slot, b.slot);
        assert_ne!(a.generation, b.generation);
        assert!(!t.is_alive(a) && t.is_alive(b));
    }

    #[test]
    fn reclaiming_moves_the_highest_ids_into_the_holes() {
        let mut t = E::new(EntityLimit::Dynamic { initial: 0 });
        let es: Vec<Entity> = (0..10).map(|_| t.create().unwrap()).collect();
        for i in [2, 7, 9] {
            assert!(t.kill_id(EntityId(i)));
        }
        // From the highest hole down: 9 is last (dropped), 8 moves to 7 and
        // is then the last, which moves to 2: a `swap_remove` from the back.
        assert_eq!(reclaim(&mut t), [(8, 7), (7, 2)]);
        assert_eq!(t.id_bound(), 7);
        let ids: Vec<Option<u32>> = es.iter().map(|&e| t.id_of(e).map(|id| id.0)).collect();
        let some = |v: u32| Some(v);
        assert_eq!(
            ids,
            [
                some(0),
                some(1),
                None,
                some(3),
                some(4),
                some(5),
                some(6),
                None,
                some(2),
                None
            ]
        );
        for (k, &e) in es.iter().enumerate() {
            if let Some(id) = t.id_of(e) {
                assert_eq!(t.handle(id), Some(e), "entity {k}: the id leads back to the handle");
            }
        }
        assert_eq!(t.handle(EntityId(2)), Some(es[8]));
        assert_eq!(t.handle(EntityId(7)), None, "past the packed ids");
    }

    #[test]
    fn lowest_free_slot_comes_first_and_ids_stay_packed() {
        let mut t = E::new(EntityLimit::Dynamic { initial: 0 });
        let es: Vec<Entity> = (0..10).map(|_| t.create().unwrap()).collect();
        for i in [7, 2, 9] {
            t.kill(es[i]);
        }
        reclaim(&mut t);
        t.kill(es[4]);
        reclaim(&mut t);
        let again: Vec<Entity> = (0..5).map(|_| t.create().unwrap()).collect();
        let slots: Vec<u32> = again.iter().map(|e| e.slot).collect();
        assert_eq!(
            slots,
            [2, 4, 7, 9, 10],
            "freed slots in ascending order, then fresh ones"
        );
        let ids: Vec<u32> = again.iter().map(|&e| t.id_of(e).unwrap().0).collect();
        assert_eq!(ids, [6, 7, 8, 9, 10], "new entities take the next ids");
    }

    #[test]
    fn a_run_reuses_free_slots_then_takes_fresh_ones() {
        let mut t = E::new(EntityLimit::Fixed(6));
        let es: Vec<Entity> = (0..4).map(|_| t.create().unwrap()).collect();
        t.kill(es[1]);
        reclaim(&mut t);
        let bits = Bitset::<1>::default();
        assert_eq!(t.room(), 3);
        let (reused, fresh) = t.create_run(3, &bits);
        assert_eq!(reused, [Entity { slot: 1, generation: 1 }]);
        assert_eq!(fresh, 4..6);
        let ids: Vec<u32> = reused
            .iter()
            .copied()
            .chain(fresh.map(|slot| Entity { slot, generation: 0 }))
            .map(|e| t.id_of(e).unwrap().0)
            .collect();
        assert_eq!(ids, [3, 4, 5]);
        assert_eq!(t.room(), 0);
        assert_eq!(t.dirty.len(), 6, "every entity queued for matching once");
    }

    /// `push_alive_run` writes what the scalar definition does, whatever
    /// the run's length (whole chunks of 4 in vector stores, then the rest),
    /// where the table's length leaves the run (not aligned to 16 bytes),
    /// its first id and its dirty flag; and leaves the metas before it.
    #[test]
    fn a_run_of_metas_is_each_fresh_id_in_turn() {
        for before in [0, 1, 3] {
            for count in 0..=13 {
                for (index, dirty) in [(0, false), (5, true), (NO_ID - 14, true), (NO_ID - 14, false)] {
                    let mut meta = vec![Meta::alive(9, 99, true); before];
                    push_alive_run(&mut meta, count, Meta::alive(0, index, dirty));
                    assert_eq!(meta.len(), before + count);
                    for (k, m) in meta.iter().enumerate() {
                        let (tag, place) = if k < before {
                            (9, 99 | DIRTY)
                        } else {
                            (0, (index + (k - before) as u32) | if dirty { DIRTY } else { 0 })
                        };
                        assert_eq!(
                            (m.tag, m.place),
                            (tag, place),
                            "meta {k} of {before} + {count}, from {index}"
                        );
                        assert_eq!(m.life(), Life::Alive);
                    }
                }
            }
        }
        // Runs ending at the last id, shorter than a chunk: the lanes past
        // them (never stored) go past `u32::MAX` with the dirty bit.
        for count in 0..4u32 {
            let mut meta = Vec::new();
            push_alive_run(&mut meta, count as usize, Meta::alive(0, NO_ID - count, true));
            let ids: Vec<u32> = meta.iter().map(Meta::index).collect();
            assert_eq!(ids, (NO_ID - count..NO_ID).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_slots_metadata_fits_in_8_bytes() {
        assert_eq!(core::mem::size_of::<Meta>(), 8);
        let mut m = Meta::alive(5, 7, false);
        assert_eq!(
            (m.generation(), m.index(), m.dirty(), m.life()),
            (5, 7, false, Life::Alive)
        );
        m.place |= DIRTY;
        m.tag |= DYING;
        assert_eq!(
            (m.generation(), m.index(), m.dirty(), m.life()),
            (5, 7, true, Life::Dying)
        );
        assert_eq!(m.alive_id(5), None, "a killed entity's handles read dead");
        m.place = NO_ID | DIRTY;
        assert_eq!(m.life(), Life::Free);
    }

    #[test]
    fn fixed_limit_refuses_then_recovers() {
        let mut t = E::new(EntityLimit::Fixed(2));
        let a = t.create().unwrap();
        let _b = t.create().unwrap();
        assert!(t.create().is_none());
        t.kill(a);
        assert!(t.create().is_none(), "killed entities make room only after reclamation");
        reclaim(&mut t);
        assert!(t.create().is_some());
        assert_eq!(t.meta.capacity(), 2, "fixed tables never grow");
        assert_eq!(t.slot_of.capacity(), 2, "fixed tables never grow");
        assert_eq!(t.bits.capacity(), 2, "fixed tables never grow");
    }

    /// The shared table agrees with `is_alive` for every handle ever made,
    /// whether it was asked for before or after the changes.
    #[test]
    fn the_shared_generations_follow_every_change() {
        for limit in [EntityLimit::Fixed(8), EntityLimit::Dynamic { initial: 0 }] {
            let mut t = E::new(limit);
            let early = t.create().unwrap();
            t.kill(early);
            let mut handles = vec![early, t.create().unwrap()];
            let shared = t.shared_generations();
            let agree = |t: &E, handles: &[Entity]| {
                for &e in handles {
                    assert_eq!(shared.is_alive(e.slot, e.generation), t.is_alive(e), "{limit:?} {e:?}");
                }
            };
            agree(&t, &handles);
            reclaim(&mut t);
            agree(&t, &handles);
            let (reused, fresh) = t.create_run(3, &Bitset::<1>::default());
            handles.extend(reused);
            handles.extend(fresh.map(|slot| Entity { slot, generation: 0 }));
            handles.push(t.create().unwrap());
            agree(&t, &handles);
            t.kill(handles[2]);
            t.kill_id(EntityId(0));
            agree(&t, &handles);
            reclaim(&mut t);
            handles.push(t.create().unwrap());
            handles.push(t.create().unwrap());
            agree(&t, &handles);
            assert!(handles.iter().filter(|&&e| t.is_alive(e)).count() >= 4);
            drop(t);
            assert!(
                handles.iter().all(|e| !shared.is_alive(e.slot, e.generation)),
                "dropped: all dead"
            );
        }
    }

    #[test]
    fn generation_wraps_and_stale_handle_stays_dead_until_wrap() {
        let mut t = E::new(EntityLimit::Dynamic { initial: 0 });
        let a = t.create().unwrap();
        t.kill(a);
        reclaim(&mut t);
        t.set_generation(a.slot, DYING - 1);
        let b = t.create().unwrap();
        assert_eq!(b.generation, DYING - 1);
        t.kill(b);
        reclaim(&mut t);
        let c = t.create().unwrap();
        assert_eq!(c.generation, 0, "generations wrap to 0");
        assert!(!t.is_alive(b));
        assert!(t.is_alive(a), "a handle 2^31 generations old matches again: documented");
        let shared = t.shared_generations();
        assert!(
            shared.is_alive(a.slot, a.generation),
            "the shared table wraps the same way"
        );
        assert!(!shared.is_alive(b.slot, b.generation));
    }
}
