//! `many` components: several instances per entity (seed 004's explosion
//! with smoke, rubble and sparks emitters), in every inner storage, fixed and
//! dynamic, with systems split across 2 threads: values, adding and removing
//! single instances (step proxy, in place in systems, deferred from
//! systems), matching as the first instance comes and the last goes, keys
//! that survive other instances' removal and the packing of ids, stale keys
//! that name nothing, each instance walked on its own, and drops that
//! panic.

use ecs::{Data, Entity, EntityId, InstanceKey, Instances, InstancesMut, Many, System};
use std::collections::HashMap;
use std::ops::DerefMut;

#[derive(Clone, Debug, PartialEq)]
pub struct Emitter {
    pub kind: u32,
    pub emitted: u32,
}

fn em(kind: u32) -> Emitter {
    Emitter { kind, emitted: 0 }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos(pub u32);

/// Every instance emits once (each instance walked on its own); entities
/// at a multiple of 3 with fewer than 3 emitters grow one in place (a
/// system may push onto its own entity's instances).
#[derive(Default)]
pub struct Emit;

/// Counts the entities holding emitters and their instances.
#[derive(Default)]
pub struct Census;

/// Deferred from a system: a new spark (kind 99) on entities at `Pos(7)`,
/// and the first instance taken from entities at `Pos(11)`.
#[derive(Default)]
pub struct Sparks;

macro_rules! many_case {
    ($test:ident, $limit:expr, $($storage:tt)+) => {
        mod $test {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: $limit, inner_parallelism: allow, threads: 2 }
                    components { Emitter: $($storage)+; Pos: contiguous; }
                    systems {
                        emit: Emit { read: [Pos], write: [Emitter], parallelism: split_every(4) }
                        census: Census { read: [Emitter], after: [emit], parallelism: split_every(4), output: (usize, usize) }
                        sparks: Sparks { read: [Pos, Emitter], after: [census], parallelism: split_every(4) }
                    }
                }
            }

            impl System<Ctx> for Emit {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each_instance::<&mut Emitter, ()>(|e, ()| e.emitted += 1);
                    data.for_each::<(InstancesMut<Emitter>, &Pos)>(|(mut set, pos)| {
                        if pos.0 % 3 == 0 && set.len() < 3 {
                            set.push(em(100 + pos.0));
                        }
                    });
                }
            }

            impl System<Ctx> for Census {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    let mut n = (0, 0, 0);
                    data.for_each::<Instances<Emitter>>(|set| {
                        assert!(set.len() >= 1, "a matched entity holds an instance");
                        assert_eq!(set.iter().count(), set.len());
                        n.0 += 1;
                        n.1 += set.len();
                    });
                    // Each instance on its own, beside its entity's id:
                    // as many as the entities' views hold.
                    data.for_each_instance::<&Emitter, EntityId>(|_, _| n.2 += 1);
                    assert_eq!(n.1, n.2, "one call per instance");
                    *data.output() = (n.0, n.1);
                }
            }

            impl System<Ctx> for Sparks {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_entities::<(EntityId, &Pos, Instances<Emitter>)>(|view, (id, pos, set)| match pos.0 {
                        7 => view.add_instance_later(id, em(99)),
                        11 => view.remove_instance_later::<Emitter>(id, set.key(0).unwrap()),
                        _ => {}
                    });
                }
            }

            #[test]
            fn instances_from_the_step_proxy() {
                super::instances_from_the_step_proxy::<Ctx>(Ctx::new());
            }

            #[test]
            fn matching_follows_the_first_and_last_instance() {
                super::matching_follows_the_first_and_last_instance::<Ctx>(Ctx::new());
            }

            #[test]
            fn systems_modify_push_and_defer() {
                super::systems_modify_push_and_defer::<Ctx>(Ctx::new());
            }

            #[test]
            fn keys_survive_reclaiming_and_packing() {
                super::keys_survive_reclaiming_and_packing::<Ctx>(Ctx::new());
            }

            #[test]
            fn stale_keys_name_nothing() {
                super::stale_keys_name_nothing::<Ctx>(Ctx::new());
            }
        }
    };
}

