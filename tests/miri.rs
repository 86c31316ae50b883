//! Small cases for Miri that together reach every `unsafe` block of ecs-core
//! through a context: every storage strategy, fixed and dynamic limits, split
//! systems writing disjoint entities on 2 threads while another system reads,
//! random access by a single subtask, deferred operations, refresh, tags.
//! They also run under plain `cargo test`.

use ecs::{Data, EntityId, System};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct P(pub u32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct V(pub u32);
#[derive(Clone, Debug, PartialEq)]
pub struct S(pub String);
#[derive(Clone, Debug, PartialEq)]
pub struct H(pub Vec<u32>);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct G1(pub u8);
#[derive(Clone, Debug, PartialEq)]
pub struct G2(pub Box<u32>);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct T;

#[derive(Default)]
pub struct Integrate {
    /// Counted in `after`, on the thread that ran the system.
    pub runs: u32,
}
#[derive(Default)]
pub struct Reader;
#[derive(Default)]
pub struct Grouper;
#[derive(Default)]
pub struct Solver;
#[derive(Default)]
pub struct Tagger;

macro_rules! miri_context {
    ($module:ident, $($settings:tt)*) => {
        mod $module {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { $($settings)* }
                    components {
                        P, V: contiguous;
                        S: sparse_set;
                        H: hash_map;
                        (G1, G2): grouped;
                        T: tag;
                    }
                    systems {
                        integrate: Integrate { read: [V], write: [P], output: u32, parallelism: split_every(2) }
                        reader: Reader { read: [V, H], output: u32, parallelism: split_every(1) }
                        grouper: Grouper { read: [G1], write: [G2, S], parallelism: split_every(2) }
                        solver: Solver { read: [T], write: [P], after: [integrate] }
                        tagger: Tagger { read: [T, S], after: [grouper], parallelism: split_every(1) }
                    }
                }
            }

            impl System<Ctx> for Integrate {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    let mut moved = 0;
                    data.for_each::<(&mut P, &V)>(|(p, v)| {
                        p.0 += v.0;
                        moved += 1;
                    });
                    *data.output() = moved;
                }

                fn after(&mut self, _: &mut [u32], _: &()) {
                    self.runs += 1;
                }
            }
            impl System<Ctx> for Reader {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    let mut sum = 0;
                    data.for_each::<(&V, &H)>(|(v, h)| sum += v.0 + h.0.len() as u32);
                    data.for_other_entities::<&V>(|v| sum += v.0);
                    if let Some(&first) = data.all_entities().first() {
                        sum += data.get::<V>(first).map_or(0, |v| v.0);
                    }
                    *data.output() = sum;
                }
            }
            impl System<Ctx> for Grouper {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each::<(&G1, &mut G2, &mut S)>(|(g1, g2, s)| {
                        *g2.0 += u32::from(g1.0);
                        s.0.push('x');
                    });
                }
            }
            impl System<Ctx> for Solver {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    // An ancestor's outputs, written by its subtasks on other
                    // threads: the scheduler's order is what makes this read
                    // race-free, which Miri checks.
                    let moved: u32 = data.outputs::<Integrate>().iter().sum();
                    std::hint::black_box(moved);
                    assert!(data.system::<Integrate>().runs > 0, "integrate ran first");
                    let ids: Vec<EntityId> = data.entities().to_vec();
                    for pair in ids.windows(2) {
                        let a = *data.read::<P>(pair[0]).unwrap();
                        let b = *data.write::<P>(pair[1]).unwrap();
                        data.write::<P>(pair[0]).unwrap().0 = b.0;
                        data.write::<P>(pair[1]).unwrap().0 = a.0;
                        // And back, borrowing both at once.
                        let [x, y] = data.query_many::<&mut P, 2>([pair[0], pair[1]]).unwrap();
                        core::mem::swap(x, y);
                    }
                }
            }
            impl System<Ctx> for Tagger {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_entities::<(EntityId, &S, &T)>(|view, (id, s, _)| {
                        if s.0.len() > 3 {
                            view.kill(id);
                        } else {
                            let e = view.handle(id).unwrap();
                            view.defer(move |d| {
                                d.add(e, H(vec![1, 2])).unwrap();
                                d.remove::<T>(e);
                                let n = d.spawn((P(1), V(1), S("new".into()))).unwrap();
                                d.add(n, G1(3)).unwrap();
                            });
                        }
                    });
                }
            }

            #[test]
            fn every_unsafe_path() {
                let mut ctx = Ctx::new();
                let es = ctx.step(|p| {
                    (0..6u32)
                        .map(|i| {
                            let e = p.spawn((P(i), V(1), S(format!("{i}")), H(vec![i]))).unwrap();
                            p.add(e, G1(i as u8)).unwrap();
                            p.add(e, G2(Box::new(i))).unwrap();
                            if i % 2 == 0 {
                                p.add(e, T).unwrap();
                            }
                            e
                        })
                        .collect::<Vec<_>>()
                });
                for _ in 0..3 {
                    ctx.step(|p| p.run_all(&()));
                }
                ctx.step(|p| {
                    assert!(p.outputs::<Reader>().iter().sum::<u32>() > 0);
                    assert!(p.outputs::<Integrate>().iter().sum::<u32>() >= 6, "every first entity moved");
                    assert_eq!(p.remove::<G1>(es[1]), Some(G1(1)));
                    assert_eq!(p.get::<G2>(es[1]).map(|g| *g.0), Some(1 + 3));
                    p.kill(es[5]);
                    p.run_all(&());
                });
                assert!(!ctx.is_alive(es[5]));
                let _: &Reader = ctx.system::<Reader>();
                ctx.step(|p| {
                    let tagged = p.spawn((T,)).unwrap();
                    assert!(p.get_mut::<T>(tagged).is_some());
                });
                assert!(ctx.len() > 6, "deferred spawns happened");
            }

            #[test]
            fn spawn_batch_every_storage() {
                let mut ctx = Ctx::new();
                let bundle = |i: u32| (P(i), V(1), S(format!("{i}")), H(vec![i]), G1(i as u8), G2(Box::new(i)), T);
                let es: Vec<_> = ctx.step(|p| p.spawn_batch((0..6).map(bundle)).unwrap().collect());
                ctx.step(|p| {
                    p.kill(es[1]);
                    p.kill(es[4]);
                });
                // Freed ids one at a time, then a fresh run; then a batch
                // whose iterator panics after one fresh bundle.
                let again: Vec<_> = ctx.step(|p| p.spawn_batch((10..14).map(bundle)).unwrap().collect());
                let failing = (20..24).map(|i| if i == 21 { panic!("bundle {i}") } else { bundle(i) });
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    ctx.step(|p| p.spawn_batch(failing).map(|s| s.count()))
                }));
                assert!(r.is_err());
                assert_eq!(ctx.len(), 6 - 2 + 4, "no entity of the failed batch");
                let last: Vec<_> = ctx.step(|p| p.spawn_batch((30..32).map(|i| (P(i), S(format!("{i}"))))).unwrap().collect());
                // Of unknown length: collected, then stored a bundle at a
                // time (`spawn_collected`); then one whose iterator panics
                // after two bundles.
                let odd: Vec<_> = ctx.step(|p| p.spawn_batch((40..46).filter(|i| i % 2 == 1).map(bundle)).unwrap().collect());
                let failing = (50..54).filter(|_| true).map(|i| if i == 52 { panic!("bundle {i}") } else { bundle(i) });
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    ctx.step(|p| p.spawn_batch(failing).map(|s| s.count()))
                }));
                assert!(r.is_err());
                assert_eq!(ctx.len(), 6 - 2 + 4 + 2 + 3, "no entity of the failed batch");
                ctx.step(|p| assert_eq!(p.get::<H>(odd[2]).map(|h| h.0.clone()), Some(vec![45])));
                ctx.step(|p| p.run_all(&()));
                ctx.step(|p| {
                    for (k, &e) in again.iter().enumerate() {
                        let i = 10 + k as u32;
                        // `grouper` ran once: one 'x' and one addition each.
                        assert_eq!(p.get::<S>(e).map(|s| s.0.as_str()), Some(format!("{i}x").as_str()));
                        assert_eq!(p.get::<G2>(e).map(|g| *g.0), Some(i + i));
                    }
                    for &e in &last {
                        assert!(p.get::<H>(e).is_none() && p.get::<G2>(e).is_none() && !p.has::<T>(e));
                    }
                });
            }

            /// Steps without a run leave their changes for the next run to
            /// match: systems must then visit exactly the entities holding
            /// their components, whatever was removed, killed or moved in
            /// between (a stale set would read values that are gone).
            #[test]
            fn matching_waits_for_the_run() {
                let mut ctx = Ctx::new();
                let bundle = |i: u32| (P(i), V(1), S(format!("{i}")), H(vec![i]), G1(i as u8), G2(Box::new(i)));
                let es: Vec<_> = ctx.step(|p| p.spawn_batch((0..6).map(bundle)).unwrap().collect());
                ctx.step(|p| p.run_all(&()));
                ctx.step(|p| {
                    p.remove::<V>(es[0]);
                    p.remove::<H>(es[2]);
                    p.kill(es[3]);
                });
                ctx.step(|p| {
                    p.remove::<G1>(es[4]);
                    p.add(es[0], V(5)).unwrap();
                    p.remove::<V>(es[5]);
                });
                ctx.step(|p| {
                    p.kill(es[1]);
                    p.spawn(bundle(40)).unwrap();
                });
                ctx.step(|p| {
                    p.run_all(&());
                    // Holding P and V: entities 0 (V back), 2, 4 and the new one.
                    assert_eq!(p.outputs::<Integrate>().iter().sum::<u32>(), 4);
                    assert_eq!(p.get::<P>(es[0]), Some(&P(1 + 5)));
                    assert_eq!(p.get::<P>(es[5]), Some(&P(5 + 1)), "moved once, before losing V");
                });
            }
        }
    };
}

