//! `many` components: several instances per entity (seed 004's explosion
//! with smoke, rubble and sparks emitters), in every inner storage, fixed and
//! dynamic, with systems split across 2 threads: values, adding and removing
//! single instances (step proxy, in place in systems, deferred from
//! systems), matching as the first instance comes and the last goes, keys
//! that survive other instances' removal and the packing of ids, and drops
//! that panic.

use ecs::{Data, Entity, EntityId, InstanceKey, Many, System};
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

/// Every instance emits once; entities at a multiple of 3 with fewer than 3
/// emitters grow one in place (a system may push onto its own entity's set).
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
                    data.for_each::<(&mut Many<Emitter>, &Pos)>(|(set, pos)| {
                        for e in set.iter_mut() {
                            e.emitted += 1;
                        }
                        if pos.0 % 3 == 0 && set.len() < 3 {
                            set.push(em(100 + pos.0));
                        }
                    });
                }
            }

            impl System<Ctx> for Census {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    let mut n = (0, 0);
                    data.for_each::<&Many<Emitter>>(|set| {
                        assert!(!set.is_empty(), "a matched entity holds an instance");
                        n.0 += 1;
                        n.1 += set.len();
                    });
                    *data.output() = n;
                }
            }

            impl System<Ctx> for Sparks {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_entities::<(EntityId, &Pos, &Many<Emitter>)>(|view, (id, pos, set)| match pos.0 {
                        7 => view.add_instance_later(id, em(99)),
                        11 => view.remove_instance_later::<Emitter>(id, set.keys()[0]),
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
        }
    };
}

many_case!(contiguous_fixed, fixed(64), many);
many_case!(contiguous_dynamic, dynamic(2), many);
many_case!(sparse_set_fixed, fixed(64), many(sparse_set));
many_case!(sparse_set_dynamic, dynamic(2), many(sparse_set));
many_case!(hash_map_fixed, fixed(64), many(hash_map));
many_case!(hash_map_dynamic, dynamic(2), many(hash_map));

/// What every test context provides.
pub trait Case: ecs::traits::ContextDecl + ecs::traits::Dispatch<()> {}
impl<Cx: ecs::traits::ContextDecl + ecs::traits::Dispatch<()>> Case for Cx {}

/// A context of a test case.
pub trait Ctx<Cx: Case>: DerefMut<Target = ecs::Context<Cx>> {}
impl<Cx: Case, T: DerefMut<Target = ecs::Context<Cx>>> Ctx<Cx> for T {}

