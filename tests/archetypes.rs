//! `layout: archetypes`: after every refresh the entities of one component
//! set hold one run of ids, the systems' entities are in id order, and
//! every handle still reaches its own values, whatever the storage, the
//! limit (a full fixed context included), the thread count and the changes
//! (creations, components added and removed, kills) of the step.

use ecs::traits::ContextDecl;
use ecs::{Data, Entity, EntityId, EntityLimit, Layout, System};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Val(pub u32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Other(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Mark;
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Pad(pub u8);

/// `Val += Other` on every entity holding both.
#[derive(Default)]
pub struct Bump;
/// The ids of the entities holding `Mark`, as this subtask saw them.
#[derive(Default)]
pub struct Marked;

#[path = "support/plain.rs"]
mod plain;
use plain::Plain;
pub type PlainVal = Plain<Val>;

/// What the test knows of one entity: `Val`, `Other`, `Mark`.
type Shadow = (Option<u32>, Option<u32>, bool);

/// A deterministic pseudo-random sequence.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

macro_rules! layout_case {
    ($test:ident, $limit:expr, $threads:literal, { $($components:tt)* }) => {
        mod $test {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: $limit, threads: $threads, layout: archetypes }
                    components { $($components)* Mark: tag; }
                    systems {
                        bump: Bump { read: [Other], write: [Val], parallelism: split_every(7) }
                        marked: Marked { read: [Mark], output: Vec<EntityId>, parallelism: split_every(5) }
                    }
                }
            }

            impl System<Ctx> for Bump {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each::<(&mut Val, &Other)>(|(v, o)| v.0 += o.0);
                }
            }

            impl System<Ctx> for Marked {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    let ids: Vec<EntityId> = data.entities().to_vec();
                    data.output().extend(ids);
                }
            }

            #[test]
            fn runs_and_values_survive_every_change() {
                assert_eq!(Ctx::SETTINGS.layout, Layout::Archetypes);
                run::<Ctx>(Ctx::new(), 0x5eed);
            }

            #[test]
            fn a_full_fixed_context_sorts_in_place() {
                full::<Ctx>(Ctx::new());
            }
        }
    };
}

/// Random steps of creations, additions, removals and kills (at most 120
/// entities alive), checked after each.
fn run<Cx>(mut cx: impl core::ops::DerefMut<Target = ecs::Context<Cx>>, seed: u64)
where
    Cx: ContextDecl + ecs::traits::Dispatch<()>,
    Val: ecs::traits::Component<Cx>,
    Other: ecs::traits::Component<Cx>,
    Mark: ecs::traits::Component<Cx>,
    Marked: ecs::traits::SystemOf<Cx, Output = Vec<EntityId>>,
{
    let mut rng = Lcg(seed);
    let mut shadow: HashMap<Entity, Shadow> = HashMap::new();
    for step in 0..40 {
        cx.step(|p| {
            for _ in 0..rng.below(25) {
                if shadow.len() >= 120 {
                    break;
                }
                let (v, o, m) = (rng.below(2) == 0, rng.below(2) == 0, rng.below(3) == 0);
                let e = p.create().unwrap();
                let mut s: Shadow = (None, None, m);
                if v {
                    p.add(e, Val(step)).unwrap();
                    s.0 = Some(step);
                }
                if o {
                    p.add(e, Other(1 + step % 3)).unwrap();
                    s.1 = Some(1 + step % 3);
                }
                if m {
                    p.add(e, Mark).unwrap();
                }
                shadow.insert(e, s);
            }
            let handles: Vec<Entity> = shadow.keys().copied().collect();
            for &e in &handles {
                let s = shadow.get_mut(&e).unwrap();
                match rng.below(12) {
                    0 => {
                        assert!(p.kill(e));
                        shadow.remove(&e);
                    }
                    1 => {
                        assert_eq!(p.remove::<Val>(e).map(|v| v.0), s.0);
                        s.0 = None;
                    }
                    2 => {
                        p.add(e, Other(5)).unwrap();
                        s.1 = Some(5);
                    }
                    3 => {
                        assert_eq!(p.remove::<Mark>(e).is_some(), s.2);
                        s.2 = false;
                    }
                    4 => {
                        p.add(e, Mark).unwrap();
                        s.2 = true;
                    }
                    _ => {}
                }
            }
        });
        // The refresh sorted the ids: check, then run the systems on them.
        cx.step(|p| {
            check_layout(p, &shadow);
            p.run_all(&());
            for s in shadow.values_mut() {
                if let (Some(v), Some(o)) = (&mut s.0, s.1) {
                    *v += o;
                }
            }
            for (&e, s) in &shadow {
                assert_eq!(p.get::<Val>(e).map(|v| v.0), s.0, "Val of {e:?} after bump");
            }
            let mut marked: Vec<EntityId> = p.outputs::<Marked>().concat();
            let in_order = marked.windows(2).all(|w| w[0] < w[1]);
            assert!(in_order, "a system's entities walk the ids upwards: {marked:?}");
            marked.sort();
            let mut want: Vec<EntityId> = shadow
                .iter()
                .filter(|(_, s)| s.2)
                .map(|(&e, _)| p.id_of(e).unwrap())
                .collect();
            want.sort();
            assert_eq!(marked, want);
        });
    }
}

