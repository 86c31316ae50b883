//! How entities are laid out in the id space: in creation order, or sorted
//! by component set (archetype, as far as systems see it), so that the
//! entities a system processes are runs of consecutive ids whatever the mix
//! of component sets.
//!
//! Every column is indexed by entity id, so the order of ids is the order of
//! memory. With [`Layout::Ids`] an entity takes the next id when created
//! and keeps it until a reclamation moves it into a hole; a system over a
//! tenth of the entities, scattered among the others, then walks every
//! column with gaps: each entity it processes costs a cache line or more of
//! its own. With [`Layout::Archetypes`] the refresh at the end of each step
//! sorts the ids by component set (the components systems name, see
//! "Which sets" below), so every archetype is one run of ids, hence one
//! dense run of memory in every column: the gap-free layout
//! of seed 000's 16 KB chunks and of bevy_ecs's tables and hecs's
//! archetypes, without their per-archetype column copies (each component
//! keeps one column, so a system over several archetypes walks each as one
//! run, and a component added to an entity is one column write).
//!
//! # Moving entities, not handles
//!
//! An entity that changes set (a named component added or removed), a new entity,
//! and the entity that a reclamation moves into a hole all end up outside
//! their archetype's run. The refresh moves them back: an entity's
//! [`Entity`](crate::Entity) handle names its slot, which stays, and only
//! its id (valid until the next refresh anyway, see
//! [`EntityId`](crate::EntityId)) changes. This is what bevy_ecs and hecs
//! users expect: a handle stays valid while the entity lives, whatever
//! components it gains or loses, and iteration never sees fragmentation.
//! Nothing is left fragmented for a later compaction to find: a step's
//! changes are undone by the step's own refresh.
//!
//! # Cost
//!
//! A refresh after which no entity was created, changed set or was moved
//! costs nothing more. Otherwise the entity table has listed the ids whose
//! named components changed (a named component added or removed, another
//! entity moved into the id by a reclamation) and how far the ids shrank,
//! and the sort patches the last one's runs: it counts the changed ids' old
//! and new sets, which gives the new runs, reads only the changed ids and
//! those between a run's old and new bounds, and exchanges the misplaced
//! entities into their runs (an in-place bucket sort, as "American flag
//! sort", over those ids only). Each system's set is then written from the
//! runs. A change it cannot list (a component added to or removed from every
//! entity at once, a restore), or one touching more than half the ids, sorts
//! every id instead: one pass to check the order, one to count the runs, one
//! to place them.
//!
//! Toggling `Vel`, which the one system names, on 1 000 of 100 000 entities
//! cost 5.27M instructions per step (sorting every id, then reading every
//! id's set again for the system's set) and costs 0.98M patched, toggle and
//! Move included (callgrind, `benches/peers/examples/fragmented.rs
//! archetypes vel`, 12 steps minus 4; `benches/drivers`' `arrange_churn
//! vel`: 5.15M and 0.96M); toggling a component no system names costs 242k
//! per step either way (`fragmented archetypes churn`). A moved
//! entity's values move in every column it has (as a reclamation's do): `k`
//! new entities of the first of `a` archetypes move about `k` entities at
//! each of the `a - 1` boundaries after it, and `k` new entities of the last
//! archetype move none. A step that creates or changes many entities of
//! early archetypes therefore pays for moving entities that `Layout::Ids`
//! leaves alone, and for systems that match every entity the layout changes
//! nothing: measure (`benches/peers`, "fragmented").
//!
//! # Which sets
//!
//! The macro knows every system's signature, so the sort looks only at the
//! components that some system reads or writes (the part of an entity's set
//! that decides which systems process it): entities that differ only in
//! components no system names (a sprite only the step proxy reads, a tag for
//! scripts) share a run, and changing such a component moves nothing. A
//! system over one combination of named components then walks one run of
//! ids (in blocks of 8) however many sets hold it; a system whose entities
//! span several runs walks each as one, in blocks of 8 too (3.5 instructions
//! per entity for Move over two runs, as over one; 9.1 when such systems
//! were walked id by id: `benches/drivers`' `runs_walk`).