many_case!(contiguous_fixed, fixed(64), many);
many_case!(contiguous_dynamic, dynamic(2), many);
many_case!(sparse_set_fixed, fixed(64), many(sparse_set));
many_case!(sparse_set_dynamic, dynamic(2), many(sparse_set));
many_case!(hash_map_fixed, fixed(64), many(hash_map));
many_case!(hash_map_dynamic, dynamic(2), many(hash_map));

/// The step proxy's queries reach every instance through the views.
#[test]
fn step_proxy_queries_see_every_instance() {
    let mut ctx = contiguous_fixed::Ctx::new();
    ctx.step(|p| {
        let a = p.spawn((Many::new(em(1)), Pos(1))).unwrap();
        p.add_instance(a, em(2)).unwrap();
        p.spawn((Many::new(em(3)), Pos(2))).unwrap();
        p.for_each::<(InstancesMut<Emitter>, &Pos)>(|(mut set, pos)| {
            for e in set.iter_mut() {
                e.emitted += pos.0;
            }
        });
        let mut seen: Vec<(u32, u32)> = p
            .query::<Instances<Emitter>>()
            .flat_map(|(_, set)| set.iter().map(|e| (e.kind, e.emitted)).collect::<Vec<_>>())
            .collect();
        seen.sort_unstable();
        assert_eq!(seen, [(1, 1), (2, 1), (3, 2)]);
    });
}

/// What every test context provides.
pub trait Case: ecs::traits::ContextDecl + ecs::traits::Dispatch<()> {}
impl<Cx: ecs::traits::ContextDecl + ecs::traits::Dispatch<()>> Case for Cx {}

/// A context of a test case.
pub trait Ctx<Cx: Case>: DerefMut<Target = ecs::Context<Cx>> {}
impl<Cx: Case, T: DerefMut<Target = ecs::Context<Cx>>> Ctx<Cx> for T {}