miri_context!(fixed_two_threads, entities: fixed(32), inner_parallelism: allow, threads: 2);
miri_context!(dynamic_one_thread, entities: dynamic(1), inner_parallelism: allow, threads: 1);

/// Regression: a helper that finished a step's last system still held a
/// reference to the step's graph (a `run_chain(&self)` argument) while the
/// caller of `step`, seeing every system finished, freed the graph: under
/// Tree Borrows, memory freed under a protected reference. The caller runs
/// the first root, `quick`, and the helper takes `slow` meanwhile and
/// finishes last.
mod graph_outlives_helpers {
    use ecs::{Data, System};

    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct A(pub u32);
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct B(pub u32);

    /// Adds 1 to `A`.
    #[derive(Default)]
    pub struct Quick;
    /// Adds 1 to `B`, the long way.
    #[derive(Default)]
    pub struct Slow;

    ecs::declare_context! {
        pub context Ctx {
            settings { entities: fixed(4), threads: 2 }
            components { A, B: contiguous; }
            systems {
                quick: Quick { write: [A] }
                slow: Slow { write: [B] }
            }
        }
    }

    impl System<Ctx> for Quick {
        fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
            data.for_each::<&mut A>(|a| a.0 += 1);
        }
    }

    impl System<Ctx> for Slow {
        fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
            data.for_each::<&mut B>(|b| {
                let mut x = b.0;
                for k in 0..200 {
                    x = std::hint::black_box(x.wrapping_add(k));
                }
                b.0 = x.wrapping_sub((0..200).sum::<u32>()) + 1;
            });
        }
    }

    #[test]
    fn two_threads_every_step_runs_every_system_once() {
        let mut ctx = Ctx::new();
        let e = ctx.step(|p| p.spawn((A(0), B(0))).unwrap());
        for _ in 0..12 {
            ctx.step(|p| p.run_all(&()));
        }
        ctx.step(|p| assert_eq!((p.get::<A>(e), p.get::<B>(e)), (Some(&A(12)), Some(&B(12)))));
    }
}