use crate::bitset::ComponentSet;
use std::collections::BTreeMap;

/// How a context orders its entities' ids: the `layout` setting of
/// `declare_context!`.
///
/// ```
/// use ecs::traits::ContextDecl;
/// use ecs::{Data, Layout, System};
///
/// pub struct Position(pub f32);
/// pub struct Velocity(pub f32);
/// pub struct Sprite(pub u32);
/// #[derive(Default)]
/// pub struct Move;
///
/// ecs::declare_context! {
///     pub context World {
///         settings { layout: archetypes }
///         components { Position, Velocity, Sprite: contiguous; }
///         systems { movement: Move { read: [Velocity], write: [Position] } }
///     }
/// }
///
/// impl System<World> for Move {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0);
///     }
/// }
///
/// assert_eq!(World::SETTINGS.layout, Layout::Archetypes);
/// let mut world = World::new();
/// // Movers and sprites interleaved, as they were created.
/// let movers: Vec<_> = world.step(|p| {
///     (0..10)
///         .map(|i| {
///             p.spawn((Position(0.0), Sprite(i))).unwrap();
///             p.spawn((Position(0.0), Velocity(1.0))).unwrap()
///         })
///         .collect()
/// });
/// world.step(|p| {
///     // After the refresh, the movers hold one run of ids: `Move` walks
///     // its columns without gaps.
///     let mut ids: Vec<usize> = movers.iter().map(|&e| p.id_of(e).unwrap().index()).collect();
///     ids.sort();
///     assert!(ids.windows(2).all(|w| w[1] == w[0] + 1));
///     p.run_all(&());
///     // Handles still name the same entities.
///     assert!(movers.iter().all(|&e| p.get::<Position>(e).unwrap().0 == 1.0));
/// });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Layout {
    /// `layout: ids` (the default): an entity keeps the id it was created
    /// with until a reclamation moves it into a hole.
    #[default]
    Ids,
    /// `layout: archetypes`: each refresh sorts the ids by the components
    /// systems name, so the entities of one such set are one run of ids (see the module
    /// documentation of `layout.rs`, and the README).
    Archetypes,
}

/// What [`arrange`] keeps from one call to the next, so that the next call
/// patches the order where it changed instead of reading every id again.
///
/// The entity table reports every id whose named components may have
/// changed ([`changed`](Self::changed): a named component added or removed,
/// another entity moved into the id) and how far the ids shrank
/// ([`shrunk`](Self::shrunk)); ids appended since are known from the
/// length. Any change it cannot list makes the next call sort every id
/// ([`forget`](Self::forget)).
#[derive(Debug)]
pub(crate) struct Order<B> {
    /// The runs of the last call: each one's named components and the id
    /// one past its last, in order.
    runs: Vec<(B, usize)>,
    /// Ids whose named components may have changed since (repeats allowed).
    changed: Vec<u32>,
    /// The fewest ids there were since: every id from there on may hold
    /// another entity.
    shortest: usize,
    /// Whether `runs`, `changed` and `shortest` describe every change since
    /// the last call; otherwise the next call sorts every id.
    exact: bool,
}

impl<B> Default for Order<B> {
    fn default() -> Self {
        Order {
            runs: Vec::new(),
            changed: Vec::new(),
            shortest: 0,
            exact: false,
        }
    }
}

impl<B: ComponentSet> Order<B> {
    /// Records that the named components of id `id` may have changed.
    ///
    /// Out of line: `Entities::noted_bit`, which calls it for named
    /// components only, stays small enough to be inlined for the others
    /// (inlined, this cost 29 instructions per `F0` toggled in
    /// `benches/drivers`' `arrange_churn filler`).
    #[inline(never)]
    pub(crate) fn changed(&mut self, id: u32) {
        if self.exact {
            // Past half the ids, sorting them all costs less than the list.
            if self.changed.len() > self.runs.last().map_or(0, |r| r.1) / 2 + 64 {
                self.forget();
            } else {
                self.changed.push(id);
            }
        }
    }