/// Every handle reaches its values, and each component set is one run of
/// ids.
fn check_layout<Cx>(p: &mut ecs::Step<'_, Cx>, shadow: &HashMap<Entity, Shadow>)
where
    Cx: ContextDecl,
    Val: ecs::traits::Component<Cx>,
    Other: ecs::traits::Component<Cx>,
    Mark: ecs::traits::Component<Cx>,
{
    assert_eq!(p.len(), shadow.len());
    let mut by_set: HashMap<Shadow, Vec<usize>> = HashMap::new();
    for (&e, s) in shadow {
        assert_eq!(p.get::<Val>(e).map(|v| v.0), s.0, "Val of {e:?}");
        assert_eq!(p.get::<Other>(e).map(|v| v.0), s.1, "Other of {e:?}");
        assert_eq!(p.get::<Mark>(e).is_some(), s.2, "Mark of {e:?}");
        let key = (s.0.map(|_| 0), s.1.map(|_| 0), s.2);
        by_set.entry(key).or_default().push(p.id_of(e).unwrap().index());
    }
    for (set, mut ids) in by_set {
        ids.sort();
        let run = ids.windows(2).all(|w| w[1] == w[0] + 1);
        assert!(run, "the entities of set {set:?} are not one run of ids: {ids:?}");
    }
}

/// A fixed context filled to its limit with two sets interleaved: sorting
/// needs no spare id.
fn full<Cx>(mut cx: impl core::ops::DerefMut<Target = ecs::Context<Cx>>)
where
    Cx: ContextDecl,
    Val: ecs::traits::Component<Cx>,
    Other: ecs::traits::Component<Cx>,
    Mark: ecs::traits::Component<Cx>,
{
    let EntityLimit::Fixed(limit) = Cx::SETTINGS.entities else {
        return;
    };
    let shadow: HashMap<Entity, Shadow> = cx.step(|p| {
        (0..limit as u32)
            .map(|i| {
                if i % 3 == 0 {
                    (p.spawn((Val(i), Other(1))).unwrap(), (Some(i), Some(1), false))
                } else {
                    (p.spawn((Other(i),)).unwrap(), (None, Some(i), false))
                }
            })
            .collect()
    });
    cx.step(|p| {
        assert!(p.create().is_err(), "the context is full");
        check_layout(p, &shadow);
    });
}

layout_case!(contiguous_fixed, fixed(200), 2, { Val, Other: contiguous; });
layout_case!(contiguous_dynamic, dynamic(4), 2, { Val, Other: contiguous; });
layout_case!(contiguous_one_thread, fixed(200), 1, { Val, Other: contiguous; });
layout_case!(grouped_fixed, fixed(200), 2, { (Val, Pad): grouped; Other: contiguous; });
layout_case!(grouped_dynamic, dynamic, 2, { (Val, Other): grouped; Pad: contiguous; });
layout_case!(sparse_set_fixed, fixed(200), 2, { Val: sparse_set; Other: contiguous; });
layout_case!(sparse_set_dynamic, dynamic, 2, { Val, Other: sparse_set; });
layout_case!(hash_map_dynamic, dynamic, 2, { Val: hash_map; Other: contiguous; });
layout_case!(hash_map_fixed, fixed(200), 2, { Val: hash_map; Other: sparse_set; });
layout_case!(custom_fixed, fixed(200), 2, { Val: custom(PlainVal); Other: contiguous; });
layout_case!(custom_dynamic, dynamic, 2, { Val: custom(PlainVal); Other: hash_map; });

/// Without the setting, ids stay in creation order: the same interleaved
/// entities are scattered, which is what the layout is for.
mod by_id {
    use super::*;

    ecs::declare_context! {
        pub context Ctx {
            components { Val, Other: contiguous; }
            systems {}
        }
    }

    #[test]
    fn ids_keep_creation_order() {
        assert_eq!(Ctx::SETTINGS.layout, Layout::Ids);
        let mut cx = Ctx::new();
        let evens: Vec<Entity> = cx.step(|p| {
            (0..10)
                .filter_map(|i| {
                    let e = p.spawn((Other(i),)).unwrap();
                    (i % 2 == 0).then(|| {
                        p.add(e, Val(i)).unwrap();
                        e
                    })
                })
                .collect()
        });
        cx.step(|p| {
            let ids: Vec<usize> = evens.iter().map(|&e| p.id_of(e).unwrap().index()).collect();
            assert_eq!(ids, [0, 2, 4, 6, 8]);
        });
    }
}

/// The components systems name order the sets first: the entities of a
/// system over one combination of them are one run of ids, whatever other
/// components they hold.
mod named_first {
    use super::*;

    /// Records the ids it processes.
    #[derive(Default)]
    pub struct Move;

    ecs::declare_context! {
        pub context Ctx {
            settings { entities: fixed(400), threads: 2, layout: archetypes }
            components { Other, Val, Mark, Pad: contiguous; }
            systems { movement: Move { read: [Val], write: [Other], output: Vec<EntityId>, parallelism: split_every(9) } }
        }
    }

    impl System<Ctx> for Move {
        fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
            data.for_each::<(&mut Other, &Val)>(|(o, v)| o.0 += v.0);
            let ids = data.entities().to_vec();
            data.output().extend(ids);
        }
    }

    #[test]
    fn a_systems_entities_are_one_run() {
        let mut cx = Ctx::new();
        let mut rng = Lcg(99);
        let movers: Vec<Entity> = cx.step(|p| {
            (0..300)
                .filter_map(|i| {
                    let e = p.spawn((Other(0),)).unwrap();
                    if rng.below(2) == 0 {
                        p.add(e, Mark).unwrap();
                    }
                    if rng.below(2) == 0 {
                        p.add(e, Pad(1)).unwrap();
                    }
                    (rng.below(7) == 0).then(|| {
                        p.add(e, Val(i)).unwrap();
                        e
                    })
                })
                .collect()
        });
        cx.step(|p| {
            p.run_all(&());
            let ids: Vec<EntityId> = p.outputs::<Move>().concat();
            assert_eq!(ids.len(), movers.len());
            let run = ids.windows(2).all(|w| w[1].index() == w[0].index() + 1);
            assert!(run, "the movers, of four sets, are one run: {ids:?}");
            for &e in &movers {
                assert_eq!(p.get::<Other>(e).copied(), p.get::<Val>(e).map(|v| Other(v.0)));
            }
        });
    }

    #[test]
    fn components_no_system_names_move_nothing() {
        let mut cx = Ctx::new();
        let all: Vec<Entity> = cx.step(|p| {
            (0..100)
                .map(|i| {
                    let e = p.spawn((Other(0), Mark)).unwrap();
                    if i % 3 == 0 {
                        p.add(e, Val(1)).unwrap();
                    }
                    e
                })
                .collect()
        });
        let ids = |cx: &mut Ctx| cx.step(|p| all.iter().map(|&e| p.id_of(e).unwrap()).collect::<Vec<_>>());
        let before = ids(&mut cx);
        // `Pad` and `Mark` are named by no system: the order stays.
        cx.step(|p| {
            for (i, &e) in all.iter().enumerate() {
                if i % 2 == 0 {
                    p.add(e, Pad(3)).unwrap();
                    p.remove::<Mark>(e).unwrap();
                }
            }
        });
        assert_eq!(ids(&mut cx), before);
        // `Val` is: the entities that gain it join the movers' run.
        cx.step(|p| {
            p.add(all[1], Val(2)).unwrap();
        });
        let after = ids(&mut cx);
        assert_ne!(after, before);
        cx.step(|p| {
            let mut movers: Vec<usize> = all
                .iter()
                .filter(|&&e| p.get::<Val>(e).is_some())
                .map(|&e| p.id_of(e).unwrap().index())
                .collect();
            movers.sort();
            assert_eq!(movers.len(), 35);
            assert!(movers.windows(2).all(|w| w[1] == w[0] + 1));
        });
    }
}

