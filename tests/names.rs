//! Named entities: a name is held by one live entity at a time, found in
//! O(1) from the step proxy and (read-only) from systems, and released when
//! its entity is reclaimed, in fixed and dynamic contexts, on one and two
//! threads, with split systems; naming a second entity with a live name is
//! an error value.

use ecs::{Data, Entity, NameError, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Val(pub u32);

/// A component whose `drop` panics while `BOOM` is set.
#[derive(Debug)]
pub struct Bomb;
static BOOM: AtomicBool = AtomicBool::new(false);
impl Drop for Bomb {
    fn drop(&mut self) {
        if BOOM.swap(false, Ordering::SeqCst) {
            panic!("bomb");
        }
    }
}

/// Reads the value of the entity named "target" from every subtask, and
/// kills the entity named "doomed".
#[derive(Default)]
pub struct Seek;

macro_rules! cases {
    ($name:ident, $($entities:tt)*) => {
        mod $name {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: $($entities)*, inner_parallelism: allow, threads: 2 }
                    components { Val: contiguous; Bomb: sparse_set; }
                    systems {
                        seek: Seek { read: [Val], parallelism: split_every(4), output: Vec<(usize, Option<u32>, Option<String>)> }
                    }
                }
            }

            impl System<Ctx> for Seek {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    let target = data.named("target");
                    let value = target.and_then(|id| data.get::<Val>(id)).map(|v| v.0);
                    let name = target.and_then(|id| data.name_of(id)).map(str::to_owned);
                    let subtask = data.subtask_index();
                    data.output().push((subtask, value, name));
                    if let Some(doomed) = data.named("doomed") {
                        data.kill(doomed);
                    }
                }
            }

            fn world(threads: usize) -> Ctx {
                Ctx::with_threads(CtxSystems { seek: Seek }, Some(threads))
            }

            #[test]
            fn a_live_name_is_taken_and_a_stale_handle_is_an_error() {
                let mut w = world(1);
                let (a, b) = w.step(|p| {
                    let a = p.spawn((Val(1),)).unwrap();
                    let b = p.spawn((Val(2),)).unwrap();
                    assert_eq!(p.set_name(a, "player"), Ok(()));
                    assert_eq!(p.set_name(b, "player"), Err(NameError::Taken(a)));
                    assert_eq!(p.named("player"), Some(a));
                    assert_eq!(p.name_of(b), None, "the failed call named nothing");
                    (a, b)
                });
                assert_eq!(w.named("player"), Some(a));
                w.step(|p| {
                    p.kill(a);
                    assert_eq!(p.named("player"), None, "a killed holder is not found");
                    assert_eq!(p.name_of(a), None);
                    assert_eq!(
                        p.set_name(b, "player"),
                        Err(NameError::Taken(a)),
                        "the name is held until the refresh reclaims its entity"
                    );
                    assert_eq!(p.set_name(a, "other"), Err(NameError::NoSuchEntity(a)));
                });
                w.step(|p| {
                    assert_eq!(p.set_name(a, "player"), Err(NameError::NoSuchEntity(a)), "stale handle");
                    assert_eq!(p.set_name(b, "player"), Ok(()), "released by the reclamation");
                    assert_eq!(p.named("player"), Some(b));
                    // `a`'s slot goes to a new entity, which does not inherit a name.
                    let c = p.spawn((Val(3),)).unwrap();
                    assert_eq!(c.slot(), a.slot());
                    assert_eq!(p.name_of(c), None);
                    assert_eq!(p.named("other"), None);
                });
            }

            #[test]
            fn renaming_and_unnaming_release_the_old_name() {
                let mut w = world(1);
                w.step(|p| {
                    let a = p.spawn((Val(1),)).unwrap();
                    let b = p.spawn((Val(2),)).unwrap();
                    p.set_name(a, "one").unwrap();
                    assert_eq!(p.set_name(a, "one"), Ok(()), "naming again with its own name");
                    p.set_name(a, "two").unwrap();
                    assert_eq!((p.named("one"), p.named("two")), (None, Some(a)));
                    assert_eq!(p.set_name(b, "one"), Ok(()));
                    assert_eq!(p.unname(a).as_deref(), Some("two"));
                    assert_eq!(p.unname(a), None);
                    assert_eq!(p.named("two"), None);
                    assert_eq!(p.name_of(b), Some("one"));
                    assert_eq!(p.named(""), None);
                });
            }

            /// Systems find a named entity by id in every subtask, also after
            /// reclamation moved it to another id; a system's kill releases
            /// the name at the refresh.
            fn systems_look_names_up(threads: usize) {
                let mut w = world(threads);
                let target = w.step(|p| {
                    let all: Vec<Entity> = p.spawn_batch((0..20).map(|i| (Val(i),))).unwrap().collect();
                    p.set_name(all[19], "target").unwrap();
                    p.set_name(all[3], "doomed").unwrap();
                    for &e in &all[..10] {
                        if e != all[3] {
                            p.kill(e);
                        }
                    }
                    all[19]
                });
                assert!(w.id_of(target).unwrap().index() < 10, "moved into a hole");
                let outputs = w.step(|p| {
                    p.run_all(&());
                    assert_eq!(p.named("doomed"), p.named("doomed"), "alive until the refresh");
                    assert!(p.named("doomed").is_some());
                    p.outputs::<Seek>().to_vec()
                });
                let subtasks = outputs.len();
                assert_eq!(subtasks, 3, "11 entities in subtasks of 4");
                for (k, out) in outputs.iter().enumerate() {
                    assert_eq!(out.as_slice(), [(k, Some(19), Some("target".to_owned()))]);
                }
                assert_eq!(w.named("doomed"), None, "killed by the system, reclaimed");
                w.step(|p| {
                    let e = p.spawn((Val(7),)).unwrap();
                    assert_eq!(p.set_name(e, "doomed"), Ok(()));
                    p.kill(e);
                    p.kill(target);
                    p.run_all(&());
                    let outputs = p.outputs::<Seek>();
                    assert!(outputs.iter().all(|o| o.iter().all(|&(_, v, _)| v.is_none())), "killed: not found");
                });
                assert_eq!((w.named("target"), w.named("doomed")), (None, None));
            }

            #[test]
            fn systems_look_names_up_on_one_thread() {
                systems_look_names_up(1);
            }

            #[test]
            fn systems_look_names_up_on_two_threads() {
                systems_look_names_up(2);
            }

            #[test]
            fn a_panicking_drop_still_releases_the_name() {
                let mut w = world(1);
                let e = w.step(|p| {
                    let e = p.spawn((Val(1), Bomb)).unwrap();
                    p.set_name(e, "bomb").unwrap();
                    e
                });
                BOOM.store(true, Ordering::SeqCst);
                let r = catch_unwind(AssertUnwindSafe(|| w.step(|p| p.kill(e))));
                assert!(r.is_err(), "the drop's panic reaches the caller");
                assert!(!w.is_alive(e));
                w.step(|p| {
                    let f = p.spawn((Val(2),)).unwrap();
                    assert_eq!(p.set_name(f, "bomb"), Ok(()), "reclaimed whole: the name is free");
                });
            }

            #[test]
            fn many_names_come_and_go() {
                let mut w = world(1);
                for round in 0..5u32 {
                    let es = w.step(|p| {
                        let es: Vec<Entity> = (0..30).map(|i| p.spawn((Val(i),)).unwrap()).collect();
                        for (i, &e) in es.iter().enumerate() {
                            p.set_name(e, &format!("e{i}")).unwrap();
                        }
                        es
                    });
                    w.step(|p| {
                        for (i, &e) in es.iter().enumerate() {
                            assert_eq!(p.named(&format!("e{i}")), Some(e), "round {round}");
                            assert_eq!(p.get::<Val>(e), Some(&Val(i as u32)));
                            if i % 2 == 0 {
                                p.kill(e);
                            }
                        }
                    });
                    w.step(|p| {
                        for (i, &e) in es.iter().enumerate() {
                            let name = format!("e{i}");
                            assert_eq!(p.named(&name), (i % 2 == 1).then_some(e));
                            p.kill(e);
                        }
                    });
                    assert_eq!(w.len(), 0);
                }
            }
        }
    };
}

cases!(fixed, fixed(64));
cases!(dynamic, dynamic(4));