    /// Records that the ids were cut to `len`.
    #[inline]
    pub(crate) fn shrunk(&mut self, len: usize) {
        self.shortest = self.shortest.min(len);
    }

    /// Makes the next [`arrange`] sort every id.
    pub(crate) fn forget(&mut self) {
        self.exact = false;
        self.changed = Vec::new();
    }

    /// The runs of ids the last [`arrange`] left, each with its named
    /// components and the id one past its end, in order (valid until the ids
    /// change again).
    pub(crate) fn runs(&self) -> &[(B, usize)] {
        &self.runs
    }
}

/// Sorts `sets` (indexed by id) by their named components in place, calling
/// `swap(a, b, set_a, set_b)` for each exchange of two ids, in order, with
/// the sets they held before it (the caller exchanges the two entities
/// everywhere it keeps them). Returns the number of exchanges.
///
/// The order is that of `set ∩ named`, the part of each set that the
/// systems see (`named`: the components some system reads or writes):
/// sets that differ only in components no system names share a run, and a
/// system over one combination of named components walks one run of ids
/// however many sets hold it (one system: its entities are always one run).
///
/// When `order` lists every change since the last call, only the changed
/// ids and the ids between a run's old and new bounds are read (a patch);
/// otherwise every id is. Either way only entities outside their set's run
/// move, and `order` is left describing the new runs.
pub(crate) fn arrange<B: ComponentSet>(
    sets: &mut [B],
    named: &B,
    order: &mut Order<B>,
    mut swap: impl FnMut(usize, usize, B, B),
) -> usize {
    let patched = if order.exact {
        patch(sets, named, order, &mut swap)
    } else {
        None
    };
    let swaps = match patched {
        Some(swaps) => swaps,
        None => sort(sets, named, &mut order.runs, &mut swap),
    };
    order.changed.clear();
    order.shortest = sets.len();
    order.exact = true;
    swaps
}