fn instances_from_the_step_proxy<Cx: Case>(mut ctx: impl Ctx<Cx>)
where
    Many<Emitter>: ecs::traits::Component<Cx>,
    Emitter: ecs::traits::ManyComponent<Cx>,
    Pos: ecs::traits::Component<Cx>,
{
    ctx.step(|p| {
        let e = p.spawn((Pos(1),)).unwrap();
        assert!(p.instances::<Emitter>(e).is_none());
        let smoke = p.add_instance(e, em(1)).unwrap();
        let rubble = p.add_instance(e, em(2)).unwrap();
        let sparks = p.add_instance(e, em(3)).unwrap();
        assert_eq!(all(p, e), [em(1), em(2), em(3)]);
        let keys: Vec<InstanceKey> = p.instances::<Emitter>(e).unwrap().keys().collect();
        assert_eq!(keys, [smoke, rubble, sparks]);

        // Removing one instance leaves the others' keys naming them.
        assert_eq!(p.remove_instance::<Emitter>(e, rubble), Some(em(2)));
        assert_eq!(p.remove_instance::<Emitter>(e, rubble), None, "removed already");
        p.instance_mut::<Emitter>(e, sparks).unwrap().emitted = 5;
        assert_eq!(p.instance(e, smoke), Some(&em(1)));
        assert_eq!(p.instance(e, sparks), Some(&Emitter { kind: 3, emitted: 5 }));
        assert_eq!(p.instances::<Emitter>(e).unwrap().index_of(sparks), Some(1));

        // The last instance takes the component; a new first one has a new
        // key, and the old keys find nothing.
        assert_eq!(p.remove_instance::<Emitter>(e, smoke), Some(em(1)));
        assert!(p.has::<Many<Emitter>>(e));
        assert_eq!(p.remove_instance::<Emitter>(e, sparks).map(|s| s.kind), Some(3));
        assert!(!p.has::<Many<Emitter>>(e));
        assert_eq!(p.remove_instance::<Emitter>(e, sparks), None);
        let again = p.add_instance(e, em(4)).unwrap();
        assert!(![smoke, rubble, sparks].contains(&again));
        for old in [smoke, rubble, sparks] {
            assert_eq!(p.instance::<Emitter>(e, old), None);
        }
        // A key of another entity's instance is not this entity's.
        let other = p.spawn((Many::new(em(5)),)).unwrap();
        let foreign = p.add_instance(other, em(6)).unwrap();
        if p.instances::<Emitter>(e).unwrap().index_of(foreign).is_none() {
            assert_eq!(p.remove_instance::<Emitter>(e, foreign), None);
        }
        assert_eq!(p.instance(other, foreign), Some(&em(6)));

        // Swap-removal moves the last instance into the hole, keys intact.
        let (a, b, c) = (
            p.add_instance(other, em(7)).unwrap(),
            p.add_instance(other, em(8)).unwrap(),
            p.add_instance(other, em(9)).unwrap(),
        );
        let first = p.instances::<Emitter>(other).unwrap().key(0).unwrap();
        let mut set = p.instances_mut::<Emitter>(other).unwrap();
        assert_eq!(set.swap_remove(a).map(|x| x.kind), Some(7));
        assert_eq!(set.index_of(c), Some(2));
        assert_eq!(set.swap_remove(first).map(|x| x.kind), Some(5));
        assert_eq!(set.index_of(b), Some(0), "the last moved into the first place");
        assert_eq!(set.iter().map(|x| x.kind).collect::<Vec<_>>(), [8, 6, 9]);
        for gone in [a, first] {
            assert_eq!(set.get_by_key(gone), None);
        }
        assert_eq!(set.get_by_key(foreign), Some(&em(6)));
        set.get_by_key_mut(c).unwrap().emitted = 3;
        assert_eq!(p.instance::<Emitter>(other, c).map(|x| x.emitted), Some(3));

        // Adding the component anew replaces every instance.
        assert_eq!(
            p.add(other, Many::new(em(10))).unwrap().map(|m| m.into_inner().kind),
            Some(8)
        );
        assert_eq!(all(p, other), [em(10)]);
        for gone in [b, c, foreign] {
            assert_eq!(p.instance::<Emitter>(other, gone), None);
        }

        // Dead entities: an error value, nothing happens.
        assert!(p.kill(e));
        assert!(p.add_instance(e, em(7)).is_err());
        assert_eq!(p.remove_instance::<Emitter>(e, again), None);
        assert!(p.instances::<Emitter>(e).is_none());
    });
}