/// Resources under Miri: split systems reading one beside a system writing
/// another, and a writer ordered after them; the cells' shared and
/// exclusive borrows across threads (`ResourceCell`).
mod resources {
    use ecs::{Data, System};

    pub struct Value(pub u32);
    #[derive(Default)]
    pub struct Step(pub u32);
    #[derive(Default)]
    pub struct Total(pub u64);
    #[derive(Default)]
    pub struct Ticks(pub u32);

    #[derive(Default)]
    pub struct Grow;
    #[derive(Default)]
    pub struct Tick;
    #[derive(Default)]
    pub struct Sum;

    ecs::declare_context! {
        pub context Ctx {
            settings { entities: fixed(8) }
            components { Value: contiguous; }
            resources { Step, Total, Ticks }
            systems {
                grow: Grow { read: [Step], write: [Value], parallelism: split_every(2) }
                tick: Tick { read: [Step], write: [Ticks] }
                sum: Sum { read: [Value], write: [Total], after: [grow] }
            }
        }
    }

    impl System<Ctx> for Grow {
        fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
            let step = data.resource::<Step>().0;
            data.for_each::<&mut Value>(|v| v.0 += step);
        }
    }

    impl System<Ctx> for Tick {
        fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
            let step = data.resource::<Step>().0;
            data.resource_mut::<Ticks>().0 += step;
        }
    }

    impl System<Ctx> for Sum {
        fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
            let mut total = 0;
            data.for_each::<&Value>(|v| total += u64::from(v.0));
            data.resource_mut::<Total>().0 = total;
        }
    }

    fn run(threads: usize) {
        let mut ctx = Ctx::with_threads(CtxSystems::default(), Some(threads));
        ctx.resource_mut::<Step>().0 = 2;
        ctx.step(|p| p.spawn_batch((0..6).map(|i| (Value(i),))).map(drop))
            .unwrap();
        for _ in 0..3 {
            ctx.step(|p| p.run_all(&()));
        }
        // 0 + 1 + .. + 5 = 15, and 6 entities grown by 2 three times.
        assert_eq!(ctx.resource::<Total>().0, 15 + 6 * 6);
        assert_eq!(ctx.resource::<Ticks>().0, 6);
    }

    #[test]
    fn one_thread_resources() {
        run(1);
    }

    #[test]
    fn two_threads_resources() {
        run(2);
    }
}

