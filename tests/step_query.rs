//! Queries on the step proxy and in deferred functions (`for_each`,
//! `query`, `query_mut`, `query_one`, `query_one_mut`), over every storage strategy under fixed and
//! dynamic limits: exactly the live entities holding the components, killed
//! entities skipped in the step that kills them, ids and handles that agree,
//! and changes that systems see afterwards.

use ecs::{Data, Entity, EntityId, System};
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq)]
pub struct Val(pub Vec<u32>);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Other(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Mark;

/// Pushes `Other` onto `Val`, and defers a query that doubles every `Other`.
#[derive(Default)]
pub struct Bump;

/// What entity `i` of the first wave holds: `Val` and `Other` and `Mark`,
/// `Val` and `Other`, or only `Other`.
fn kind(i: u32) -> u32 {
    i % 3
}

/// Whether entity `i` of the first wave is killed in the step that queries.
fn killed(i: u32) -> bool {
    i.is_multiple_of(5)
}

macro_rules! storage_case {
    ($test:ident, $limit:expr, { $($components:tt)* }) => {
        mod $test {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: $limit, threads: 2 }
                    components { $($components)* Mark: tag; }
                    systems { bump: Bump { read: [Other], write: [Val], parallelism: split_every(5) } }
                }
            }

            impl System<Ctx> for Bump {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each::<(&mut Val, &Other)>(|(v, o)| v.0.push(o.0));
                    if data.subtask_index() == 0 {
                        data.defer(|d| d.for_each::<&mut Other>(|o| o.0 *= 2));
                    }
                }
            }

            #[test]
            fn queries() {
                let mut ctx = Ctx::new();
                let first: Vec<Entity> = ctx.step(|p| {
                    (0..40)
                        .map(|i| match kind(i) {
                            0 => p.spawn((Val(vec![i]), Other(i), Mark)).unwrap(),
                            1 => p.spawn((Val(vec![i]), Other(i))).unwrap(),
                            _ => p.spawn((Other(i),)).unwrap(),
                        })
                        .collect()
                });
                // A second wave, one long run of `Other` (blocks of 8, and a
                // tail).
                let second: Vec<Entity> =
                    ctx.step(|p| (100..121).map(|i| p.spawn((Other(i),)).unwrap()).collect());
                let live_first = |pred: &dyn Fn(u32) -> bool| -> BTreeSet<Entity> {
                    (0..40).filter(|&i| !killed(i) && pred(i)).map(|i| first[i as usize]).collect()
                };

                ctx.step(|p| {
                    for i in (0..40).filter(|&i| killed(i)) {
                        assert!(p.kill(first[i as usize]));
                    }
                    // Killed this step: skipped, though their values stay
                    // until the refresh.
                    let mut seen = BTreeSet::new();
                    p.for_each::<(EntityId, &mut Val, &Other)>(|(id, v, o)| {
                        assert_eq!(v.0, [o.0], "the item's values are the entity's own");
                        v.0.push(1000 + o.0);
                        assert!(seen.insert(id), "id {id:?} visited twice");
                    });
                    let handles: BTreeSet<Entity> = seen.iter().map(|&id| p.handle(id).unwrap()).collect();
                    assert_eq!(handles, live_first(&|i| kind(i) != 2));

                    let marked: BTreeSet<Entity> = p.query::<(&Mark, &Val)>().map(|(e, _)| e).collect();
                    assert_eq!(marked, live_first(&|i| kind(i) == 0));

                    // Every live entity once, with its own id and handle.
                    let all: Vec<(Entity, EntityId)> = p.query::<EntityId>().collect();
                    assert_eq!(all.len(), p.len());
                    for &(e, id) in &all {
                        assert_eq!(p.id_of(e), Some(id));
                    }
                    let all: BTreeSet<Entity> = all.into_iter().map(|(e, _)| e).collect();
                    assert_eq!(all.len(), p.len(), "no entity twice");
                    assert!(second.iter().all(|e| all.contains(e)));

                    // In blocks (one written contiguous-or-not component, no
                    // id), across runs broken by kills and by the waves.
                    let mut count = 0;
                    p.for_each::<&mut Other>(|o| {
                        o.0 += 1;
                        count += 1;
                    });
                    assert_eq!(count, p.len());

                    // The iterator's items may be held together.
                    let mut items: Vec<(Entity, &mut Other)> = p.query_mut::<&mut Other>().collect();
                    for (_, o) in &mut items {
                        o.0 -= 1;
                    }
                    let (a, b) = (items.pop().unwrap(), items.pop().unwrap());
                    assert_ne!(a.0, b.0);

                    for i in 0..40 {
                        let e = first[i as usize];
                        let one = p.query_one::<(EntityId, &Val, &Other)>(e).map(|(_, v, o)| (v.clone(), *o));
                        if killed(i) || kind(i) == 2 {
                            assert_eq!(one, None, "entity {i}: dead or lacking `Val`");
                        } else {
                            assert_eq!(one, Some((Val(vec![i, 1000 + i]), Other(i))), "entity {i}");
                        }
                        let marked = p.query_one::<&Mark>(e).is_some();
                        assert_eq!(marked, !killed(i) && kind(i) == 0, "entity {i}");
                    }
                });

                // After the refresh ids are packed again; what the step wrote
                // is what the system reads, and what the system wrote is what
                // the next queries read (and the deferred query's doubling).
                ctx.step(|p| {
                    for (e, o) in p.query_mut::<&mut Other>() {
                        o.0 += 1;
                        let _ = e;
                    }
                    p.run_all(&());
                });
                ctx.step(|p| {
                    for i in (0..40).filter(|&i| !killed(i)) {
                        let e = first[i as usize];
                        assert_eq!(p.query_one::<&Other>(e), Some(&Other(2 * (i + 1))), "entity {i}");
                        let v = p.query_one_mut::<&mut Val>(e).map(|v| v.0.clone());
                        let want = (kind(i) != 2).then(|| vec![i, 1000 + i, i + 1]);
                        assert_eq!(v, want, "entity {i}");
                    }
                    let mut ids = Vec::new();
                    for (e, (id, o)) in p.query::<(EntityId, &Other)>() {
                        assert_eq!(p.get::<Other>(e), Some(o));
                        ids.push(id.index());
                    }
                    assert_eq!(ids, (0..p.len()).collect::<Vec<_>>(), "ids packed, in order");
                });
            }
        }
    };
}

