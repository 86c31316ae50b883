//! An entity killed through the step proxy (or a `Defer`) is seen by no
//! system run afterwards, the same step's included: `run_all` after `kill`,
//! in every storage, on one and two threads, with split systems. A system's
//! own `Data::kill` is a request that the step's refresh carries out: until
//! then the entity is alive, and systems still iterate it.

use ecs::{Data, Entity, EntityId, RefreshEvents, System};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Val(pub u32);
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Mark;
/// Added in bulk in some cases.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Z(pub u32);
/// Entities holding it are killed by the `Killer` system.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Doomed;
/// Beside `Val` in a group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pad(pub u32);

#[path = "support/plain.rs"]
mod plain;
use plain::Plain;
pub type PlainVal = Plain<Val>;

#[derive(Default)]
pub struct Killer;
#[derive(Default)]
pub struct First;
#[derive(Default)]
pub struct Second;
#[derive(Default)]
pub struct Both;

/// The handles of the entities a system iterates in this subtask (`None`
/// for an id that holds no live entity), through its set and through a
/// query loop.
fn record<Cx, S>(data: &mut Data<'_, Cx, S>)
where
    Cx: ecs::traits::ContextDecl,
    S: ecs::traits::SystemOf<Cx, Output = Vec<Option<Entity>>>,
{
    let mut seen = Vec::new();
    data.for_each::<EntityId>(|id| seen.push(id));
    assert_eq!(seen, data.entities(), "the loop walks the set");
    for id in seen {
        let handle = data.handle(id);
        data.output().push(handle);
    }
}

macro_rules! kind {
    ($name:ident, $X:ident, $make:expr, { $($components:tt)* }) => {
        mod $name {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: dynamic, inner_parallelism: allow, threads: 2 }
                    components { $($components)* Z: contiguous; Doomed: sparse_set; }
                    systems {
                        killer: Killer { read: [$X, Doomed], parallelism: split_every(2), output: Vec<Option<Entity>> }
                        first: First { read: [$X], after: [killer], parallelism: split_every(3), output: Vec<Option<Entity>> }
                        second: Second { read: [$X], after: [first], parallelism: split_every(5), output: Vec<Option<Entity>> }
                        both: Both { read: [$X, Z], parallelism: split_every(3), output: Vec<Option<Entity>> }
                    }
                }
            }

            impl System<Ctx> for Killer {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    record(data);
                    for &id in data.entities() {
                        data.kill(id);
                    }
                }
            }
            impl System<Ctx> for First {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    record(data);
                }
            }
            impl System<Ctx> for Second {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    record(data);
                }
            }
            impl System<Ctx> for Both {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    record(data);
                }
            }

            fn make(i: u32) -> $X {
                ($make)(i)
            }

            const N: u32 = 40;

            fn world(threads: usize) -> (Ctx, Vec<Entity>) {
                let mut ctx = Ctx::with_threads(Default::default(), Some(threads));
                let hs = ctx.step(|p| (0..N).map(|i| p.spawn((make(i),)).unwrap()).collect::<Vec<_>>());
                ctx.step(|p| p.run_all(&()));
                (ctx, hs)
            }

            /// The entities system `S` iterated in the last run, sorted by
            /// slot; panics if it iterated a dead one.
            fn seen<S: ecs::traits::SystemOf<Ctx, Output = Vec<Option<Entity>>>>(p: &ecs::Step<'_, Ctx>) -> Vec<Entity> {
                let mut seen: Vec<Entity> = p
                    .outputs::<S>()
                    .concat()
                    .into_iter()
                    .map(|h| h.expect("every entity a system iterates is alive"))
                    .collect();
                seen.sort_by_key(|e| e.slot());
                seen
            }

            fn live(hs: &[Entity], dead: &[usize]) -> Vec<Entity> {
                let mut live: Vec<Entity> =
                    (0..hs.len()).filter(|k| !dead.contains(k)).map(|k| hs[k]).collect();
                live.sort_by_key(|e| e.slot());
                live
            }

            #[test]
            fn a_kill_before_run_all_hides_the_entity_from_every_system() {
                for threads in [1, 2] {
                    let (mut ctx, hs) = world(threads);
                    ctx.step(|p| {
                        for k in [0, 13, 39] {
                            assert!(p.kill(hs[k]));
                        }
                        p.run_all(&());
                        let want = live(&hs, &[0, 13, 39]);
                        assert_eq!(seen::<First>(p), want, "{threads} threads");
                        assert_eq!(seen::<Second>(p), want);
                        assert!(p.outputs::<First>().len() > 1, "split into subtasks");
                        // Again in the same step: the earlier kills stay
                        // hidden, and a new one joins them.
                        assert!(p.kill(hs[20]));
                        // An entity created and killed in the same step.
                        let fresh = p.spawn((make(99),)).unwrap();
                        assert!(p.kill(fresh));
                        p.run_all(&());
                        assert_eq!(seen::<First>(p), live(&hs, &[0, 13, 20, 39]));
                    });
                    assert_eq!(ctx.subscribers::<First>().len(), N as usize - 4);
                    ctx.step(|p| {
                        p.run_all(&());
                        assert_eq!(seen::<Second>(p), live(&hs, &[0, 13, 20, 39]));
                    });
                }
            }

            #[test]
            fn a_kill_before_a_bulk_change_stays_hidden() {
                for threads in [1, 2] {
                    let (mut ctx, hs) = world(threads);
                    // Half the entities hold `Z`: `Both` processes them.
                    ctx.step(|p| {
                        for k in (0..N as usize).step_by(2) {
                            p.add(hs[k], Z(0)).unwrap();
                        }
                        p.run_all(&());
                    });
                    let mut unsubscribed = Vec::new();
                    let mut subscribed = Vec::new();
                    let mut events = RefreshEvents::<Ctx>::new()
                        .on_unsubscribe::<Both>(|e| unsubscribed.push(e))
                        .on_subscribe::<Both>(|e| subscribed.push(e));
                    ctx.step_with(&mut events, |p| {
                        // Entity 4 holds `Z`, entity 5 does not.
                        assert!(p.kill(hs[4]) && p.kill(hs[5]));
                        // `Z` for every live entity: a bulk change, matched
                        // against every id, the killed ones included.
                        assert_eq!(p.add_to_all::<($X,), Z>(|id| Z(id.to_bits())), N as usize - 2);
                        p.run_all(&());
                        assert_eq!(seen::<Both>(p), live(&hs, &[4, 5]), "{threads} threads");
                        // Removing `Z` from all and running: nobody.
                        p.remove_from_all::<Z>();
                        p.run_all(&());
                        assert!(seen::<Both>(p).is_empty());
                    });
                    drop(events);
                    assert!(!subscribed.contains(&hs[4]) && !subscribed.contains(&hs[5]));
                    assert_eq!(unsubscribed.iter().filter(|&&e| e == hs[4]).count(), 1, "reported once");
                    assert!(!unsubscribed.contains(&hs[5]), "never subscribed");
                }
            }

            #[test]
            fn a_kill_is_reported_once_with_events() {
                for threads in [1, 2] {
                    let (mut ctx, hs) = world(threads);
                    let mut unsubscribed = Vec::new();
                    let mut reclaimed = Vec::new();
                    let mut events = RefreshEvents::<Ctx>::new()
                        .on_unsubscribe::<First>(|e| unsubscribed.push(e))
                        .on_reclaim(|e| reclaimed.push(e));
                    ctx.step_with(&mut events, |p| {
                        p.kill(hs[7]);
                        p.run_all(&());
                        assert!(!seen::<First>(p).contains(&hs[7]));
                    });
                    drop(events);
                    assert_eq!(unsubscribed, vec![hs[7]]);
                    assert_eq!(reclaimed, vec![hs[7]]);
                }
            }

            #[test]
            fn a_systems_kill_waits_for_the_refresh() {
                for threads in [1, 2] {
                    let (mut ctx, hs) = world(threads);
                    ctx.step(|p| {
                        p.add(hs[3], Doomed).unwrap();
                        p.add(hs[30], Doomed).unwrap();
                    });
                    ctx.step(|p| {
                        p.run_all(&());
                        assert_eq!(seen::<Killer>(p), live(&[hs[3], hs[30]], &[]));
                        // Asked for, not done: alive until the refresh, and
                        // the systems after the killer still iterate it.
                        assert!(p.is_alive(hs[3]) && p.is_alive(hs[30]));
                        assert_eq!(seen::<First>(p), live(&hs, &[]));
                        p.run_all(&());
                        assert_eq!(seen::<Second>(p), live(&hs, &[]), "a later run of the step too");
                    });
                    assert!(!ctx.is_alive(hs[3]) && !ctx.is_alive(hs[30]));
                    ctx.step(|p| {
                        p.run_all(&());
                        assert_eq!(seen::<First>(p), live(&hs, &[3, 30]), "{threads} threads");
                        assert!(seen::<Killer>(p).is_empty());
                    });
                }
            }
        }
    };
}

kind!(contiguous, Val, Val, { Val: contiguous; });
kind!(grouped, Val, Val, { (Val, Pad): grouped; });
kind!(sparse_set, Val, Val, { Val: sparse_set; });
kind!(hash_map, Val, Val, { Val: hash_map; });
kind!(custom, Val, Val, { Val: custom(PlainVal); });
kind!(tag, Mark, |_| Mark, { Mark: tag; });