/// The instances of `e`, cloned (empty when it holds none).
fn all<Cx: Case>(p: &ecs::Defer<'_, Cx>, e: Entity) -> Vec<Emitter>
where
    Many<Emitter>: ecs::traits::Component<Cx>,
    Emitter: ecs::traits::ManyComponent<Cx>,
{
    p.instances::<Emitter>(e).map_or_else(Vec::new, |s| s.to_vec())
}

/// Keys of removed instances, of an entity whose component was removed
/// and added again, and of killed entities whose ids were reused, name
/// nothing, in the step and after refreshes.
fn stale_keys_name_nothing<Cx: Case>(mut ctx: impl Ctx<Cx>)
where
    Many<Emitter>: ecs::traits::Component<Cx>,
    Emitter: ecs::traits::ManyComponent<Cx>,
    Pos: ecs::traits::Component<Cx>,
{
    let (e, old) = ctx.step(|p| {
        let e = p.spawn((Pos(1), Many::new(em(0)))).unwrap();
        let old: Vec<InstanceKey> = (1..4).map(|k| p.add_instance(e, em(k)).unwrap()).collect();
        (e, old)
    });
    let first = ctx.step(|p| p.instances::<Emitter>(e).unwrap().key(0).unwrap());
    // Removed and added again, in another step: the counter goes on.
    ctx.step(|p| assert!(p.remove::<Many<Emitter>>(e).is_some()));
    let fresh = ctx.step(|p| {
        let k = p.add_instance(e, em(50)).unwrap();
        (0..2)
            .map(|n| p.add_instance(e, em(51 + n)).unwrap())
            .chain([k])
            .collect::<Vec<_>>()
    });
    ctx.step(|p| {
        for key in old.iter().chain([&first]) {
            assert!(!fresh.contains(key));
            assert_eq!(p.instance::<Emitter>(e, *key), None);
        }
    });
    // Killed, and its id given to new entities after the refresh.
    let stale: Vec<(Entity, InstanceKey)> = ctx.step(|p| {
        let keys = p.instances::<Emitter>(e).unwrap().keys().map(|k| (e, k)).collect();
        p.kill(e);
        keys
    });
    ctx.step(|p| {
        let news: Vec<Entity> = (0..4)
            .map(|i| {
                let n = p.spawn((Pos(2), Many::new(em(60 + i)))).unwrap();
                for k in 0..3 {
                    p.add_instance(n, em(70 + k)).unwrap();
                }
                n
            })
            .collect();
        for &(dead, key) in &stale {
            assert_eq!(p.instance::<Emitter>(dead, key), None);
            assert_eq!(p.remove_instance::<Emitter>(dead, key), None);
        }
        for &n in &news {
            assert_eq!(all(p, n).len(), 4, "nothing of the dead entity's instances");
        }
    });
}

fn census<Cx: Case>(ctx: &mut ecs::Context<Cx>) -> (usize, usize)
where
    Census: ecs::traits::SystemOf<Cx, Output = (usize, usize)>,
{
    ctx.step(|p| {
        p.run_all(&());
        p.outputs::<Census>().iter().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    })
}

fn matching_follows_the_first_and_last_instance<Cx: Case>(mut ctx: impl Ctx<Cx>)
where
    Many<Emitter>: ecs::traits::Component<Cx>,
    Emitter: ecs::traits::ManyComponent<Cx>,
    Pos: ecs::traits::Component<Cx>,
    Census: ecs::traits::SystemOf<Cx, Output = (usize, usize)>,
{
    // Positions of 1 mod 3 and not 7 or 8: no system adds or removes.
    let es: Vec<Entity> = ctx.step(|p| (0..10).map(|i| p.spawn((Pos(3 * i + 10),)).unwrap()).collect());
    assert_eq!(census(&mut *ctx), (0, 0));
    let first = ctx.step(|p| p.add_instance(es[2], em(1)).unwrap());
    assert_eq!(census(&mut *ctx), (1, 1), "the first instance matches the entity");
    let second = ctx.step(|p| p.add_instance(es[2], em(2)).unwrap());
    assert_eq!(census(&mut *ctx), (1, 2));
    ctx.step(|p| assert_eq!(p.remove_instance::<Emitter>(es[2], first).map(|e| e.kind), Some(1)));
    assert_eq!(census(&mut *ctx), (1, 1), "one instance left: still matched");
    ctx.step(|p| assert_eq!(p.remove_instance::<Emitter>(es[2], second).map(|e| e.kind), Some(2)));
    assert_eq!(census(&mut *ctx), (0, 0), "the last instance unmatches the entity");
    // Within one step: added and removed before systems run.
    ctx.step(|p| {
        let k = p.add_instance(es[4], em(3)).unwrap();
        p.run_all(&());
        assert_eq!(p.outputs::<Census>().iter().map(|o| o.0).sum::<usize>(), 1);
        p.remove_instance::<Emitter>(es[4], k).unwrap();
        p.run_all(&());
        assert_eq!(p.outputs::<Census>().iter().map(|o| o.0).sum::<usize>(), 0);
    });
}

fn systems_modify_push_and_defer<Cx: Case>(mut ctx: impl Ctx<Cx>)
where
    Many<Emitter>: ecs::traits::Component<Cx>,
    Emitter: ecs::traits::ManyComponent<Cx>,
    Pos: ecs::traits::Component<Cx>,
    Census: ecs::traits::SystemOf<Cx, Output = (usize, usize)>,
{
    // 30 entities at positions 0..30, with 1 + i % 2 emitters each.
    let (es, keys): (Vec<Entity>, Vec<Vec<InstanceKey>>) = ctx.step(|p| {
        (0..30u32)
            .map(|i| {
                let e = p.spawn((Many::new(em(10 * i)), Pos(i))).unwrap();
                let mut keys = vec![p.instances::<Emitter>(e).unwrap().key(0).unwrap()];
                keys.extend((1..1 + i % 2).map(|k| p.add_instance(e, em(10 * i + k)).unwrap()));
                (e, keys)
            })
            .unzip()
    });
    let instances = |i: u32| 1 + (i % 2) as usize;
    // Run 1: every instance emits; multiples of 3 with fewer than 3 grow one
    // (in place, so census sees it); 7 gains a spark and 8 loses its first
    // instance at the refresh.
    let grown = |i: u32| i.is_multiple_of(3) && instances(i) < 3;
    let total: usize = (0..30).map(|i| instances(i) + grown(i) as usize).sum();
    assert_eq!(census(&mut *ctx), (30, total));
    ctx.step(|p| {
        for (i, (&e, keys)) in es.iter().zip(&keys).enumerate() {
            let i = i as u32;
            let set = p.instances::<Emitter>(e).unwrap();
            let mut want: Vec<Emitter> = (0..instances(i) as u32)
                .map(|k| Emitter {
                    kind: 10 * i + k,
                    emitted: 1,
                })
                .collect();
            if grown(i) {
                want.push(em(100 + i));
            }
            if i == 7 {
                want.push(em(99));
            }
            if i == 11 {
                want.remove(0);
                assert_eq!(set.index_of(keys[0]), None, "entity 11's first instance is gone");
            }
            assert_eq!(set.to_vec(), want, "entity {i}");
            // The original instances keep their keys, wherever they are now.
            for (k, &key) in keys.iter().enumerate() {
                if i != 11 || k != 0 {
                    assert_eq!(
                        set.get_by_key(key).map(|e| e.kind),
                        Some(10 * i + k as u32),
                        "entity {i}"
                    );
                }
            }
        }
    });
    // Run 2: entity 11 had one instance left, which `sparks` now takes: it
    // leaves every system over emitters.
    assert_eq!(census(&mut *ctx).0, 30);
    ctx.step(|p| assert!(!p.has::<Many<Emitter>>(es[11])));
    assert_eq!(census(&mut *ctx).0, 29);
}

fn keys_survive_reclaiming_and_packing<Cx: Case>(mut ctx: impl Ctx<Cx>)
where
    Many<Emitter>: ecs::traits::Component<Cx>,
    Emitter: ecs::traits::ManyComponent<Cx>,
    Pos: ecs::traits::Component<Cx>,
    Census: ecs::traits::SystemOf<Cx, Output = (usize, usize)>,
{
    // Positions of 1 mod 3 from 10 on: no system changes the sets.
    let es: Vec<(Entity, Vec<InstanceKey>)> = ctx.step(|p| {
        (0..40u32)
            .map(|i| {
                let e = p.spawn((Pos(3 * i + 10),)).unwrap();
                let keys = (0..1 + i % 4)
                    .map(|k| p.add_instance(e, em(10 * i + k)).unwrap())
                    .collect();
                (e, keys)
            })
            .collect()
    });
    // Remove one instance of each entity with 3 or more, kill the low ids:
    // reclaiming moves the highest ids into the holes.
    ctx.step(|p| {
        for (i, (e, keys)) in es.iter().enumerate() {
            if keys.len() >= 3 {
                p.remove_instance::<Emitter>(*e, keys[1]).unwrap();
            }
            if i < 15 || i % 5 == 0 {
                p.kill(*e);
            }
        }
    });
    let survivors: Vec<usize> = (0..40).filter(|&i| !(i < 15 || i % 5 == 0)).collect();
    let check = |p: &mut ecs::Step<'_, Cx>, emitted: u32| {
        let mut ids: Vec<u32> = survivors.iter().map(|&i| p.id_of(es[i].0).unwrap().to_bits()).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..survivors.len() as u32).collect::<Vec<_>>(), "ids are packed");
        let mut by_key = HashMap::new();
        for &i in &survivors {
            let (e, keys) = &es[i];
            for (k, &key) in keys.iter().enumerate() {
                let want = (k != 1 || keys.len() < 3).then(|| Emitter {
                    kind: 10 * i as u32 + k as u32,
                    emitted,
                });
                assert_eq!(
                    p.instance::<Emitter>(*e, key).cloned(),
                    want,
                    "entity {i}, instance {k}"
                );
                by_key.insert((*e, key), i);
            }
        }
        // Every (entity, key) names one instance.
        assert_eq!(by_key.len(), survivors.iter().map(|&i| es[i].1.len()).sum::<usize>());
    };
    ctx.step(|p| check(p, 0));
    // Reclaimed slots come back without sets; the dead keys stay dead.
    ctx.step(|p| {
        for _ in 0..20 {
            let e = p.create().unwrap();
            assert!(p.instances::<Emitter>(e).is_none());
            for (dead, keys) in es.iter().take(15) {
                for &key in keys {
                    assert_eq!(p.instance::<Emitter>(*dead, key), None);
                    assert_eq!(p.instance::<Emitter>(e, key), None);
                }
            }
        }
    });
    let want = survivors
        .iter()
        .map(|&i| es[i].1.len() - (es[i].1.len() >= 3) as usize)
        .sum();
    assert_eq!(census(&mut *ctx), (survivors.len(), want));
    ctx.step(|p| check(p, 1));
}

