//! Which entities each system processes, with one set for systems that
//! process the same ones.
//!
//! Systems often subscribe to the same entities (every particle of the
//! particle simulation holds every component, so its nine systems match the
//! same ids). Keeping a set per system then repeats every insertion, every
//! removal and every ordered compaction nine times. Systems start out sharing
//! the first system's set (all empty, hence equal) and a system gets a set of
//! its own, copied from the shared one, the first time an entity is matched
//! differently for it.

use crate::entity::Entities;
use crate::handle::EntityId;
use crate::sparse_set::{Diff, Match, SparseSet};
use core::mem::ManuallyDrop;

/// Every system's subscriber set and the owner of each.
///
/// Invariant: `owner[owner[i]] == owner[i]` for every system `i`, and
/// `sets[owner[i]]` holds exactly the ids system `i` subscribes to. Only
/// owners' sets are read or changed; a system that is not an owner keeps an
/// empty, unused set.
///
/// Not generic over the context: the sets live here rather than in the
/// systems' slots, so that matching's bookkeeping is compiled once, in
/// this crate; only the shells that take the context's closures are
/// generic, and inlined.
pub(crate) struct Subscriptions {
    /// Dropped by `Subscriptions`' own `drop`, compiled here, rather than
    /// by drop glue compiled in every crate that declares a context.
    sets: ManuallyDrop<Vec<SparseSet>>,
    owner: Vec<usize>,
    /// Whether some system uses another's set (otherwise every update takes
    /// the plain path: one set per system, nothing to compare).
    shared: bool,
    /// Scratch for one entity: whether each system wants it.
    wants: Vec<bool>,
    /// Scratch for one entity: whether each owner's set changed.
    changed: Vec<bool>,
}

impl Drop for Subscriptions {
    #[inline(never)]
    fn drop(&mut self) {
        // Taken out, leaving an empty vector (what `ManuallyDrop` then
        // forgets), and dropped here.
        drop(core::mem::take(&mut *self.sets));
    }
}

impl Subscriptions {
    /// Every system sharing system 0's (empty) set.
    pub(crate) fn new(systems: usize) -> Self {
        Self {
            sets: ManuallyDrop::new((0..systems).map(|_| SparseSet::new()).collect()),
            owner: vec![0; systems],
            shared: systems > 1,
            wants: vec![false; systems],
            changed: vec![false; systems],
        }
    }

    /// The set of the entities system `i` processes.
    #[inline]
    pub(crate) fn of(&self, i: usize) -> &SparseSet {
        &self.sets[self.owner[i]]
    }

    /// Matches one entity: `want(i)` is whether system `i` processes it from
    /// now on. Calls `changed(i, subscribed)` for each system whose
    /// membership changed, in system order.
    #[inline]
    pub(crate) fn update(&mut self, id: EntityId, want: impl Fn(usize) -> bool, mut changed: impl FnMut(usize, bool)) {
        if !self.shared {
            for (i, set) in self.sets.iter_mut().enumerate() {
                let w = want(i);
                if if w { set.insert(id) } else { set.remove_later(id) } {
                    changed(i, w);
                }
            }
            return;
        }
        for (i, w) in self.wants.iter_mut().enumerate() {
            *w = want(i);
        }
        self.update_shared(id);
        for i in 0..self.owner.len() {
            // An owner comes before the systems sharing its set; they want
            // what it wants.
            if self.changed[self.owner[i]] {
                changed(i, self.wants[i]);
            }
        }
    }

    /// Matches one entity that systems want as `wants` says, when some
    /// system shares another's set: sets `changed[o]` for each owner `o`
    /// to whether its set changed.
    #[inline(never)]
    fn update_shared(&mut self, id: EntityId) {
        let n = self.owner.len();
        // A system that disagrees with its set's owner gets its own copy of
        // the set as it is before this entity changes it: the sets agreed on
        // every entity matched so far.
        let mut split = false;
        for i in 0..n {
            let o = self.owner[i];
            if o != i && self.wants[i] != self.wants[o] {
                self.sets[i] = self.sets[o].clone();
                self.owner[i] = i;
                split = true;
            }
        }
        if split {
            self.shared = self.owner.iter().enumerate().any(|(i, &o)| o != i);
        }
        for i in 0..n {
            if self.owner[i] == i {
                let set = &mut self.sets[i];
                self.changed[i] = if self.wants[i] {
                    set.insert(id)
                } else {
                    set.remove_later(id)
                };
            }
        }
    }

