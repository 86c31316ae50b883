//! Entity ids, handles and the table of entity metadata.
//!
//! An entity is an index (`EntityId`) into per-entity tables. Ids are reused
//! in O(1) through a free list, so an id alone cannot tell a live entity from
//! a later one that took its place: a handle ([`Entity`]) pairs the id with the
//! generation the id had when the handle was made, and the table bumps the
//! generation every time it reclaims the id. A handle whose generation differs
//! from the table's is stale and reads as dead.
//!
//! Generations are `u32` and wrap: after 2^32 reclamations of the same id a
//! very old handle would match again. At one reclamation of one id per
//! microsecond that takes over an hour of doing nothing else; we accept it, as
//! hecs and bevy_ecs do.

use crate::bitset::ComponentSet;
use crate::error::EntityLimit;

/// The index of an entity in the context's tables.
///
/// Systems see entities as ids: inside a system every id it iterates is alive.
/// To keep an entity across steps, keep its [`Entity`] handle instead.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct EntityId(pub(crate) u32);

impl EntityId {
    /// The id as an index into per-entity tables.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The raw id.
    #[inline]
    pub fn to_bits(self) -> u32 {
        self.0
    }

    /// The id with this raw value. Any value is safe: operations on an id
    /// that holds no live entity find nothing.
    #[inline]
    pub fn from_bits(bits: u32) -> Self {
        EntityId(bits)
    }
}

/// A handle to an entity: its id and the generation the id had when the handle
/// was made. Once the entity is reclaimed the handle reads as dead, even after
/// the id is reused.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Entity {
    pub(crate) id: EntityId,
    pub(crate) generation: u32,
}

impl Entity {
    /// The entity's id.
    #[inline]
    pub fn id(self) -> EntityId {
        self.id
    }

    /// The generation of the id this handle refers to.
    #[inline]
    pub fn generation(self) -> u32 {
        self.generation
    }
}

/// The life-cycle state of an id.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Life {
    /// On the free list.
    Free,
    /// Alive and usable.
    Alive,
    /// Killed; its components stay until the next refresh reclaims it.
    Dying,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Meta<B> {
    /// Bumped each time the id is reclaimed.
    pub(crate) generation: u32,
    pub(crate) life: Life,
    /// On the `dirty` list: its components changed since the last matching.
    pub(crate) dirty: bool,
    /// The components the entity holds: bit `i` is set exactly when the
    /// storage of component `i` holds a value for this id.
    pub(crate) bits: B,
}

/// The table of entity metadata.
///
/// Invariants:
/// - `meta.len()` ids have been handed out at least once; an id is on `free`
///   exactly when its `life` is `Free`, and then its `bits` are empty;
/// - an id is on `dying` exactly when its `life` is `Dying`;
/// - an id is on `dirty` exactly when its `dirty` flag is set, and no id is
///   when `matched` is false;
/// - with a fixed limit, `meta` was allocated once with room for the limit and
///   never grows past it.
pub struct Entities<B> {
    meta: Vec<Meta<B>>,
    free: Vec<u32>,
    free_unsorted: bool,
    dying: Vec<u32>,
    dirty: Vec<u32>,
    /// Whether changes are queued for matching at all: not in a context
    /// without systems, where matching has nothing to do.
    matched: bool,
    alive: usize,
    limit: EntityLimit,
}

impl<B: ComponentSet> Entities<B> {
    /// An empty table for the given limit.
    pub fn new(limit: EntityLimit) -> Self {
        let cap = limit.initial_capacity();
        Self {
            meta: Vec::with_capacity(cap),
            free: Vec::with_capacity(if limit.is_fixed() { cap } else { 0 }),
            free_unsorted: false,
            dying: Vec::new(),
            // A fixed context's ids are all known: no regrowth while a wave
            // of new entities is queued for matching.
            dirty: Vec::with_capacity(if limit.is_fixed() { cap } else { 0 }),
            matched: true,
            alive: 0,
            limit,
        }
    }

    /// Stops queuing entities for matching, for a context without systems:
    /// nothing subscribes, so nothing needs matching.
    pub(crate) fn never_match(&mut self) {
        debug_assert!(self.meta.is_empty());
        self.matched = false;
        self.dirty = Vec::new();
    }