/// Panicking drops of instances, in every inner storage, on 1 and 2
/// threads with systems split: replacing the component, removing it,
/// killing entities (reclaimed at the refresh, ids packed), removing it
/// from every entity at once, a system that panics halfway through adding
/// instances, and dropping the context drop every instance exactly once,
/// and the first panic reaches the caller.
mod panicking_drops {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::Mutex;

    /// Pushes a bomb onto every entity it walks, and panics at `Pos(5)`.
    #[derive(Default)]
    pub struct Arm;

    macro_rules! bomb_case {
        ($test:ident, $threads:literal, $($storage:tt)+) => {
            mod $test {
                use super::*;

                /// The numbers of the dropped bombs (one list per test: tests
                /// run in parallel).
                static DROPPED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

                impl Drop for Bomb {
                    fn drop(&mut self) {
                        DROPPED.lock().unwrap_or_else(|e| e.into_inner()).push(self.0);
                        // The second bomb of each entity (and 1001) panics.
                        if self.0 % 10 == 1 && self.0 < 2000 {
                            panic!("bomb {}", self.0);
                        }
                    }
                }

                #[derive(Debug)]
                pub struct Bomb(pub u32);

                ecs::declare_context! {
                    pub context Ctx {
                        settings { entities: dynamic(4), inner_parallelism: allow, threads: $threads }
                        components { Bomb: $($storage)+; Pos: contiguous; }
                        systems { arm: Arm { read: [Pos], write: [Many<Bomb>], parallelism: split_every(3) } }
                    }
                }

                impl System<Ctx> for Arm {
                    fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                        data.for_each::<(InstancesMut<Bomb>, &Pos)>(|(mut set, pos)| {
                            set.push(Bomb(2000 + pos.0));
                            assert!(pos.0 != 5, "arm {}", pos.0);
                        });
                    }
                }

                fn dropped() -> Vec<u32> {
                    let mut d = DROPPED.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    d.sort_unstable();
                    d
                }

                fn bombs_of(p: &ecs::Defer<'_, Ctx>, e: Entity) -> Vec<u32> {
                    p.instances::<Bomb>(e).map_or_else(Vec::new, |s| s.iter().map(|b| b.0).collect())
                }

                #[test]
                fn every_instance_is_dropped_once() {
                    let mut ctx = Ctx::new();
                    let bombs = |i: u32| (0..3).map(move |k| 10 * i + k);
                    // Entity i holds bombs 10i..10i+3.
                    let es: Vec<Entity> = ctx.step(|p| {
                        (0..12u32)
                            .map(|i| {
                                let e = p.spawn((Many::new(Bomb(10 * i)), Pos(i))).unwrap();
                                for k in 1..3 {
                                    p.add_instance(e, Bomb(10 * i + k)).unwrap();
                                }
                                e
                            })
                            .collect()
                    });
                    let mut want: Vec<u32> = Vec::new();
                    // Replacing entity 11's instances: 111 panics, and 110, 112
                    // are dropped all the same; the new one is held.
                    let r = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| drop(p.add(es[11], Many::new(Bomb(500)))))));
                    assert_eq!(r.expect_err("111 panicked").downcast_ref::<String>().map(String::as_str), Some("bomb 111"));
                    want.extend(bombs(11));
                    assert_eq!(dropped(), want);
                    ctx.step(|p| assert_eq!(bombs_of(p, es[11]), [500]));
                    // Removing entity 10's: 101 panics.
                    let r = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| drop(p.remove::<Many<Bomb>>(es[10])))));
                    assert!(r.is_err());
                    want.extend(bombs(10));
                    want.sort_unstable();
                    assert_eq!(dropped(), want);
                    ctx.step(|p| assert!(!p.has::<Many<Bomb>>(es[10]) && p.instances::<Bomb>(es[10]).is_none()));
                    // Killing entities 0..4: their instances are dropped at the
                    // refresh, where 1, 11, 21 and 31 panic.
                    let r = catch_unwind(AssertUnwindSafe(|| {
                        ctx.step(|p| {
                            for &e in &es[..4] {
                                p.kill(e);
                            }
                        })
                    }));
                    let payload = r.expect_err("drops panicked");
                    assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some("bomb 1"));
                    want.extend((0..4).flat_map(bombs));
                    want.sort_unstable();
                    assert_eq!(dropped(), want);
                    // The others were packed into the freed ids with their bombs.
                    ctx.step(|p| {
                        for (i, &e) in es.iter().enumerate().skip(4).take(6) {
                            assert_eq!(bombs_of(p, e), bombs(i as u32).collect::<Vec<_>>(), "entity {i}");
                        }
                    });
                    // A system that panics halfway through pushing: whatever
                    // it pushed is held, counted and dropped once below.
                    let r = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.run_all(&()))));
                    assert!(r.is_err(), "arm 5 panicked");
                    let armed: usize = ctx.step(|p| {
                        es[4..].iter().map(|&e| bombs_of(p, e).iter().filter(|&&b| b >= 2000).count()).sum()
                    });
                    assert!((1..=7).contains(&armed), "pushed before the panic: {armed}");
                    // Removing the component from every entity at once.
                    let r = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.remove_from_all::<Many<Bomb>>())));
                    assert!(r.is_err(), "41, 51, ... panicked");
                    let d = dropped();
                    assert!((0..10).flat_map(bombs).chain([500]).all(|b| d.contains(&b)));
                    assert_eq!(d.iter().filter(|&&b| b >= 2000).count(), armed);
                    assert_eq!(d.len(), 36 + 1 + armed, "every bomb once");
                    ctx.step(|p| {
                        for &e in &es[4..] {
                            assert!(!p.has::<Many<Bomb>>(e));
                            p.add_instance(e, Bomb(1000)).unwrap();
                            p.add_instance(e, Bomb(1001)).unwrap();
                        }
                    });
                    // Dropping the context drops the rest once; 1001s panic.
                    let r = catch_unwind(AssertUnwindSafe(move || drop(ctx)));
                    assert!(r.is_err(), "1001 panicked");
                    let d = dropped();
                    assert_eq!(d.iter().filter(|&&n| n == 1000).count(), 8);
                    assert_eq!(d.iter().filter(|&&n| n == 1001).count(), 8);
                    assert_eq!(d.len(), 36 + 1 + armed + 16);
                }
            }
        };
    }

    bomb_case!(contiguous_1, 1, many);
    bomb_case!(contiguous_2, 2, many);
    bomb_case!(sparse_set_1, 1, many(sparse_set));
    bomb_case!(sparse_set_2, 2, many(sparse_set));
    bomb_case!(hash_map_1, 1, many(hash_map));
    bomb_case!(hash_map_2, 2, many(hash_map));
}
