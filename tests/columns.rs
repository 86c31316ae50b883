//! Column steps (`kind: columns`): values, holes, kills between and within
//! steps, fixed and dynamic contexts, 1 and 2 threads, split and whole,
//! ordering with entity systems, adapters. The `miri_` cases are small
//! enough for Miri (`.ci/miri` runs them).

use ecs::{ColumnSystem, Columns, Data, Entity, System};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position(pub f32, pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Velocity(pub f32, pub f32);
/// Owns heap memory: a slice of it must see every value initialised.
#[derive(Clone, Debug, PartialEq)]
pub struct Name(pub String);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass(pub f32);

/// Accelerates: an entity system, before the step.
#[derive(Default)]
pub struct Accelerate;
/// The column step: integrates positions; each subtask outputs the ids it
/// covered per run (lengths), so tests see the runs.
#[derive(Default)]
pub struct Integrate {
    pub runs: usize,
}
/// Appends to every name: a column step over values that own memory.
#[derive(Default)]
pub struct Rename;
/// Reads positions after the step: an entity system, summing them.
#[derive(Default)]
pub struct Sum;

macro_rules! context {
    ($module:ident, $($settings:tt)*) => {
        mod $module {
            use super::*;

            ecs::declare_context! {
                pub context World {
                    settings { $($settings)* }
                    components {
                        Position, Velocity, Name: contiguous;
                        Mass: sparse_set;
                    }
                    systems {
                        accelerate: Accelerate { read: [Mass], write: [Velocity] }
                        integrate: Integrate {
                            kind: columns,
                            read: [Velocity],
                            write: [Position],
                            after: [accelerate],
                            output: Vec<usize>,
                            parallelism: split_evenly_per_core,
                        }
                        rename: Rename { kind: columns, write: [Name], parallelism: split_every(3) }
                        sum: Sum { read: [Position], after: [integrate], output: f32 }
                    }
                }
            }

            impl System<World, f32> for Accelerate {
                fn process(&self, data: &mut Data<'_, World, Self>, _: &f32) {
                    data.for_each::<(&mut Velocity, &Mass)>(|(v, m)| v.0 += m.0);
                }
            }

            impl ColumnSystem<World, f32> for Integrate {
                fn process(&self, columns: &mut Columns<'_, World, Self>, dt: &f32) {
                    let mut lens = Vec::new();
                    columns.for_each_run::<(&mut Position, &Velocity)>(|(p, v)| {
                        assert_eq!(p.len(), v.len());
                        for (p, v) in p.iter_mut().zip(v) {
                            p.0 += v.0 * dt;
                            p.1 += v.1 * dt;
                        }
                        lens.push(p.len());
                    });
                    *columns.output() = lens;
                }

                fn after(&mut self, outputs: &mut [Vec<usize>], _: &f32) {
                    self.runs += outputs.iter().map(Vec::len).sum::<usize>();
                }
            }

            impl ColumnSystem<World, f32> for Rename {
                fn process(&self, columns: &mut Columns<'_, World, Self>, _: &f32) {
                    columns.for_each_run::<&mut Name>(|names| {
                        for n in names {
                            n.0.push('!');
                        }
                    });
                }
            }

            impl System<World, f32> for Sum {
                fn process(&self, data: &mut Data<'_, World, Self>, _: &f32) {
                    let mut s = 0.0;
                    data.for_each::<&Position>(|p| s += p.0);
                    *data.output() += s;
                }
            }

            pub fn world(threads: usize) -> World {
                World::with_threads(Default::default(), Some(threads))
            }
        }
    };
}

context!(fixed, entities: fixed(64));
context!(dynamic, entities: dynamic(2));

/// Every entity with both components moves by its velocity; the others do
/// not; each subtask's runs are the ones expected.
macro_rules! tests_for {
    ($module:ident, $tests:ident) => {
        mod $tests {
            use super::$module::*;
            use super::*;

            fn spawn_all(w: &mut World, n: usize) -> Vec<Entity> {
                w.step(|p| {
                    (0..n)
                        .map(|i| {
                            let f = i as f32;
                            p.spawn((Position(f, 0.0), Velocity(1.0, f), Name(format!("e{i}"))))
                                .unwrap()
                        })
                        .collect()
                })
            }

            fn positions(w: &mut World, es: &[Entity]) -> Vec<Option<Position>> {
                w.step(|p| es.iter().map(|&e| p.get::<Position>(e).copied()).collect())
            }

            #[test]
            fn values_one_run_one_and_two_threads() {
                for threads in [1, 2] {
                    let mut w = world(threads);
                    let es = spawn_all(&mut w, 40);
                    w.step(|p| p.run_all(&0.5));
                    w.step(|p| p.run_all(&0.5));
                    let want: Vec<_> = (0..40)
                        .map(|i| Some(Position(i as f32 + 1.0, i as f32)))
                        .collect();
                    assert_eq!(positions(&mut w, &es), want);
                    // One run, split in one part per thread.
                    let lens: Vec<_> = w.outputs::<Integrate>().to_vec();
                    if threads == 1 {
                        assert_eq!(lens, [vec![40]]);
                    } else {
                        assert_eq!(lens, [vec![20], vec![20]]);
                    }
                    // `sum` ran after the step: it saw the new positions.
                    let total: f32 = w.outputs::<Sum>().iter().sum();
                    assert_eq!(total, (0..40).map(|i| i as f32 + 1.0).sum::<f32>());
                    // `rename` (split every 3) touched every name once per run.
                    w.step(|p| {
                        for (i, &e) in es.iter().enumerate() {
                            assert_eq!(p.get::<Name>(e), Some(&Name(format!("e{i}!!"))));
                        }
                    });
                }
            }

            #[test]
            fn holes_end_runs() {
                for threads in [1, 2] {
                    let mut w = world(threads);
                    // Ids 0..10: 3 and 7 lack a velocity, 5 a position.
                    let es: Vec<Entity> = w.step(|p| {
                        (0..10)
                            .map(|i| {
                                let f = i as f32;
                                match i {
                                    3 | 7 => p.spawn((Position(f, 0.0),)).unwrap(),
                                    5 => p.spawn((Velocity(1.0, 1.0),)).unwrap(),
                                    _ => p.spawn((Position(f, 0.0), Velocity(1.0, 2.0))).unwrap(),
                                }
                            })
                            .collect()
                    });
                    w.step(|p| p.run_all(&1.0));
                    let got = positions(&mut w, &es);
                    for (i, pos) in got.into_iter().enumerate() {
                        let f = i as f32;
                        let want = match i {
                            3 | 7 => Some(Position(f, 0.0)),
                            5 => None,
                            _ => Some(Position(f + 1.0, 2.0)),
                        };
                        assert_eq!(pos, want, "entity {i}, {threads} threads");
                    }
                    let runs: Vec<Vec<usize>> = w.outputs::<Integrate>().to_vec();
                    if threads == 1 {
                        assert_eq!(runs, [vec![3, 1, 1, 2]]);
                    } else {
                        // Two parts of the ids: 0..5 and 5..10.
                        assert_eq!(runs, [vec![3, 1], vec![1, 2]]);
                    }
                    assert_eq!(w.system::<Integrate>().runs, 4);
                }
            }

            #[test]
            fn kills_between_and_within_steps() {
                for threads in [1, 2] {
                    let mut w = world(threads);
                    let es = spawn_all(&mut w, 12);
                    // Killed this step: skipped by the step run after the
                    // kill, although its values are still in the column.
                    w.step(|p| {
                        p.kill(es[4]);
                        p.kill(es[10]);
                        p.run_all(&1.0);
                    });
                    let runs = w.outputs::<Integrate>().concat();
                    assert_eq!(runs.iter().sum::<usize>(), 10, "{runs:?}");
                    let want = |i: usize, steps: f32| Some(Position(i as f32 + steps, i as f32 * steps));
                    let got = positions(&mut w, &es);
                    for (i, pos) in got.iter().enumerate() {
                        let expect = if i == 4 || i == 10 { None } else { want(i, 1.0) };
                        assert_eq!(*pos, expect, "entity {i}");
                    }
                    // Reclaimed: the highest ids moved into the holes, so
                    // the set is out of id order; every live entity still
                    // moves once per run.
                    w.step(|p| p.run_all(&1.0));
                    assert_eq!(w.outputs::<Integrate>().concat().iter().sum::<usize>(), 10);
                    let got = positions(&mut w, &es);
                    for (i, pos) in got.iter().enumerate() {
                        let expect = if i == 4 || i == 10 { None } else { want(i, 2.0) };
                        assert_eq!(*pos, expect, "entity {i}");
                    }
                    // Removing a velocity in the middle, then killing more.
                    w.step(|p| {
                        p.remove::<Velocity>(es[6]).unwrap();
                        p.kill(es[0]);
                    });
                    w.step(|p| p.run_all(&1.0));
                    assert_eq!(w.outputs::<Integrate>().concat().iter().sum::<usize>(), 8);
                    let got = positions(&mut w, &es);
                    for (i, pos) in got.iter().enumerate() {
                        let expect = match i {
                            0 | 4 | 10 => None,
                            6 => want(6, 2.0),
                            _ => want(i, 3.0),
                        };
                        assert_eq!(*pos, expect, "entity {i}");
                    }
                }
            }

            #[test]
            fn a_system_kill_waits_for_the_refresh() {
                // `data.kill` in a system is carried out at the refresh: a
                // step after it still covers the entity.
                let mut w = world(1);
                let es: Vec<Entity> = w.step(|p| {
                    (0..5)
                        .map(|_| {
                            p.spawn((Position(0.0, 0.0), Velocity(0.0, 0.0), Mass(0.0)))
                                .unwrap()
                        })
                        .collect()
                });
                w.step(|p| {
                    p.run_adapted(
                        &ecs::Adapters::new()
                            .system::<Accelerate>(|_, data| {
                                let first = data.entities()[0];
                                data.kill(first);
                            })
                            .columns::<Integrate>(|_, columns| {
                                let mut n = 0;
                                columns.for_each_run::<&Position>(|p| n += p.len());
                                *columns.output() = vec![n];
                            }),
                    );
                });
                assert_eq!(w.outputs::<Integrate>(), [vec![5]]);
                assert!(!w.is_alive(es[0]) && w.len() == 4);
            }

            #[test]
            fn accelerate_then_integrate_in_order() {
                let mut w = world(2);
                let e = w.step(|p| {
                    p.spawn((Position(0.0, 0.0), Velocity(0.0, 0.0), Mass(2.0)))
                        .unwrap()
                });
                w.step(|p| p.run_all(&1.0));
                w.step(|p| p.run_all(&1.0));
                // Velocity 2 then 4: the step ran after `accelerate` each time.
                w.step(|p| assert_eq!(p.get::<Position>(e), Some(&Position(6.0, 0.0))));
            }

            #[test]
            fn no_entities() {
                for threads in [1, 2] {
                    let mut w = world(threads);
                    w.step(|p| p.run_all(&1.0));
                    assert_eq!(w.outputs::<Integrate>(), [Vec::<usize>::new()]);
                }
            }
        }
    };
}

tests_for!(fixed, fixed_context);
tests_for!(dynamic, dynamic_context);

/// A panic inside a run reaches the caller; the context stays usable and
/// the step runs again.
#[test]
fn a_panicking_step_leaves_the_context_usable() {
    let mut w = dynamic::world(2);
    let e = w.step(|p| p.spawn((Position(0.0, 0.0), Velocity(1.0, 0.0))).unwrap());
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        w.step(|p| {
            p.run_adapted(&ecs::Adapters::new().columns::<Integrate>(|_, columns| {
                columns.for_each_run::<&mut Position>(|_| panic!("in a run"));
            }))
        })
    }));
    assert!(r.is_err());
    w.step(|p| p.run_all(&1.0));
    w.step(|p| assert_eq!(p.get::<Position>(e), Some(&Position(1.0, 0.0))));
}