    /// Number of entities alive (not yet killed).
    #[inline]
    pub fn alive_count(&self) -> usize {
        self.alive
    }

    /// Number of ids ever handed out; every id is below it.
    #[inline]
    pub fn id_bound(&self) -> usize {
        self.meta.len()
    }

    /// The entity limit.
    pub fn limit(&self) -> EntityLimit {
        self.limit
    }

    /// Takes the lowest free id, or a fresh one, and marks it alive and
    /// dirty.
    #[inline]
    pub(crate) fn create(&mut self) -> Option<Entity> {
        self.create_with(&B::default(), |_| {})
    }

    /// Takes the lowest free id, or a fresh one; calls `store` with it, which
    /// stores the values of the components of `bits`; then marks the id
    /// alive and dirty, holding `bits`. `None` (and `store` is not called)
    /// when a fixed table is full or the ids are exhausted.
    ///
    /// The bitset is written after the values are stored, so that it never
    /// claims a value that is missing, even if `store` panics: the id then
    /// stays free (or unissued), and a value stored before the panic stays in
    /// its column, unclaimed, until the id's next holder is given that
    /// component (`Column::insert_new` replaces it) or the column is dropped.
    ///
    /// Lowest first keeps ids compact, and gives entities created together
    /// ascending ids, which systems then walk forwards through id-indexed
    /// columns. The free list is sorted (descending) lazily, at the first
    /// creation after ids were freed; it is sorted but for the ids freed
    /// since, so the stable sort, which merges runs, costs little more than
    /// a pass.
    #[inline]
    pub(crate) fn create_with(&mut self, bits: &B, store: impl FnOnce(EntityId)) -> Option<Entity> {
        if self.free_unsorted {
            self.free.sort_by(|a, b| b.cmp(a));
            self.free_unsorted = false;
        }
        let reuse = self.free.last().copied();
        let id = match reuse {
            Some(id) => id,
            None if self.meta.len() < self.id_limit() => self.meta.len() as u32,
            None => return None,
        };
        // One call site, so that `store` is inlined.
        store(EntityId(id));
        let generation = if reuse.is_some() {
            self.free.pop();
            let meta = &mut self.meta[id as usize];
            meta.life = Life::Alive;
            meta.bits = *bits;
            let generation = meta.generation;
            self.mark_dirty(id);
            generation
        } else {
            // Below `id_limit`, so below `u32::MAX`.
            self.meta.push(Meta {
                generation: 0,
                life: Life::Alive,
                dirty: false,
                bits: *bits,
            });
            self.mark_dirty(id);
            0
        };
        self.alive += 1;
        Some(Entity {
            id: EntityId(id),
            generation,
        })
    }

    /// Hands out the `count` ids from [`id_bound`](Self::id_bound) on,
    /// never handed out before, as alive, dirty entities holding `bits`
    /// (whose values the caller has stored).
    ///
    /// # Panics
    /// When fewer than `count` such ids are left (the caller checks
    /// [`room`](Self::room) first).
    pub(crate) fn create_fresh(&mut self, count: usize, bits: &B) {
        let start = self.meta.len();
        assert!(count <= self.id_limit() - start, "no room for {count} fresh ids");
        if count == 0 {
            return;
        }
        // Room at once (a fixed table has it already): no regrowth between
        // the copies below.
        self.meta.reserve(count);
        self.meta.push(Meta {
            generation: 0,
            life: Life::Alive,
            dirty: self.matched,
            bits: *bits,
        });
        // Doubling copies of the first entry: `extend_from_within` of a
        // `Copy` type is a `memcpy`, which writes the entries with wide
        // stores, where `resize` stored them field by field (a quarter of
        // `simple_insert`'s time went there).
        while self.meta.len() < start + count {
            let copy = (self.meta.len() - start).min(start + count - self.meta.len());
            self.meta.extend_from_within(start..start + copy);
        }
        if self.matched {
            // Below `id_limit`, so every id fits in a `u32`.
            self.dirty.extend(start as u32..(start + count) as u32);
        }
        self.alive += count;
    }

    /// Whether a freed id waits to be reused.
    #[inline]
    pub(crate) fn has_free(&self) -> bool {
        !self.free.is_empty()
    }

