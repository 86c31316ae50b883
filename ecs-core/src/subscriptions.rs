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

use crate::bitset::ComponentSet;
use crate::decl::ContextDecl;
use crate::entity::Entities;
use crate::handle::EntityId;
use crate::sparse_set::{Diff, SparseSet};

/// The owner of each system's subscriber set.
///
/// Invariant: `owner[owner[i]] == owner[i]` for every system `i`, and the
/// set in the slot of `owner[i]` holds exactly the ids system `i` subscribes
/// to. Only owners' sets are read or changed; a system that is not an owner
/// keeps an empty, unused set in its slot.
pub(crate) struct Subscriptions {
    owner: Vec<usize>,
    /// Whether some system uses another's set (otherwise every update takes
    /// the plain path: one set per system, nothing to compare).
    shared: bool,
    /// Scratch for one entity: whether each system wants it.
    wants: Vec<bool>,
    /// Scratch for one entity: whether each owner's set changed.
    changed: Vec<bool>,
}

impl Subscriptions {
    /// Every system sharing system 0's (empty) set.
    pub(crate) fn new(systems: usize) -> Self {
        Self {
            owner: vec![0; systems],
            shared: systems > 1,
            wants: vec![false; systems],
            changed: vec![false; systems],
        }
    }

    /// The set of the entities system `i` processes.
    #[inline]
    pub(crate) fn of<'s, Cx: ContextDecl>(&self, systems: &'s Cx::Systems, i: usize) -> &'s SparseSet {
        &Cx::slot_core(systems, self.owner[i]).subscribers
    }

    /// Matches one entity: `want(i)` is whether system `i` processes it from
    /// now on. Calls `changed(i, subscribed)` for each system whose
    /// membership changed, in system order.
    #[inline]
    pub(crate) fn update<Cx: ContextDecl>(
        &mut self,
        systems: &mut Cx::Systems,
        id: EntityId,
        want: impl Fn(usize) -> bool,
        mut changed: impl FnMut(usize, bool),
    ) {
        // The count is a constant of the declaration, so the compiler unrolls
        // this loop (and removes it for a context without systems).
        if !self.shared {
            for i in 0..Cx::SYSTEMS.len() {
                let w = want(i);
                let set = &mut Cx::slot_core_mut(systems, i).subscribers;
                if if w { set.insert(id) } else { set.remove_later(id) } {
                    changed(i, w);
                }
            }
            return;
        }
        self.update_shared::<Cx>(systems, id, want, changed);
    }

    fn update_shared<Cx: ContextDecl>(
        &mut self,
        systems: &mut Cx::Systems,
        id: EntityId,
        want: impl Fn(usize) -> bool,
        mut changed: impl FnMut(usize, bool),
    ) {
        let n = Cx::SYSTEMS.len();
        for i in 0..n {
            self.wants[i] = want(i);
        }
        // A system that disagrees with its set's owner gets its own copy of
        // the set as it is before this entity changes it: the sets agreed on
        // every entity matched so far.
        let mut split = false;
        for i in 0..n {
            let o = self.owner[i];
            if o != i && self.wants[i] != self.wants[o] {
                let set = Cx::slot_core(systems, o).subscribers.clone();
                Cx::slot_core_mut(systems, i).subscribers = set;
                self.owner[i] = i;
                split = true;
            }
        }
        if split {
            self.shared = self.owner.iter().enumerate().any(|(i, &o)| o != i);
        }
        for i in 0..n {
            let (o, w) = (self.owner[i], self.wants[i]);
            if o == i {
                let set = &mut Cx::slot_core_mut(systems, i).subscribers;
                self.changed[i] = if w { set.insert(id) } else { set.remove_later(id) };
            }
            // An owner comes before the systems sharing its set, so its
            // result is already known; they want what it wants.
            if self.changed[o] {
                changed(i, w);
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
    pub(crate) fn update_run<Cx: ContextDecl>(
        &mut self,
        systems: &mut Cx::Systems,
        ids: core::ops::Range<u32>,
        want: impl Fn(usize) -> bool,
        mut changed: impl FnMut(EntityId, usize, bool),
    ) -> bool {
        let n = Cx::SYSTEMS.len();
        let fresh = ids.len() > 1
            && (0..n).all(|i| self.owner[i] != i || Cx::slot_core(systems, i).subscribers.none_of(ids.clone()));
        if !fresh {
            for id in ids {
                let id = EntityId(id);
                self.update::<Cx>(systems, id, &want, |i, subscribed| changed(id, i, subscribed));
            }
            return false;
        }
        // As `update_shared` does for one entity: a system that disagrees
        // with its set's owner gets its own copy of the set as it is.
        if self.shared {
            let mut split = false;
            for i in 0..n {
                let o = self.owner[i];
                if o != i && want(i) != want(o) {
                    let set = Cx::slot_core(systems, o).subscribers.clone();
                    Cx::slot_core_mut(systems, i).subscribers = set;
                    self.owner[i] = i;
                    split = true;
                }
            }
            if split {
                self.shared = self.owner.iter().enumerate().any(|(i, &o)| o != i);
            }
        }
        for i in 0..n {
            if self.owner[i] == i && want(i) {
                Cx::slot_core_mut(systems, i).subscribers.insert_run(ids.clone());
            }
        }
        true
    }

    /// Matches every id again for the systems whose signature meets
    /// `changed`: afterwards system `i` processes exactly the live entities
    /// whose bitset contains `SIGNATURES[i]` (the other systems must
    /// already, and no set may hold a killed entity: matching took each out
    /// when it was killed). Calls `report(i, id, subscribed)` for each
    /// change, system by system: the ids it gains, then those it loses, each
    /// in id order.
    ///
    /// Each affected system's changes are found against the sets as they
    /// were (a few instructions per id), then applied: systems sharing a set
    /// keep sharing it when their changes agree, and the others get a copy
    /// of the set as it was, with their own changes.
    pub(crate) fn rematch<Cx: ContextDecl>(
        &mut self,
        systems: &mut Cx::Systems,
        entities: &Entities<Cx::Bits>,
        changed: &Cx::Bits,
        report: Option<&mut dyn FnMut(usize, EntityId, bool)>,
    ) {
        let bits = entities.all_bits();
        let count = Cx::SYSTEMS.len();
        // Empty for unaffected systems.
        let changes: Vec<Diff> = (0..count)
            .map(|i| {
                let signature = &Cx::SIGNATURES[i];
                if signature.intersects(changed) {
                    self.of::<Cx>(systems, i).diff(bits, signature)
                } else {
                    Default::default()
                }
            })
            .collect();
        // Killed entities (rare here: none unless kills and bulk changes
        // meet in one refresh).
        let dying: Vec<EntityId> = entities.dying_ids().collect();
        let alive = |id: EntityId| entities.is_id_alive(id);
        self.apply(&mut SetsOf::<Cx>(systems), &changes, &dying, &alive, report);
    }

    /// Applies each system's changes found by [`rematch`](Self::rematch)
    /// (`changes[i]` is system `i`'s, empty for unaffected systems): the
    /// part that does not depend on the context, compiled once. `dying`
    /// are the killed entities' ids, `alive` says whether an id is a live
    /// entity's.
    #[inline(never)]
    fn apply(
        &mut self,
        sets: &mut dyn Sets,
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
                *sets.set_mut(i) = sets.set(o).clone();
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
                sets.set_mut(i).apply(diff);
            }
        }
        // The diffs went by components alone: a killed entity holding a
        // signature was gained (never lost: no set held it). It leaves again
        // before anyone sees it, unreported.
        if !dying.is_empty() {
            for (i, diff) in changes.iter().enumerate() {
                if self.owner[i] == i && !diff.is_empty() {
                    let set = sets.set_mut(i);
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
    pub(crate) fn remove<Cx: ContextDecl>(
        &mut self,
        systems: &mut Cx::Systems,
        id: EntityId,
        mut removed: impl FnMut(usize),
    ) {
        // No system wants it: no set splits, each owner's set drops it.
        self.update::<Cx>(systems, id, |_| false, |i, _| removed(i));
    }

    /// Moves the entity with id `from` to id `to` (which no entity holds) in
    /// every set that holds it, at the same place in the set.
    pub(crate) fn relocate<Cx: ContextDecl>(&mut self, systems: &mut Cx::Systems, from: EntityId, to: EntityId) {
        self.for_each_set::<Cx>(systems, |set| set.relocate(from, to));
    }

    /// Closes the holes removals left in the sets, keeping their order.
    #[inline]
    pub(crate) fn compact<Cx: ContextDecl>(&self, systems: &mut Cx::Systems) {
        self.for_each_set::<Cx>(systems, SparseSet::compact);
    }

    /// Orders by id again each (compacted) set that holds every one of the
    /// `ids` entities (ids `0..ids`), whatever relocations reordered.
    pub(crate) fn restore_runs<Cx: ContextDecl>(&self, systems: &mut Cx::Systems, ids: usize) {
        self.for_each_set::<Cx>(systems, |set| set.restore_run(ids));
    }

    /// Writes each set in use anew, in id order, from the entities'
    /// component sets (`bits`, by id), once entities moved to other ids:
    /// every entity is matched and none is dying, so a set holds exactly the
    /// ids whose set contains its owner's signature.
    pub(crate) fn rebuild<Cx: ContextDecl>(&self, systems: &mut Cx::Systems, runs: &[(Cx::Bits, usize)]) {
        for i in 0..Cx::SYSTEMS.len() {
            if self.owner[i] == i {
                Cx::slot_core_mut(systems, i)
                    .subscribers
                    .rebuild(runs, &Cx::SIGNATURES[i]);
            }
        }
    }

    /// Whether every set in use is tidy ([`SparseSet::is_tidy`]): then
    /// [`compact`](Self::compact) and [`restore_runs`](Self::restore_runs)
    /// would change nothing.
    #[inline]
    pub(crate) fn all_tidy<Cx: ContextDecl>(&self, systems: &Cx::Systems) -> bool {
        (0..Cx::SYSTEMS.len()).all(|i| self.owner[i] != i || Cx::slot_core(systems, i).subscribers.is_tidy())
    }

    /// Calls `f` with each set in use (each owner's).
    #[inline]
    fn for_each_set<Cx: ContextDecl>(&self, systems: &mut Cx::Systems, mut f: impl FnMut(&mut SparseSet)) {
        for i in 0..Cx::SYSTEMS.len() {
            if self.owner[i] == i {
                f(&mut Cx::slot_core_mut(systems, i).subscribers);
            }
        }
    }
}

/// The subscriber sets of a context's systems, by system index: what the
/// parts of [`Subscriptions`] compiled once (not per context) reach them by.
trait Sets {
    /// The set of system `i`.
    fn set(&self, i: usize) -> &SparseSet;
    /// The set of system `i`, mutably.
    fn set_mut(&mut self, i: usize) -> &mut SparseSet;
}

/// The sets of the systems of context `Cx`.
struct SetsOf<'a, Cx: ContextDecl>(&'a mut Cx::Systems);

impl<Cx: ContextDecl> Sets for SetsOf<'_, Cx> {
    fn set(&self, i: usize) -> &SparseSet {
        &Cx::slot_core(self.0, i).subscribers
    }

    fn set_mut(&mut self, i: usize) -> &mut SparseSet {
        &mut Cx::slot_core_mut(self.0, i).subscribers
    }
}
