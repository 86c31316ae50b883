//! `entity_mut`: a live entity's handle resolved once, then components
//! added and removed through it, in every storage and both layouts. Each
//! case runs the same operations through `entity_mut` in one context and
//! through `add`/`remove` on the proxy in another, and compares every
//! result, what the entities hold, and what a system naming the toggled
//! component processes after each step.

use ecs::{Data, Entity, System};
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Clone, Debug, PartialEq)]
pub struct Val(pub Vec<u32>);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Other(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Mark;

/// A component whose drop panics while `.0` is true.
#[derive(Debug)]
pub struct Bomb(pub bool);
impl Drop for Bomb {
    fn drop(&mut self) {
        if self.0 {
            panic!("bomb");
        }
    }
}

#[derive(Default)]
pub struct Count;

macro_rules! case {
    ($test:ident, $layout:ident, { $($components:tt)* }) => {
        mod $test {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: dynamic(2), threads: 1, layout: $layout }
                    components { $($components)* Mark: tag; Bomb: contiguous; }
                    systems { count: Count { read: [Val, Other], output: Vec<u32> } }
                }
            }

            impl System<Ctx> for Count {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    let mut seen = Vec::new();
                    data.for_each::<(&Val, &Other)>(|(v, o)| seen.push(o.0 * 1000 + v.0[1]));
                    data.output().extend(seen);
                }
            }

            /// What every entity holds, by handle order.
            fn holdings(cx: &mut Ctx, es: &[Entity]) -> Vec<(bool, Option<Vec<u32>>, Option<u32>, bool)> {
                cx.step(|p| {
                    es.iter()
                        .map(|&e| {
                            (
                                p.is_alive(e),
                                p.get::<Val>(e).map(|v| v.0.clone()),
                                p.get::<Other>(e).map(|o| o.0),
                                p.has::<Mark>(e),
                            )
                        })
                        .collect()
                })
            }

            #[test]
            fn agrees_with_add_and_remove() {
                let (mut a, mut b) = (Ctx::new(), Ctx::new());
                let make = |cx: &mut Ctx| -> Vec<Entity> {
                    cx.step(|p| (0..12u32).map(|i| p.spawn((Other(i),)).unwrap()).collect())
                };
                let (ea, eb) = (make(&mut a), make(&mut b));
                for round in 0..6u32 {
                    // Kill one entity a round, from the second: its handle is
                    // stale for `entity_mut` and `add` alike.
                    let victim = (round * 5 % 12) as usize;
                    let ra: Vec<_> = a.step(|p| {
                        if round > 0 {
                            p.kill(ea[victim]);
                        }
                        ea.iter()
                            .enumerate()
                            .map(|(i, &e)| {
                                let Some(mut m) = p.entity_mut(e) else {
                                    return (None, None, false, false);
                                };
                                assert_eq!(m.entity(), e);
                                let toggled = m.remove::<Val>().map(|v| v.0);
                                if toggled.is_none() && (i as u32 + round) % 3 != 0 {
                                    assert_eq!(m.add(Val(vec![round, i as u32])), None);
                                }
                                let replaced = m.add(Other(i as u32 + round)).map(|o| o.0);
                                if m.remove::<Mark>().is_none() {
                                    m.add(Mark);
                                }
                                (toggled, replaced, m.has::<Val>(), m.has::<Mark>())
                            })
                            .collect()
                    });
                    let rb: Vec<_> = b.step(|p| {
                        if round > 0 {
                            p.kill(eb[victim]);
                        }
                        eb.iter()
                            .enumerate()
                            .map(|(i, &e)| {
                                if !p.is_alive(e) {
                                    assert!(p.remove::<Val>(e).is_none());
                                    assert!(p.add(e, Mark).is_err());
                                    return (None, None, false, false);
                                }
                                let toggled = p.remove::<Val>(e).map(|v| v.0);
                                if toggled.is_none() && (i as u32 + round) % 3 != 0 {
                                    assert_eq!(p.add(e, Val(vec![round, i as u32])), Ok(None));
                                }
                                let replaced = p.add(e, Other(i as u32 + round)).unwrap().map(|o| o.0);
                                if p.remove::<Mark>(e).is_none() {
                                    p.add(e, Mark).unwrap();
                                }
                                (toggled, replaced, p.has::<Val>(e), p.has::<Mark>(e))
                            })
                            .collect()
                    });
                    assert_eq!(ra, rb, "round {round}");
                    // Both ways of the toggle happen (from the second round on,
                    // some entities hold `Val` to lose).
                    assert!(ra.iter().any(|r| r.2), "round {round}");
                    assert_eq!(ra.iter().any(|r| r.0.is_some()), round > 0, "round {round}");
                    // The system names `Val` and `Other`: it sees the changes
                    // made through `entity_mut` at its next run.
                    let seen_a = a.step(|p| {
                        p.run_all(&());
                        let mut seen = p.outputs::<Count>().concat();
                        seen.sort_unstable();
                        seen
                    });
                    let seen_b = b.step(|p| {
                        p.run_all(&());
                        let mut seen = p.outputs::<Count>().concat();
                        seen.sort_unstable();
                        seen
                    });
                    assert_eq!(seen_a, seen_b, "round {round}");
                    let with_val = ra.iter().filter(|r| r.2).count();
                    assert_eq!(seen_a.len(), with_val, "round {round}");
                    assert_eq!(holdings(&mut a, &ea), holdings(&mut b, &eb), "round {round}");
                }
            }

            // `EntityMut` keeps the entity's set beside the table's: each
            // change through it must leave the two equal, the next test on
            // the same `EntityMut` and the table seen afterwards agreeing.
            #[test]
            fn changes_through_one_entity_mut_see_each_other() {
                let mut cx = Ctx::new();
                let e = cx.step(|p| p.spawn((Other(1),)).unwrap());
                cx.step(|p| {
                    let mut m = p.entity_mut(e).unwrap();
                    assert!(!m.has::<Val>() && m.has::<Other>());
                    assert_eq!(m.add(Val(vec![1])), None);
                    assert!(m.has::<Val>());
                    assert_eq!(m.add(Val(vec![2])).map(|v| v.0), Some(vec![1]));
                    assert_eq!(m.remove::<Val>().map(|v| v.0), Some(vec![2]));
                    assert!(!m.has::<Val>() && m.remove::<Val>().is_none());
                    assert_eq!(m.remove::<Other>(), Some(Other(1)));
                    assert_eq!(m.add(Val(vec![3])), None);
                    assert!(m.remove::<Other>().is_none() && m.add(Other(4)).is_none());
                    assert_eq!(p.get::<Val>(e).map(|v| v.0.clone()), Some(vec![3]));
                    assert_eq!(p.get::<Other>(e), Some(&Other(4)));
                    assert!(p.has::<Val>(e) && !p.has::<Mark>(e));
                });
                cx.step(|p| {
                    let mut m = p.entity_mut(e).unwrap();
                    assert!(m.has::<Val>() && m.has::<Other>() && !m.has::<Mark>());
                    assert_eq!(m.remove::<Val>().map(|v| v.0), Some(vec![3]));
                    assert!(!p.has::<Val>(e) && p.get::<Val>(e).is_none());
                });
            }

            // `Mark` and `Bomb` are named by no signature: an addition sets
            // the set's bit and bumps the table's version only when the
            // entity lacked the component (no branch on it there), which a
            // prepared query, cached by version, must see.
            #[test]
            fn an_unnamed_addition_is_seen_by_a_prepared_query() {
                let mut cx = Ctx::new();
                let (a, b) = cx.step(|p| (p.spawn((Other(1),)).unwrap(), p.spawn((Other(2),)).unwrap()));
                let mut marked = ::ecs::PreparedQuery::<Ctx, (&Other, &Mark)>::new();
                let seen = |cx: &mut Ctx, q: &mut ::ecs::PreparedQuery<Ctx, (&Other, &Mark)>| {
                    cx.step(|p| {
                        let mut v = Vec::new();
                        q.for_each(p, |(o, _)| v.push(o.0));
                        v.sort_unstable();
                        v
                    })
                };
                assert_eq!(seen(&mut cx, &mut marked), Vec::<u32>::new());
                cx.step(|p| assert_eq!(p.entity_mut(b).unwrap().add(Mark), None));
                assert_eq!(seen(&mut cx, &mut marked), vec![2]);
                // Held already: nothing changes, and the query agrees.
                cx.step(|p| assert_eq!(p.entity_mut(b).unwrap().add(Mark), Some(Mark)));
                assert_eq!(seen(&mut cx, &mut marked), vec![2]);
                cx.step(|p| {
                    let mut m = p.entity_mut(a).unwrap();
                    assert!(m.remove::<Mark>().is_none());
                    assert_eq!(m.add(Mark), None);
                    assert!(p.has::<Mark>(a));
                });
                assert_eq!(seen(&mut cx, &mut marked), vec![1, 2]);
                cx.step(|p| assert!(p.entity_mut(b).unwrap().remove::<Mark>().is_some()));
                assert_eq!(seen(&mut cx, &mut marked), vec![1]);
            }

            #[test]
            fn a_panicking_drop_leaves_the_entity_consistent() {
                let mut cx = Ctx::new();
                let e = cx.step(|p| p.spawn((Bomb(true), Other(1))).unwrap());
                let r = catch_unwind(AssertUnwindSafe(|| {
                    cx.step(|p| {
                        let mut m = p.entity_mut(e).unwrap();
                        // The old value is handed back, and dropped here.
                        drop(m.add(Bomb(false)));
                    })
                }));
                assert!(r.is_err());
                cx.step(|p| {
                    let mut m = p.entity_mut(e).unwrap();
                    assert!(m.has::<Bomb>());
                    let b = m.remove::<Bomb>().unwrap();
                    assert!(!b.0);
                    assert!(!m.has::<Bomb>() && m.remove::<Bomb>().is_none());
                    assert_eq!(m.add(Other(2)), Some(Other(1)));
                });
            }
        }
    };
}

case!(contiguous_archetypes, archetypes, { Val, Other: contiguous; });
case!(contiguous_ids, ids, { Val, Other: contiguous; });
case!(sparse_set_archetypes, archetypes, { Val: sparse_set; Other: contiguous; });
case!(hash_map_ids, ids, { Val: hash_map; Other: contiguous; });
case!(grouped_archetypes, archetypes, { (Val, Other): grouped; });