/// Patches the order of the last call (`order.runs`) after the changes
/// `order` lists; `None`, changing nothing, when they touch so many ids
/// that sorting every id costs less.
///
/// The ids whose sets may differ from the last call's are the changed ones
/// and those past the shortest length since (`dirty`). Counting their old
/// and new sets gives the new runs; an entity can then be out of place only
/// at a dirty id or at an id its set's run newly covers (between the run's
/// old and new bounds), and only those ids are read. The misplaced
/// entities are exchanged into their runs as [`sort`] does, one exchange
/// placing one entity at least.
fn patch<B: ComponentSet>(
    sets: &mut [B],
    named: &B,
    order: &mut Order<B>,
    swap: &mut impl FnMut(usize, usize, B, B),
) -> Option<usize> {
    let key = |s: B| s.intersection(named);
    let n = sets.len();
    let old = &order.runs;
    let old_n = old.last().map_or(0, |r| r.1);
    let low = order.shortest.min(n).min(old_n);
    let high = n.max(old_n);
    order.changed.retain(|&i| (i as usize) < low);
    if order.changed.len() + (high - low) > n / 2 {
        return None;
    }
    let mut dirty = core::mem::take(&mut order.changed);
    dirty.sort_unstable();
    dirty.dedup();
    // Below `high`, hence below 2^32 (ids are `u32`).
    dirty.extend(low as u32..high as u32);
    let old_start = |k: usize| if k == 0 { 0 } else { old[k - 1].1 };
    // The new count of each set: the old runs' lengths, each dirty id's old
    // set taken out and its new one counted in.
    let mut counts: BTreeMap<Key<B>, usize> = old
        .iter()
        .enumerate()
        .map(|(k, &(b, end))| (Key(b), end - old_start(k)))
        .collect();
    for &i in &dirty {
        let i = i as usize;
        if i < old_n {
            let k = old.partition_point(|r| r.1 <= i);
            let c = counts.get_mut(&Key(old[k].0)).expect("an old run's set");
            *c -= 1;
        }
        if i < n {
            *counts.entry(Key(key(sets[i]))).or_default() += 1;
        }
    }
    let mut runs: Vec<(B, usize)> = Vec::with_capacity(counts.len());
    let mut end = 0;
    for (Key(b), c) in counts {
        if c > 0 {
            end += c;
            runs.push((b, end));
        }
    }
    debug_assert_eq!(end, n, "every id counted once");
    // The ids that may hold an entity of another run: the dirty ones, and
    // those each run covers now and did not before.
    dirty.retain(|&i| (i as usize) < n);
    let mut newly = Vec::new();
    let mut start = 0;
    for &(b, end) in &runs {
        match old.binary_search_by(|r| Key(r.0).cmp(&Key(b))) {
            Ok(k) => {
                let (os, oe) = (old_start(k), old[k].1);
                newly.extend(start as u32..end.min(os).max(start) as u32);
                newly.extend(oe.max(start).min(end) as u32..end as u32);
            }
            Err(_) => newly.extend(start as u32..end as u32),
        }
        start = end;
    }
    // Both lists ascend: merged, not sorted (sorting them was a quarter of
    // the patch's cost).
    let maybe = merge(&dirty, &newly);
    let run_at = |i: usize| runs.partition_point(|r| r.1 <= i);
    let mut cached: Option<(B, usize)> = None;
    let mut run_of = |s: B| -> usize {
        let s = key(s);
        match cached {
            Some((b, k)) if b == s => k,
            _ => {
                let k = runs
                    .binary_search_by(|r| Key(r.0).cmp(&Key(s)))
                    .expect("every set has its run");
                cached = Some((s, k));
                k
            }
        }
    };
    // The misplaced ids, ascending, hence grouped by the run they lie in:
    // `next[k]` walks run `k`'s, the places its entities move to.
    let misplaced: Vec<u32> = maybe
        .into_iter()
        .filter(|&i| key(sets[i as usize]) != runs[run_at(i as usize)].0)
        .collect();
    let mut next: Vec<usize> = runs
        .iter()
        .enumerate()
        .map(|(k, _)| misplaced.partition_point(|&i| (i as usize) < if k == 0 { 0 } else { runs[k - 1].1 }))
        .collect();
    let mut swaps = 0;
    for &i in &misplaced {
        let i = i as usize;
        let here = run_at(i);
        loop {
            let c = run_of(sets[i]);
            if c == here {
                break;
            }
            // The first misplaced id of run `c` that does not hold one of
            // its own yet (there is one: the run has room for every entity
            // of its set, and this one is outside it).
            let j = loop {
                let j = misplaced[next[c]] as usize;
                next[c] += 1;
                if run_of(sets[j]) != c {
                    break j;
                }
            };
            swap(i, j, sets[i], sets[j]);
            sets.swap(i, j);
            swaps += 1;
        }
    }
    order.runs = runs;
    Some(swaps)
}