    /// One past the highest id the table may hand out: the fixed limit, or
    /// `u32::MAX` (which stays unused, so an id plus one always fits).
    #[inline]
    fn id_limit(&self) -> usize {
        let ids = u32::MAX as usize;
        match self.limit {
            EntityLimit::Fixed(n) => n.min(ids),
            EntityLimit::Dynamic { .. } => ids,
        }
    }

    /// How many more entities can be created before the next reclamation:
    /// the free ids plus the ids never handed out.
    #[inline]
    pub(crate) fn room(&self) -> usize {
        self.free.len() + self.fresh_room()
    }

    /// How many ids were never handed out and may be.
    #[inline]
    pub(crate) fn fresh_room(&self) -> usize {
        self.id_limit().saturating_sub(self.meta.len())
    }

    /// Makes room in the tables for `n` more entities without reallocating
    /// (a fixed table already has room for its limit).
    pub(crate) fn reserve(&mut self, n: usize) {
        let fresh = n.saturating_sub(self.free.len());
        self.meta.reserve(fresh);
        self.dirty.reserve(n);
    }

    #[inline]
    fn meta_of(&self, id: EntityId) -> Option<&Meta<B>> {
        self.meta.get(id.index())
    }

    /// Whether the handle refers to the entity its id holds now, and that
    /// entity is alive (not killed).
    #[inline]
    pub fn is_alive(&self, e: Entity) -> bool {
        matches!(self.meta_of(e.id), Some(m) if m.generation == e.generation && m.life == Life::Alive)
    }

    /// Whether the id holds a live entity.
    #[inline]
    pub fn is_id_alive(&self, id: EntityId) -> bool {
        matches!(self.meta_of(id), Some(m) if m.life == Life::Alive)
    }

    /// The handle of the entity the id holds now, if alive.
    pub fn handle(&self, id: EntityId) -> Option<Entity> {
        let m = self.meta_of(id)?;
        (m.life == Life::Alive).then_some(Entity {
            id,
            generation: m.generation,
        })
    }

    /// The component bitset of an id that is not free.
    #[inline]
    pub(crate) fn bits(&self, id: EntityId) -> &B {
        &self.meta[id.index()].bits
    }

    /// Records that the entity now holds (or no longer holds) component `bit`
    /// and queues it for matching.
    pub(crate) fn set_bit(&mut self, id: EntityId, bit: usize, present: bool) {
        let meta = &mut self.meta[id.index()];
        if present {
            meta.bits.insert(bit);
        } else {
            meta.bits.remove(bit);
        }
        self.mark_dirty(id.0);
    }

    #[inline]
    fn mark_dirty(&mut self, id: u32) {
        let meta = &mut self.meta[id as usize];
        if !meta.dirty && self.matched {
            meta.dirty = true;
            self.dirty.push(id);
        }
    }

    /// Marks a live entity as killed; returns whether it was alive.
    pub(crate) fn kill_id(&mut self, id: EntityId) -> bool {
        match self.meta.get_mut(id.index()) {
            Some(m) if m.life == Life::Alive => {
                m.life = Life::Dying;
                self.alive -= 1;
                self.dying.push(id.0);
                true
            }
            _ => false,
        }
    }

    /// Takes the list of killed entities, leaving it empty.
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

    /// Frees a dying id whose components were all removed: bumps the
    /// generation so handles read dead, and puts the id on the free list.
    pub(crate) fn free_id(&mut self, id: u32) {
        let meta = &mut self.meta[id as usize];
        debug_assert_eq!(meta.life, Life::Dying);
        debug_assert!(meta.bits == B::default());
        meta.life = Life::Free;
        meta.generation = meta.generation.wrapping_add(1);
        self.free.push(id);
        self.free_unsorted = true;
    }