fn instances_from_the_step_proxy<Cx: Case>(mut ctx: impl Ctx<Cx>)
where
    Many<Emitter>: ecs::traits::Component<Cx>,
    Pos: ecs::traits::Component<Cx>,
{
    ctx.step(|p| {
        let e = p.spawn((Pos(1),)).unwrap();
        assert_eq!(p.instances::<Emitter>(e), []);
        let smoke = p.add_instance(e, em(1)).unwrap();
        let rubble = p.add_instance(e, em(2)).unwrap();
        let sparks = p.add_instance(e, em(3)).unwrap();
        assert_eq!(p.instances::<Emitter>(e), [em(1), em(2), em(3)]);
        let keys = p.get::<Many<Emitter>>(e).unwrap().keys().to_vec();
        assert_eq!(keys, [smoke, rubble, sparks]);

        // Removing one instance leaves the others' keys naming them.
        assert_eq!(p.remove_instance::<Emitter>(e, rubble), Some(em(2)));
        assert_eq!(p.remove_instance::<Emitter>(e, rubble), None, "removed already");
        p.instance_mut::<Emitter>(e, sparks).unwrap().emitted = 5;
        assert_eq!(p.instance(e, smoke), Some(&em(1)));
        assert_eq!(p.instance(e, sparks), Some(&Emitter { kind: 3, emitted: 5 }));
        assert_eq!(p.get::<Many<Emitter>>(e).unwrap().index_of(sparks), Some(1));

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
        let other = p.spawn((Many::from_vec(vec![em(5), em(6)]).unwrap(),)).unwrap();
        let foreign = p.get::<Many<Emitter>>(other).unwrap().keys()[1];
        assert_eq!(p.remove_instance::<Emitter>(e, foreign), None);
        assert_eq!(p.instance(other, foreign), Some(&em(6)));

        // Dead entities: an error value, nothing happens.
        assert!(p.kill(e));
        assert!(p.add_instance(e, em(7)).is_err());
        assert_eq!(p.remove_instance::<Emitter>(e, again), None);
        assert_eq!(p.instances::<Emitter>(e), []);
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
    Pos: ecs::traits::Component<Cx>,
    Census: ecs::traits::SystemOf<Cx, Output = (usize, usize)>,
{
    // 30 entities at positions 0..30, with 1 + i % 2 emitters each.
    let (es, keys): (Vec<Entity>, Vec<Vec<InstanceKey>>) = ctx.step(|p| {
        (0..30u32)
            .map(|i| {
                let set = Many::from_vec((0..1 + i % 2).map(|k| em(10 * i + k)).collect()).unwrap();
                let keys = set.keys().to_vec();
                (p.spawn((set, Pos(i))).unwrap(), keys)
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
            let set = p.get::<Many<Emitter>>(e).unwrap();
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
            assert_eq!(&set[..], &want[..], "entity {i}");
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
                by_key.insert(key, i);
            }
        }
        // Every key names one instance of one entity.
        assert_eq!(by_key.len(), survivors.iter().map(|&i| es[i].1.len()).sum::<usize>());
    };
    ctx.step(|p| check(p, 0));
    // Reclaimed slots come back without sets; the dead keys stay dead.
    ctx.step(|p| {
        for _ in 0..20 {
            let e = p.create().unwrap();
            assert_eq!(p.instances::<Emitter>(e), []);
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

/// Panicking drops of instances, on a `many` column: killing entities,
/// removing the component from every entity at once, and dropping the
/// context drop every instance exactly once, and the first panic reaches the
/// caller.
mod panicking_drops {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::Mutex;

    /// The numbers of the dropped bombs.
    static DROPPED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

    #[derive(Debug)]
    pub struct Bomb(pub u32);

    impl Drop for Bomb {
        fn drop(&mut self) {
            DROPPED.lock().unwrap_or_else(|e| e.into_inner()).push(self.0);
            if self.0 % 4 == 1 {
                panic!("bomb {}", self.0);
            }
        }
    }

    ecs::declare_context! {
        pub context Ctx {
            settings { entities: dynamic(4), threads: 2 }
            components { Bomb: many; Pos: contiguous; }
            systems {}
        }
    }

    fn dropped() -> Vec<u32> {
        let mut d = DROPPED.lock().unwrap_or_else(|e| e.into_inner()).clone();
        d.sort_unstable();
        d
    }

    #[test]
    fn every_instance_is_dropped_once() {
        let mut ctx = Ctx::new();
        // Entity i holds bombs 10i..10i+3.
        let es: Vec<Entity> = ctx.step(|p| {
            (0..12u32)
                .map(|i| {
                    let bombs = (0..3).map(|k| Bomb(10 * i + k)).collect();
                    p.spawn((Many::from_vec(bombs).unwrap(), Pos(i))).unwrap()
                })
                .collect()
        });
        let bombs = |i: u32| (0..3).map(move |k| 10 * i + k);
        // Killing entities 0..4: their sets are dropped at the refresh,
        // where 1, 11, 21 and 31 panic.
        let r = catch_unwind(AssertUnwindSafe(|| {
            ctx.step(|p| {
                for &e in &es[..4] {
                    p.kill(e);
                }
            })
        }));
        let payload = r.expect_err("drops panicked");
        assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some("bomb 1"));
        assert_eq!(dropped(), (0..4).flat_map(bombs).collect::<Vec<_>>());
        // The others were packed into the freed ids with their bombs.
        ctx.step(|p| {
            for (i, &e) in es.iter().enumerate().skip(4) {
                let nums: Vec<u32> = p.instances::<Bomb>(e).iter().map(|b| b.0).collect();
                assert_eq!(nums, bombs(i as u32).collect::<Vec<_>>(), "entity {i}");
            }
        });
        // Removing the component from every entity at once.
        let r = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.remove_from_all::<Many<Bomb>>())));
        assert!(r.is_err(), "41, 51, ... panicked");
        assert_eq!(
            dropped(),
            (0..12).flat_map(bombs).collect::<Vec<_>>(),
            "every bomb once"
        );
        ctx.step(|p| {
            for &e in &es[4..] {
                assert!(!p.has::<Many<Bomb>>(e));
                p.add_instance(e, Bomb(1000)).unwrap();
            }
        });
        // Dropping the context drops the rest once (1000 does not panic).
        drop(ctx);
        let d = dropped();
        assert_eq!(d.iter().filter(|&&n| n == 1000).count(), 8);
        assert_eq!(d.len(), 36 + 8);
    }
}