/// Small enough for Miri: holes, a kill, reclamation (out-of-order set),
/// values owning memory, on one thread.
#[test]
fn miri_one_thread() {
    miri_case(1);
}

/// As `miri_one_thread`, with two subtasks writing disjoint slices on two
/// threads while `sum` waits.
#[test]
fn miri_two_threads() {
    miri_case(2);
}

fn miri_case(threads: usize) {
    use dynamic::*;
    let mut w = world(threads);
    let es: Vec<Entity> = w.step(|p| {
        (0..6)
            .map(|i| {
                let f = i as f32;
                if i == 2 {
                    p.spawn((Position(f, 0.0), Name(format!("n{i}")))).unwrap()
                } else {
                    p.spawn((Position(f, 0.0), Velocity(1.0, 0.0), Name(format!("n{i}"))))
                        .unwrap()
                }
            })
            .collect()
    });
    w.step(|p| {
        p.kill(es[1]);
        p.run_all(&1.0);
    });
    w.step(|p| p.run_all(&1.0));
    w.step(|p| {
        for (i, &e) in es.iter().enumerate() {
            let want = match i {
                1 => None,
                2 => Some(Position(2.0, 0.0)),
                _ => Some(Position(i as f32 + 2.0, 0.0)),
            };
            assert_eq!(p.get::<Position>(e).copied(), want, "entity {i}");
            if i != 1 {
                assert_eq!(p.get::<Name>(e), Some(&Name(format!("n{i}!!"))));
            }
        }
    });
}