    /// Matches a run of entities alike (ids `ids`, whose bitsets and life
    /// are the same): `want(i)` is whether system `i` processes them from
    /// now on. When no set holds any of them (a batch of new entities), the
    /// run is matched at once: each wanted owner's set takes the whole run,
    /// and this returns `true`; every system `i` for which `want(i)` gained
    /// each id, and no other changed. Otherwise the ids are matched one by
    /// one, `changed(id, i, subscribed)` is called for each change, in
    /// `update`'s order, and this returns `false`.
    #[inline]
    pub(crate) fn update_run(
        &mut self,
        ids: core::ops::Range<u32>,
        want: impl Fn(usize) -> bool,
        mut changed: impl FnMut(EntityId, usize, bool),
    ) -> bool {
        if ids.len() > 1 {
            for (i, w) in self.wants.iter_mut().enumerate() {
                *w = want(i);
            }
            if self.take_run(ids.clone()) {
                return true;
            }
        }
        for id in ids {
            let id = EntityId(id);
            self.update(id, &want, |i, subscribed| changed(id, i, subscribed));
        }
        false
    }

    /// [`update_run`](Self::update_run)'s run matched at once, as `wants`
    /// says, when no set holds any of `ids`; otherwise `false`, changing
    /// nothing.
    #[inline(never)]
    fn take_run(&mut self, ids: core::ops::Range<u32>) -> bool {
        let n = self.owner.len();
        if !(0..n).all(|i| self.owner[i] != i || self.sets[i].none_of(ids.clone())) {
            return false;
        }
        // As `update_shared` does for one entity: a system that disagrees
        // with its set's owner gets its own copy of the set as it is.
        if self.shared {
            let mut split = false;
            for i in 0..n {
                let o = self.owner[i];
                if o != i && self.wants[i] != self.wants[o] {
                    self.sets[i] = self.sets[o].clone();
                    self.owner[i] = i;
                    split = true;
                }
            }
            if split {
                self.shared = self.owner.iter().enumerate().any(|(i, &o)| o != i);
            }
        }
        for i in 0..n {
            if self.owner[i] == i && self.wants[i] {
                self.sets[i].insert_run(ids.clone());
            }
        }
        true
    }

    /// Matches every id again for the systems whose signature (of
    /// `signatures`, by system) meets `changed`: afterwards system `i`
    /// processes exactly the live entities whose bitset contains
    /// `signatures[i]` (the other systems must already, and no set may hold
    /// a killed entity: matching took each out when it was killed). Calls
    /// `report(i, id, subscribed)` for each change, system by system: the
    /// ids it gains, then those it loses, each in id order.
    ///
    /// Each affected system's changes are found against the sets as they
    /// were (a few instructions per id), then applied: systems sharing a set
    /// keep sharing it when their changes agree, and the others get a copy
    /// of the set as it was, with their own changes.
    pub(crate) fn rematch<B: Match>(
        &mut self,
        signatures: &[B],
        entities: &Entities<B>,
        changed: &B,
        report: Option<&mut dyn FnMut(usize, EntityId, bool)>,
    ) {
        let bits = entities.all_bits();
        // Empty for unaffected systems.
        let changes: Vec<Diff> = signatures
            .iter()
            .enumerate()
            .map(|(i, signature)| {
                if signature.intersects(changed) {
                    self.of(i).diff(bits, signature)
                } else {
                    Default::default()
                }
            })
            .collect();
        // Killed entities (rare here: none unless kills and bulk changes
        // meet in one refresh).
        let dying: Vec<EntityId> = entities.dying_ids().collect();
        let alive = |id: EntityId| entities.is_id_alive(id);
        self.apply(&changes, &dying, &alive, report);
    }