/// Events, panicking drops and `many` under `layout: archetypes`.
mod attacks {
    use super::*;
    use ecs::{Instances, RefreshEvents};
    use std::panic::{catch_unwind, AssertUnwindSafe};

    /// Panics when dropped with a true flag.
    #[derive(Debug)]
    pub struct Bomb(pub bool);

    impl Drop for Bomb {
        fn drop(&mut self) {
            if self.0 && !std::thread::panicking() {
                panic!("bomb");
            }
        }
    }

    #[derive(Debug, PartialEq)]
    pub struct Spark(pub u32);

    /// Reads `Val` and `Spark`s.
    #[derive(Default)]
    pub struct Sum;

    ecs::declare_context! {
        pub context Ctx {
            settings { entities: dynamic(2), threads: 2, layout: archetypes }
            components { Val, Other: contiguous; Bomb: sparse_set; Spark: many; }
            systems { sum: Sum { read: [Val, Spark], output: u32, parallelism: split_every(3) } }
        }
    }

    impl System<Ctx> for Sum {
        fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
            let mut total = 0;
            data.for_each::<(&Val, Instances<Spark>)>(|(v, sparks)| {
                total += v.0 * sparks.iter().map(|s| s.0).sum::<u32>()
            });
            *data.output() = total;
        }
    }

    #[test]
    fn events_name_the_right_handles_after_sorting() {
        let mut cx = Ctx::new();
        let mut joined = Vec::new();
        let spawned: Vec<Entity> = {
            let mut events = RefreshEvents::new().on_subscribe::<Sum>(|e| joined.push(e));
            cx.step_with(&mut events, |p| {
                (0..30)
                    .map(|i| {
                        let e = p.spawn((Other(i),)).unwrap();
                        if i % 4 == 1 {
                            p.add(e, Val(i)).unwrap();
                            p.add_instance(e, Spark(2)).unwrap();
                        }
                        e
                    })
                    .collect()
            })
        };
        let mut want: Vec<Entity> = spawned.iter().copied().skip(1).step_by(4).collect();
        joined.sort();
        want.sort();
        assert_eq!(joined, want);
        cx.step(|p| {
            p.run_all(&());
            let expected: u32 = want.iter().map(|&e| p.get::<Val>(e).unwrap().0 * 2).sum();
            assert_eq!(p.outputs::<Sum>().iter().sum::<u32>(), expected);
            for (i, &e) in spawned.iter().enumerate() {
                assert_eq!(p.get::<Other>(e), Some(&Other(i as u32)));
            }
        });
    }

    #[test]
    fn a_panicking_drop_at_reclamation_leaves_a_sortable_context() {
        let mut cx = Ctx::new();
        let all: Vec<Entity> = cx.step(|p| {
            (0..40)
                .map(|i| {
                    let e = p.spawn((Other(i),)).unwrap();
                    if i % 3 == 0 {
                        p.add(e, Val(1)).unwrap();
                        p.add_instance(e, Spark(i)).unwrap();
                    }
                    if i % 5 == 0 {
                        p.add(e, Bomb(true)).unwrap();
                    }
                    e
                })
                .collect()
        });
        // Kill the bombs (their drops panic at the refresh) and change sets
        // of others in the same step.
        let result = catch_unwind(AssertUnwindSafe(|| {
            cx.step(|p| {
                for (i, &e) in all.iter().enumerate() {
                    if i % 5 == 0 {
                        p.kill(e);
                    } else if i % 7 == 0 {
                        p.add(e, Val(2)).unwrap();
                        p.add_instance(e, Spark(1)).unwrap();
                    }
                }
            })
        }));
        assert!(result.is_err(), "a bomb went off");
        // The next refresh sorts what the interrupted one left.
        cx.step(|_| {});
        cx.step(|p| {
            let mut expected = 0;
            let mut movers = Vec::new();
            for (i, &e) in all.iter().enumerate() {
                if i % 5 == 0 {
                    assert!(!p.is_alive(e));
                    continue;
                }
                assert_eq!(p.get::<Other>(e), Some(&Other(i as u32)));
                if let (Some(v), Some(s)) = (p.get::<Val>(e), p.instances::<Spark>(e)) {
                    expected += v.0 * s.iter().map(|s| s.0).sum::<u32>();
                    movers.push(p.id_of(e).unwrap().index());
                }
            }
            movers.sort();
            assert!(movers.windows(2).all(|w| w[1] == w[0] + 1), "one run: {movers:?}");
            p.run_all(&());
            assert_eq!(p.outputs::<Sum>().iter().sum::<u32>(), expected);
        });
    }
}