    /// Calls `f` with the handle, life and bitset of every entity queued
    /// for matching, in the order they were queued, then empties the queue.
    ///
    /// Each entity's flag is cleared before `f` sees it, and the queue is
    /// emptied only at the end: if `f` panics, the queue keeps every entity
    /// (some perhaps queued twice, which matching does not mind), so none
    /// misses the next matching.
    #[inline]
    pub(crate) fn drain_dirty(&mut self, mut f: impl FnMut(Entity, Life, &B)) {
        for &id in &self.dirty {
            let meta = &mut self.meta[id as usize];
            meta.dirty = false;
            let e = Entity {
                id: EntityId(id),
                generation: meta.generation,
            };
            f(e, meta.life, &meta.bits);
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

    /// The current generation of an id that was handed out.
    #[inline]
    pub(crate) fn generation(&self, id: u32) -> u32 {
        self.meta[id as usize].generation
    }

    /// Clears the bitset of an id, returning what it held.
    pub(crate) fn clear_bits(&mut self, id: EntityId) -> B {
        core::mem::take(&mut self.meta[id.index()].bits)
    }

    /// Sets the generation of a free id (for tests of wrap-around).
    #[cfg(test)]
    pub(crate) fn set_generation(&mut self, id: u32, generation: u32) {
        self.meta[id as usize].generation = generation;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitset::Bitset;

    type E = Entities<Bitset<1>>;

    fn reclaim(t: &mut E) {
        for id in t.take_dying() {
            t.meta[id as usize].bits.clear();
            t.free_id(id);
        }
    }

    #[test]
    fn a_table_that_is_never_matched_queues_nothing() {
        let mut t = E::new(EntityLimit::Dynamic { initial: 4 });
        t.never_match();
        let bits = Bitset::<1>::default();
        let e = t.create().unwrap();
        t.create_fresh(3, &bits);
        t.set_bit(e.id, 0, true);
        assert!(!t.has_dirty(), "nothing to match, nothing queued");
        assert_eq!(t.alive_count(), 4);
        assert!(t.bits(e.id).contains(0));
    }

    #[test]
    fn ids_are_reused_with_new_generation() {
        let mut t = E::new(EntityLimit::Dynamic { initial: 0 });
        let a = t.create().unwrap();
        assert!(t.is_alive(a));
        assert!(t.kill_id(a.id));
        assert!(!t.is_alive(a), "killed reads dead at once");
        assert!(!t.kill_id(a.id), "second kill is harmless");
        reclaim(&mut t);
        let b = t.create().unwrap();
        assert_eq!(a.id, b.id);
        assert_ne!(a.generation, b.generation);
        assert!(!t.is_alive(a) && t.is_alive(b));
    }

    #[test]
    fn lowest_free_id_comes_first() {
        let mut t = E::new(EntityLimit::Dynamic { initial: 0 });
        let ids: Vec<_> = (0..10).map(|_| t.create().unwrap().id.0).collect();
        for id in [7, 2, 9] {
            t.kill_id(EntityId(id));
        }
        reclaim(&mut t);
        t.kill_id(EntityId(4));
        reclaim(&mut t);
        let again: Vec<u32> = (0..5).map(|_| t.create().unwrap().id.0).collect();
        assert_eq!(again, [2, 4, 7, 9, 10], "freed ids in ascending order, then fresh ones");
        assert_eq!(ids, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn fixed_limit_refuses_then_recovers() {
        let mut t = E::new(EntityLimit::Fixed(2));
        let a = t.create().unwrap();
        let _b = t.create().unwrap();
        assert!(t.create().is_none());
        t.kill_id(a.id);
        assert!(t.create().is_none(), "killed ids come back only after reclamation");
        reclaim(&mut t);
        assert!(t.create().is_some());
        assert_eq!(t.meta.capacity(), 2, "fixed tables never grow");
    }

    #[test]
    fn generation_wraps_and_stale_handle_stays_dead_until_wrap() {
        let mut t = E::new(EntityLimit::Dynamic { initial: 0 });
        let a = t.create().unwrap();
        t.kill_id(a.id);
        reclaim(&mut t);
        t.set_generation(a.id.0, u32::MAX);
        let b = t.create().unwrap();
        assert_eq!(b.generation, u32::MAX);
        t.kill_id(b.id);
        reclaim(&mut t);
        let c = t.create().unwrap();
        assert_eq!(c.generation, 0, "generations wrap to 0");
        assert!(!t.is_alive(b));
        assert!(t.is_alive(a), "a handle 2^32 generations old matches again: documented");
    }
}
