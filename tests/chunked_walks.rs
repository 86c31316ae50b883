//! Walks in place over one written column that read nothing
//! (`QueryCode::IN_CHUNKS`): the step proxy's walks (`Defer::for_each`,
//! `PreparedQuery::for_each`) call the closure for 16 consecutive ids at a
//! time, then for the rest one by one (`walk_run` in
//! `ecs-core/src/proxy/world_query.rs`); a system's walk of the same query
//! goes one by one (`walk_run!` in `proxy/data.rs`, in an optimised build
//! and under Miri). Over runs of every length around a chunk's (one run,
//! scattered ids after kills, subtasks of a split system, on one thread and
//! two), through a system's `for_each`, `for_entities` and
//! `for_entities_in_place`, the step proxy's `for_each` and a
//! `PreparedQuery`: each entity must be visited once, with its own value.

use ecs::{Data, Entity, PreparedQuery, System};

/// The value each walk bumps: entity `i` starts at `1000 * i`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct V(pub u64);
/// A second column, unread by the walks, whose presence makes no runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Other(pub u64);

/// Bumps `V` by 1 through `for_each`.
#[derive(Default)]
pub struct ByItem;
/// Bumps `V` by 10 through `for_entities`, counting its visits in the output.
#[derive(Default)]
pub struct ByEntity;
/// Bumps `V` by 100 through `for_entities_in_place`, split every 7 entities.
#[derive(Default)]
pub struct Split;

macro_rules! context {
    ($name:ident, $threads:literal) => {
        pub mod $name {
            use super::*;

            ecs::declare_context! {
                pub context World {
                    settings { threads: $threads }
                    components { V, Other: contiguous; }
                    systems {
                        by_item: ByItem { write: [V] }
                        by_entity: ByEntity { write: [V], output: usize, after: [by_item] }
                        split: Split { write: [V], output: usize, after: [by_entity], parallelism: split_every(7) }
                    }
                }
            }

            impl System<World> for ByItem {
                fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
                    data.for_each::<&mut V>(|v| v.0 += 1);
                }
            }

            impl System<World> for ByEntity {
                fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
                    data.for_entities::<&mut V>(|view, v| {
                        v.0 += 10;
                        *view.output() += 1;
                    });
                }
            }

            impl System<World> for Split {
                fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
                    data.for_entities_in_place::<&mut V>(|view, v| {
                        v.0 += 100;
                        *view.output() += 1;
                    });
                }
            }
        }
    };
}

context!(one, 1);
context!(two, 2);

/// Lengths around a chunk's (16) and a block's (8).
const LENGTHS: [u64; 11] = [1, 7, 15, 16, 17, 31, 32, 33, 48, 50, 100];

/// Spawns `n` entities (every third with `Other`), kills those `kill`
/// picks, and checks that one step of every system, then the step proxy's
/// `for_each` and a prepared query, bump every live entity's `V` once each.
macro_rules! check {
    ($cx:ident, $n:expr, $kill:expr) => {{
        let n: u64 = $n;
        let mut world = $cx::World::new();
        let all: Vec<Entity> = world.step(|p| {
            (0..n)
                .map(|i| {
                    if i % 3 == 0 {
                        p.spawn((V(1000 * i), Other(i))).unwrap()
                    } else {
                        p.spawn((V(1000 * i),)).unwrap()
                    }
                })
                .collect()
        });
        let kill: fn(u64) -> bool = $kill;
        world.step(|p| {
            for (i, &e) in all.iter().enumerate() {
                if kill(i as u64) {
                    p.kill(e);
                }
            }
        });
        let live: Vec<(u64, Entity)> = (0..n).zip(all.iter().copied()).filter(|&(i, _)| !kill(i)).collect();
        world.step(|p| p.run_all(&()));
        let visits = |outputs: &[usize]| outputs.iter().sum::<usize>();
        assert_eq!(visits(world.outputs::<ByEntity>()), live.len(), "n = {n}: for_entities");
        assert_eq!(visits(world.outputs::<Split>()), live.len(), "n = {n}: split in place");
        world.step(|p| p.for_each::<&mut V>(|v| v.0 += 1000 * 1000));
        let mut prepared = PreparedQuery::<$cx::World, &'static mut V>::new();
        world.step(|p| prepared.for_each(p, |v| v.0 += 2000 * 1000));
        world.step(|p| {
            for &(i, e) in &live {
                assert_eq!(
                    p.get::<V>(e),
                    Some(&V(1000 * i + 111 + 3000 * 1000)),
                    "n = {n}, entity {i}"
                );
            }
        });
    }};
}

#[test]
fn one_run_of_every_length_one_thread() {
    for n in LENGTHS {
        check!(one, n, |_| false);
    }
}

#[test]
fn one_run_of_every_length_two_threads() {
    for n in LENGTHS {
        check!(two, n, |_| false);
    }
}

#[test]
fn scattered_runs_one_thread() {
    for n in LENGTHS {
        // Runs of 16 live ids between single dead ones, then 17, ...
        check!(one, n + 40, |i| i % 17 == 16);
        check!(one, n + 40, |i| i % 18 == 5);
        check!(one, n, |i| i % 2 == 1);
    }
}

#[test]
fn scattered_runs_two_threads() {
    for n in LENGTHS {
        check!(two, n + 40, |i| i % 17 == 16);
        check!(two, n, |i| i % 2 == 1);
    }
}

/// Miri's case: a few lengths across a chunk, one thread.
#[test]
fn miri_one_thread() {
    for n in [15, 16, 17, 33] {
        check!(one, n, |_| false);
    }
    check!(one, 40, |i| i % 17 == 16);
}