/// A system over several sets that are not neighbours in the order walks
/// each set's run as one (in blocks of 8 where the columns allow), and
/// still reaches every entity once: `Bump`'s sets {Val, Other} and {Val,
/// Other, Mark} lie on either side of {Val, Mark}.
mod several_runs {
    use super::*;

    macro_rules! runs_case {
        ($test:ident, $storage:ident, $threads:literal, $parallelism:expr) => {
            mod $test {
                use super::*;

                ecs::declare_context! {
                    pub context Ctx {
                        settings { entities: dynamic(16), threads: $threads, layout: archetypes }
                        components { Val, Other: $storage; Mark: tag; }
                        systems {
                            bump: Bump { read: [Other], write: [Val], parallelism: $parallelism }
                            marked: Marked { read: [Mark], output: Vec<EntityId> }
                        }
                    }
                }

                impl System<Ctx> for Bump {
                    fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                        data.for_each::<(&mut Val, &Other)>(|(v, o)| v.0 += o.0);
                    }
                }

                impl System<Ctx> for Marked {
                    fn process(&self, _: &mut Data<'_, Ctx, Self>, _: &()) {}
                }

                #[test]
                fn each_run_walked_once() {
                    super::each_run_walked_once::<Ctx>(Ctx::new());
                }
            }
        };
    }

