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
//! costs nothing more. Otherwise it reads every entity's set once (is it
//! sorted?), and when not, counts the archetypes and moves only the
//! entities outside their archetype's run, each into its run by one
//! exchange of ids (an in-place bucket sort, as "American flag sort"): `k`
//! new entities of the first of `a` archetypes move about `k` entities at
//! each of the `a - 1` boundaries after it, and `k` new entities of the
//! last archetype move none. A moved entity's values move in every column
//! it has (as a reclamation's do), and every system's set of entities is
//! rebuilt in id order, one pass over the sets each. A step that
//! creates or changes many entities of early archetypes therefore pays for
//! moving entities that `Layout::Ids` leaves alone, and for systems that
//! match every entity the layout changes nothing: measure
//! (`benches/peers`, "fragmented").
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
//! span several runs walks each without gaps.

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
/// Only entities outside their set's run move; `sets` already sorted costs
/// one pass and no allocation.
pub(crate) fn arrange<B: ComponentSet>(sets: &mut [B], named: &B, mut swap: impl FnMut(usize, usize, B, B)) -> usize {
    // Only the named part of a set counts: compared, counted and looked up
    // by it, so that neighbours differing in other components share the
    // cached look-up (a `BTreeMap` search per entity made sorting after
    // 1 000 changes of a named component among 100 000 entities cost 12.0M
    // instructions instead of 5.1M: `benches/peers/examples/fragmented.rs`).
    let key = |s: B| s.intersection(named);
    if sets.windows(2).all(|w| key(w[0]).order(&key(w[1])).is_le()) {
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
        arrange(&mut sets, &named, |_, _, _, _| {});
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
}