/// `restore` replaces the context's entity table, held in a `ManuallyDrop`
/// (so that its drop is compiled once, in ecs-core): the old one must be
/// dropped, not leaked. Under Miri, whose leak check fails a test that
/// leaks, this fails if it is not; it also walks restore's unsafe paths
/// (the columns refilled) for every storage strategy.
mod restore {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    pub struct P(pub u32);
    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    pub struct S(pub String);
    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    pub struct H(pub Vec<u32>);
    #[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
    pub struct T;

    ecs::declare_context! {
        pub context Ctx {
            settings { entities: dynamic(2), serde: all }
            components { P: contiguous; S: sparse_set; H: hash_map; T: tag; }
        }
    }

    #[test]
    fn one_thread_restore_drops_the_old_table() {
        let mut saved = Ctx::new();
        let kept = saved.step(|p| p.spawn((P(1), S("s".into()), H(vec![1]), T)).unwrap());
        let json = serde_json::to_string(&saved.save()).unwrap();
        let mut cx = Ctx::new();
        let _ = cx.step(|p| {
            p.spawn_batch((0..5).map(|i| (P(i), S(i.to_string()), H(vec![i]), T)))
                .unwrap()
                .count()
        });
        let liveness = cx.step(|p| p.liveness());
        cx.restore(serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(cx.len(), 1);
        assert_eq!(cx.step(|p| p.get::<S>(kept).cloned()), Some(S("s".into())));
        drop(liveness);
    }
}