    runs_case!(contiguous_whole, contiguous, 1, none);
    runs_case!(contiguous_split, contiguous, 2, split_every(13));
    runs_case!(sparse_set_whole, sparse_set, 1, none);

    fn each_run_walked_once<Cx>(mut cx: impl core::ops::DerefMut<Target = ecs::Context<Cx>>)
    where
        Cx: ContextDecl + ecs::traits::Dispatch<()>,
        Val: ecs::traits::Component<Cx>,
        Other: ecs::traits::Component<Cx>,
        Mark: ecs::traits::Component<Cx>,
    {
        // Created interleaved: 37 of each set, `Other(k)` for the k-th.
        let (bumped, still): (Vec<(Entity, u32)>, Vec<Entity>) = cx.step(|p| {
            let mut bumped = Vec::new();
            let mut still = Vec::new();
            for k in 0..37u32 {
                bumped.push((p.spawn((Val(0), Other(k))).unwrap(), k));
                still.push(p.spawn((Val(0), Mark)).unwrap());
                bumped.push((p.spawn((Val(0), Other(100 + k), Mark)).unwrap(), 100 + k));
            }
            (bumped, still)
        });
        for round in 1..=2 {
            cx.step(|p| {
                let mut ids: Vec<usize> = bumped.iter().map(|&(e, _)| p.id_of(e).unwrap().index()).collect();
                ids.sort_unstable();
                let gaps = ids.windows(2).filter(|w| w[1] != w[0] + 1).count();
                assert_eq!(gaps, 1, "two runs: {ids:?}");
                p.run_all(&());
                for &(e, k) in &bumped {
                    assert_eq!(p.get::<Val>(e).map(|v| v.0), Some(round * k), "bumped once per run");
                }
                for &e in &still {
                    assert_eq!(p.get::<Val>(e).map(|v| v.0), Some(0));
                }
            });
        }
    }
}