storage_case!(contiguous_fixed, fixed(100), { Val, Other: contiguous; });
storage_case!(contiguous_dynamic, dynamic(4), { Val, Other: contiguous; });
storage_case!(grouped_fixed, fixed(100), { (Val, Other): grouped; });
storage_case!(grouped_dynamic, dynamic(4), { (Val, Other): grouped; });
storage_case!(sparse_set_fixed, fixed(100), { Val, Other: sparse_set; });
storage_case!(sparse_set_dynamic, dynamic(4), { Val, Other: sparse_set; });
storage_case!(hash_map_fixed, fixed(100), { Val, Other: hash_map; });
storage_case!(hash_map_dynamic, dynamic(4), { Val, Other: hash_map; });
storage_case!(mixed, dynamic, { Val: sparse_set; Other: contiguous; });

mod misc {
    use super::*;

    ecs::declare_context! {
        pub context Small {
            components { Other: contiguous; Mark: tag; }
            systems {}
        }
    }

    /// A panic in the closure of a blocked walk leaves every value where it
    /// was (the block moves its values back), and the context usable.
    #[test]
    fn a_panicking_closure_loses_no_value() {
        let mut ctx = Small::new();
        ctx.step(|p| {
            for i in 0..20 {
                p.spawn((Other(i),)).unwrap();
            }
        });
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ctx.step(|p| {
                p.for_each::<&mut Other>(|o| {
                    o.0 += 100;
                    if o.0 == 110 {
                        panic!("boom");
                    }
                })
            })
        }));
        assert!(caught.is_err());
        ctx.step(|p| {
            let values: Vec<u32> = p.query::<&Other>().map(|(_, o)| o.0).collect();
            let want: Vec<u32> = (0..20).map(|i| if i <= 10 { i + 100 } else { i }).collect();
            assert_eq!(values, want);
        });
    }

    /// Without kills, the runs of matching ids are found a chunk at a time:
    /// long runs, short ones, gaps of every length, a run at the end.
    #[test]
    fn runs_of_every_length() {
        let marked = |i: u32| match i {
            0..20 => true,
            20..40 => i.is_multiple_of(2),
            40..57 => false,
            57..75 => !i.is_multiple_of(5),
            _ => true,
        };
        let mut ctx = Small::new();
        ctx.step(|p| {
            for i in 0..90 {
                let e = p.spawn((Other(i),)).unwrap();
                if marked(i) {
                    p.add(e, Mark).unwrap();
                }
            }
        });
        ctx.step(|p| {
            let want: Vec<u32> = (0..90).filter(|&i| marked(i)).collect();
            let mut got = Vec::new();
            p.for_each::<(&mut Other, &Mark)>(|(o, _)| got.push(o.0));
            assert_eq!(got, want);
            let mut got = Vec::new();
            p.for_each::<(EntityId, &Other, &Mark)>(|(_, o, _)| got.push(o.0));
            assert_eq!(got, want);
            let got: Vec<u32> = p.query::<(&Other, &Mark)>().map(|(_, (o, _))| o.0).collect();
            assert_eq!(got, want);
        });
    }

    /// Queries with no component (`EntityId` alone, a tag alone) and an
    /// empty context.
    #[test]
    fn ids_and_tags() {
        let mut ctx = Small::new();
        ctx.step(|p| {
            assert_eq!(p.query::<EntityId>().count(), 0);
            let a = p.spawn((Other(1), Mark)).unwrap();
            let b = p.create().unwrap();
            let tagged: Vec<Entity> = p.query::<&Mark>().map(|(e, _)| e).collect();
            assert_eq!(tagged, [a]);
            let mut ids = Vec::new();
            p.for_each::<EntityId>(|id| ids.push(id));
            assert_eq!(ids.len(), 2);
            p.kill(b);
            assert_eq!(p.query::<EntityId>().map(|(e, _)| e).collect::<Vec<_>>(), [a]);
            assert!(p.query_one::<EntityId>(b).is_none());
        });
    }

    /// A deferred function queries with its `Defer` proxy.
    #[test]
    fn in_a_deferred_function() {
        #[derive(Default)]
        pub struct Later;
        ecs::declare_context! {
            pub context Deferring {
                components { Other: contiguous; }
                systems { later: Later { read: [Other] } }
            }
        }
        impl System<Deferring> for Later {
            fn process(&self, data: &mut Data<'_, Deferring, Self>, _: &()) {
                data.defer(|d| {
                    let e = d.spawn((Other(7),)).unwrap();
                    d.for_each::<&mut Other>(|o| o.0 += 1);
                    assert_eq!(d.query_one::<&Other>(e), Some(&Other(8)));
                });
            }
        }
        let mut ctx = Deferring::new();
        ctx.step(|p| {
            p.spawn((Other(1),)).unwrap();
            p.run_all(&());
        });
        ctx.step(|p| {
            let mut values: Vec<u32> = p.query::<&Other>().map(|(_, o)| o.0).collect();
            values.sort();
            assert_eq!(values, [2, 8]);
        });
    }
}