    /// Applies each system's changes found by [`rematch`](Self::rematch)
    /// (`changes[i]` is system `i`'s, empty for unaffected systems): the
    /// part that does not depend on the context, compiled once. `dying`
    /// are the killed entities' ids, `alive` says whether an id is a live
    /// entity's.
    #[inline(never)]
    fn apply(
        &mut self,
        changes: &[Diff],
        dying: &[EntityId],
        alive: &dyn Fn(EntityId) -> bool,
        report: Option<&mut dyn FnMut(usize, EntityId, bool)>,
    ) {
        let count = self.owner.len();
        // Splits first, against the sets as they were.
        let mut split = false;
        for o in 0..count {
            if self.owner[o] != o {
                continue;
            }
            let group: Vec<usize> = (o..count).filter(|&i| self.owner[i] == o).collect();
            // Systems whose changes differ from the owner's leave the group,
            // those with equal changes together, under the first of them,
            // with the set as it was.
            for &i in &group {
                if self.owner[i] != o || changes[i] == changes[o] {
                    continue;
                }
                let class: Vec<usize> = group
                    .iter()
                    .copied()
                    .filter(|&j| j >= i && self.owner[j] == o && changes[j] == changes[i])
                    .collect();
                for j in class {
                    self.owner[j] = i;
                }
                self.sets[i] = self.sets[o].clone();
                split = true;
            }
        }
        if split {
            self.shared = self.owner.iter().enumerate().any(|(i, &owner)| owner != i);
        }
        // Then each set changes once, as its owner's changes say (the
        // systems sharing it have the same).
        for (i, diff) in changes.iter().enumerate() {
            if self.owner[i] == i && !diff.is_empty() {
                self.sets[i].apply(diff);
            }
        }
        // The diffs went by components alone: a killed entity holding a
        // signature was gained (never lost: no set held it). It leaves again
        // before anyone sees it, unreported.
        if !dying.is_empty() {
            for (i, diff) in changes.iter().enumerate() {
                if self.owner[i] == i && !diff.is_empty() {
                    let set = &mut self.sets[i];
                    for &id in dying {
                        set.remove_later(id);
                    }
                }
            }
        }
        if let Some(report) = report {
            for (i, diff) in changes.iter().enumerate() {
                diff.gained()
                    .filter(|&k| alive(EntityId(k)))
                    .for_each(|k| report(i, EntityId(k), true));
                diff.lost().for_each(|k| report(i, EntityId(k), false));
            }
        }
    }

    /// Removes a dying id from every set; calls `removed(i)` for each system
    /// that processed it.
    #[inline]
    pub(crate) fn remove(&mut self, id: EntityId, mut removed: impl FnMut(usize)) {
        // No system wants it: no set splits, each owner's set drops it.
        self.update(id, |_| false, |i, _| removed(i));
    }

    /// Moves the entity with id `from` to id `to` (which no entity holds) in
    /// every set that holds it, at the same place in the set.
    pub(crate) fn relocate(&mut self, from: EntityId, to: EntityId) {
        self.for_each_set(|set| set.relocate(from, to));
    }

    /// Closes the holes removals left in the sets, keeping their order, and
    /// orders by id again each set that then holds every one of the `ids`
    /// entities (ids `0..ids`), whatever relocations reordered: one pass
    /// per set ([`SparseSet::compact_into_run`]). Every member of every set
    /// must be below `ids`.
    pub(crate) fn compact_into_runs(&mut self, ids: usize) {
        self.for_each_set(|set| set.compact_into_run(ids));
    }

    /// Writes each set in use anew, in id order, from the entities'
    /// component sets (`runs`, as `layout: archetypes` leaves them) and the
    /// systems' `signatures`, once entities moved to other ids: every
    /// entity is matched and none is dying, so a set holds exactly the ids
    /// whose set contains its owner's signature.
    pub(crate) fn rebuild<B: Match>(&mut self, signatures: &[B], runs: &[(B, usize)]) {
        for (i, signature) in signatures.iter().enumerate() {
            if self.owner[i] == i {
                self.sets[i].rebuild(runs, signature);
            }
        }
    }

    /// Whether every set in use is tidy ([`SparseSet::is_tidy`]): then
    /// [`compact_into_runs`](Self::compact_into_runs) would change nothing. `n` is the number of systems, which callers
    /// give as a constant: every step checks this, and for a few systems
    /// the check is then a few loads, unrolled.
    #[inline]
    pub(crate) fn all_tidy(&self, n: usize) -> bool {
        let (sets, owner) = (&self.sets[..n], &self.owner[..n]);
        // A loop, not `(0..n).all(..)`: inlined into every crate declaring
        // a context, `all`'s `try_fold` and the closure were compiled there
        // too (199 lines of unoptimised IR in a release build of a
        // declaration of one system, 3%); callgrind's schedule and frag_iter
        // steps took as many instructions.
        for i in 0..n {
            if owner[i] == i && !sets[i].is_tidy() {
                return false;
            }
        }
        true
    }

    /// Calls `f` with each set in use (each owner's).
    fn for_each_set(&mut self, mut f: impl FnMut(&mut SparseSet)) {
        for (i, set) in self.sets.iter_mut().enumerate() {
            if self.owner[i] == i {
                f(set);
            }
        }
    }
}