/// The ids of two ascending lists, ascending, each once.
fn merge(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Sorts every id (see [`arrange`]), leaving the runs in `runs`: one pass
/// when `sets` is sorted already, without allocating beyond `runs`.
fn sort<B: ComponentSet>(
    sets: &mut [B],
    named: &B,
    runs: &mut Vec<(B, usize)>,
    swap: &mut impl FnMut(usize, usize, B, B),
) -> usize {
    // Only the named part of a set counts: compared, counted and looked up
    // by it, so that neighbours differing in other components share the
    // cached look-up (a `BTreeMap` search per entity made sorting after
    // 1 000 changes of a named component among 100 000 entities cost 12.0M
    // instructions instead of 5.1M: `benches/peers/examples/fragmented.rs`).
    let key = |s: B| s.intersection(named);
    runs.clear();
    if sets.windows(2).all(|w| key(w[0]).order(&key(w[1])).is_le()) {
        for (i, &s) in sets.iter().enumerate() {
            match runs.last_mut() {
                Some((b, end)) if *b == key(s) => *end = i + 1,
                _ => runs.push((key(s), i + 1)),
            }
        }
        return 0;
    }
    // The archetypes in order, and where each one's run starts.
    let mut counts: BTreeMap<Key<B>, usize> = BTreeMap::new();
    let mut last: Option<(B, usize)> = None;
    for &s in sets.iter() {
        // Neighbours mostly share a set: count runs, not entities.
        let s = key(s);
        match &mut last {
            Some((b, n)) if *b == s => *n += 1,
            _ => {
                if let Some((b, n)) = last.take() {
                    *counts.entry(Key(b)).or_default() += n;
                }
                last = Some((s, 1));
            }
        }
    }
    if let Some((b, n)) = last {
        *counts.entry(Key(b)).or_default() += n;
    }
    let mut start = 0;
    let mut bucket_of: BTreeMap<Key<B>, usize> = BTreeMap::new();
    // `next[k]`: the first place of archetype `k`'s run not yet known to
    // hold one of its own; `end[k]`: one past its run.
    let (mut next, mut end) = (Vec::with_capacity(counts.len()), Vec::with_capacity(counts.len()));
    for (k, (b, n)) in counts.into_iter().enumerate() {
        bucket_of.insert(b, k);
        next.push(start);
        start += n;
        end.push(start);
        runs.push((b.0, start));
    }
    let mut cached: Option<(B, usize)> = None;
    let mut bucket = |s: B| -> usize {
        let s = key(s);
        match cached {
            Some((b, k)) if b == s => k,
            _ => {
                let k = bucket_of[&Key(s)];
                cached = Some((s, k));
                k
            }
        }
    };
    let mut swaps = 0;
    for k in 0..next.len() {
        while next[k] < end[k] {
            let i = next[k];
            let c = bucket(sets[i]);
            if c == k {
                next[k] += 1;
                continue;
            }
            // Place `i`'s entity in its own run, at the first place there
            // that does not already hold one of its own (there is one: the
            // run has room for every entity of its set, and this one is not
            // in it). What was there comes to `i`, to be looked at next.
            while bucket(sets[next[c]]) == c {
                next[c] += 1;
            }
            let j = next[c];
            swap(i, j, sets[i], sets[j]);
            sets.swap(i, j);
            swaps += 1;
            next[c] += 1;
        }
    }
    swaps
}

/// A set's place in the order: its named components (by
/// [`ComponentSet::order`]).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key<B>(B);

impl<B: ComponentSet> PartialOrd for Key<B> {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<B: ComponentSet> Ord for Key<B> {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.0.order(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitset::Bits8;

    fn set(bits: &[usize]) -> Bits8 {
        Bits8::from_indices(bits)
    }

    /// Arranges `sets`, replaying each exchange on a list of entity names,
    /// and checks that the names still carry their sets.
    fn check(sets: &[Bits8]) -> usize {
        let mut arranged = sets.to_vec();
        let mut names: Vec<usize> = (0..sets.len()).collect();
        let mut seen = arranged.clone();
        let swaps = arrange(
            &mut arranged,
            &Bits8::from_indices(&[0, 1, 2, 3, 4, 5, 6, 7]),
            &mut Order::default(),
            |a, b, sa, sb| {
                assert_eq!((seen[a], seen[b]), (sa, sb), "the sets before the exchange");
                seen.swap(a, b);
                names.swap(a, b);
            },
        );
        assert!(
            arranged.windows(2).all(|w| w[0].order(&w[1]).is_le()),
            "sorted: {arranged:?}"
        );
        for (place, &name) in names.iter().enumerate() {
            assert_eq!(arranged[place], sets[name], "entity {name} moved without its set");
        }
        let mut sorted = sets.to_vec();
        sorted.sort_by(|a, b| a.order(b));
        assert_eq!(arranged, sorted);
        swaps
    }

    #[test]
    fn sorted_sets_move_nothing() {
        assert_eq!(check(&[set(&[0]), set(&[0]), set(&[0, 1]), set(&[2])]), 0);
        assert_eq!(check(&[]), 0);
    }

    #[test]
    fn interleaved_sets_become_runs() {
        let (a, b) = (set(&[0]), set(&[0, 1]));
        let sets: Vec<_> = (0..20).map(|i| if i % 2 == 0 { a } else { b }).collect();
        let swaps = check(&sets);
        // Half of each run held the other set: one exchange places two.
        assert_eq!(swaps, 5);
    }

    #[test]
    fn an_entity_of_the_last_set_appended_moves_nothing_else() {
        let (a, b, c) = (set(&[0]), set(&[1]), set(&[2]));
        let mut sets = vec![a, a, b, b, c, c, c];
        sets.push(c);
        assert_eq!(check(&sets), 0);
        // One of the first set appended: one exchange per boundary after it.
        sets.push(a);
        assert_eq!(check(&sets), 2);
    }

    #[test]
    fn a_systems_entities_are_one_run_whatever_else_they_hold() {
        // Components 0-1 are named by a system over {1}; 2-7 by none.
        let named = Bits8::from_indices(&[0, 1]);
        let mut x = 7u32;
        let mut sets: Vec<Bits8> = (0..400)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let mut s = Bits8::from_indices(&[2 + ((x >> 16) % 6) as usize]);
                if (x >> 24).is_multiple_of(10) {
                    s.insert(1);
                }
                s
            })
            .collect();
        arrange(&mut sets, &named, &mut Order::default(), |_, _, _, _| {});
        let movers: Vec<usize> = (0..sets.len()).filter(|&i| sets[i].contains(1)).collect();
        assert!(movers.len() > 10);
        assert!(movers.windows(2).all(|w| w[1] == w[0] + 1), "one run: {movers:?}");
        // Sets differing only in components no system names share a run:
        // only the movers' (named) part decides.
        let named_parts: Vec<Bits8> = sets.iter().map(|s| s.intersection(&named)).collect();
        assert!(named_parts.windows(2).all(|w| w[0].order(&w[1]).is_le()));
    }

    #[test]
    fn many_sets_in_any_order() {
        // A deterministic shuffle of 12 sets over 500 entities.
        let mut x = 12345u32;
        let sets: Vec<_> = (0..500)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                Bits8::from_indices(&[((x >> 16) % 8) as usize, ((x >> 20) % 8) as usize])
            })
            .collect();
        let swaps = check(&sets);
        assert!(swaps < sets.len(), "each exchange places one entity at least");
    }

    /// Changes of every kind (sets changed, entities appended, the ids cut
    /// with the last entities moved into holes) patched step after step:
    /// each step's result is sorted, every entity keeps its set, the runs
    /// `Order` keeps are the sets' runs, and the patch (not a whole sort)
    /// did it. A patch that missed an id would leave a set in two runs or
    /// count a run wrong.
    #[test]
    fn patches_follow_every_change() {
        let mut x = 99u32;
        let mut rand = move |n: u32| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (x >> 16) % n
        };
        let named = Bits8::from_indices(&[0, 1, 2, 3]);
        let set = |r: &mut dyn FnMut(u32) -> u32| Bits8::from_indices(&[r(4) as usize, 4 + r(4) as usize]);
        let mut sets: Vec<Bits8> = (0..300).map(|_| set(&mut rand)).collect();
        // Names follow the entities through exchanges.
        let mut names: Vec<u32> = (0..300).collect();
        let mut of_name: Vec<Bits8> = sets.clone();
        let mut order = Order::default();
        let arrange_all = |sets: &mut Vec<Bits8>, names: &mut Vec<u32>, order: &mut Order<Bits8>| {
            arrange(sets, &named, order, |a, b, _, _| names.swap(a, b))
        };
        arrange_all(&mut sets, &mut names, &mut order);
        let mut patched = 0;
        for step in 0..60 {
            let exact_before = order.exact;
            for _ in 0..rand(12) {
                match rand(4) {
                    // A set changes.
                    0 | 1 => {
                        let i = rand(sets.len() as u32) as usize;
                        sets[i] = set(&mut rand);
                        of_name[names[i] as usize] = sets[i];
                        order.changed(i as u32);
                    }
                    // An entity is appended.
                    2 => {
                        let s = set(&mut rand);
                        names.push(of_name.len() as u32);
                        of_name.push(s);
                        sets.push(s);
                    }
                    // One dies: the last moves into its id (or it is last).
                    _ if sets.len() > 10 => {
                        let i = rand(sets.len() as u32) as usize;
                        let last = sets.len() - 1;
                        if i != last {
                            sets[i] = sets[last];
                            names[i] = names[last];
                            order.changed(i as u32);
                        }
                        sets.pop();
                        names.pop();
                        order.shrunk(sets.len());
                    }
                    _ => {}
                }
            }
            let before = order.runs.clone();
            arrange_all(&mut sets, &mut names, &mut order);
            patched += usize::from(exact_before && order.runs != before);
            let key = |s: &Bits8| s.intersection(&named);
            assert!(
                sets.windows(2).all(|w| key(&w[0]).order(&key(&w[1])).is_le()),
                "step {step}: not sorted"
            );
            for (i, &name) in names.iter().enumerate() {
                assert_eq!(
                    sets[i], of_name[name as usize],
                    "step {step}: entity {name} lost its set"
                );
            }
            let mut runs: Vec<(Bits8, usize)> = Vec::new();
            for (i, s) in sets.iter().enumerate() {
                match runs.last_mut() {
                    Some((b, end)) if *b == key(s) => *end = i + 1,
                    _ => runs.push((key(s), i + 1)),
                }
            }
            assert_eq!(order.runs, runs, "step {step}: the runs kept");
        }
        assert!(patched > 30, "patched {patched} of 60 steps");
    }

    /// More changes than half the ids: the whole sort runs instead, and
    /// what it leaves is patched next time.
    #[test]
    fn many_changes_sort_everything() {
        let (a, b) = (set(&[0]), set(&[1]));
        let mut sets = vec![a; 10];
        sets.extend([b; 10]);
        let mut order = Order::default();
        arrange(&mut sets, &set(&[0, 1]), &mut order, |_, _, _, _| {});
        assert_eq!(order.runs, [(a, 10), (b, 20)]);
        for (i, s) in sets.iter_mut().enumerate().take(12) {
            *s = if *s == a { b } else { a };
            order.changed(i as u32);
        }
        let snapshot = sets.clone();
        let mut probe = Order {
            runs: order.runs.clone(),
            changed: order.changed.clone(),
            shortest: order.shortest,
            exact: true,
        };
        assert_eq!(
            patch(&mut snapshot.clone(), &set(&[0, 1]), &mut probe, &mut |_, _, _, _| {}),
            None
        );
        arrange(&mut sets, &set(&[0, 1]), &mut order, |_, _, _, _| {});
        // Ten became `b`, two `a`.
        assert_eq!(order.runs, [(a, 2), (b, 20)]);
        sets[0] = b;
        order.changed(0);
        assert_eq!(arrange(&mut sets, &set(&[0, 1]), &mut order, |_, _, _, _| {}), 1);
        assert_eq!(order.runs, [(a, 1), (b, 20)]);
        assert!(sets[..1].iter().all(|&s| s == a) && sets[1..].iter().all(|&s| s == b));
    }
}
