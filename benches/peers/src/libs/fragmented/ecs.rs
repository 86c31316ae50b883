//! ecs: every component `contiguous`, one system (`read: [Vel], write:
//! [Pos]`) run by `run_all` on `threads: 1`, in two contexts that differ
//! only in `layout`; the churn toggles `F0` through the step proxy
//! (`remove`, else `add`) by handle, then runs the system in the same step.

/// A context of the workload with the given layout, and its `Frag` bench.
macro_rules! fragmented_context {
    ($layout:ident) => {
        use super::super::*;
        use ::ecs::{Data, Entity, System};
        use std::hint::black_box;

        /// Move: position += velocity.
        #[derive(Default)]
        pub struct Move;

        ::ecs::declare_context! {
            pub context Frags {
                settings { entities: fixed(100_000), threads: 1, layout: $layout }
                components { Pos, Vel, F0, F1, F2, F3, F4, F5: contiguous; }
                systems { movement: Move { read: [Vel], write: [Pos] } }
            }
        }

        impl System<Frags> for Move {
            fn process(&self, data: &mut Data<'_, Frags, Self>, _: &()) {
                data.for_each::<(&mut Pos, &Vel)>(|(p, v)| advance(p, v));
            }
        }

        pub struct Frag {
            cx: Frags,
            churned: Vec<(usize, Entity)>,
            churn: bool,
        }

        impl Frag {
            pub fn new(churn: bool) -> Self {
                let mut cx = Frags::new();
                let churned = cx.step(|p| {
                    let mut churned = Vec::new();
                    for i in 0..ENTITIES {
                        let s = spec(i);
                        let e = p.spawn((s.pos,)).expect("room");
                        if let Some(v) = s.vel {
                            p.add(e, v).expect("alive");
                        }
                        let f = |k| filler(i, k);
                        let m = s.fillers;
                        if m & 1 != 0 {
                            p.add(e, F0(f(0))).expect("alive");
                        }
                        if m & 2 != 0 {
                            p.add(e, F1(f(1))).expect("alive");
                        }
                        if m & 4 != 0 {
                            p.add(e, F2(f(2))).expect("alive");
                        }
                        if m & 8 != 0 {
                            p.add(e, F3(f(3))).expect("alive");
                        }
                        if m & 16 != 0 {
                            p.add(e, F4(f(4))).expect("alive");
                        }
                        if m & 32 != 0 {
                            p.add(e, F5(f(5))).expect("alive");
                        }
                        if is_churned(i) {
                            churned.push((i, e));
                        }
                    }
                    churned
                });
                Frag { cx, churned, churn }
            }

            fn iterate(&mut self) {
                let (churn, churned) = (self.churn, &self.churned);
                self.cx.step(|p| {
                    if churn {
                        for &(i, e) in churned {
                            let mut m = p.entity_mut(e).expect("alive");
                            if m.remove::<F0>().is_none() {
                                m.add(F0(filler(i, 0)));
                            }
                        }
                    }
                    p.run_all(&());
                });
            }
        }

        impl Bench for Frag {
            fn run(&mut self) {
                self.iterate();
                black_box(&self.cx);
            }

            fn check(&mut self) -> Check {
                self.iterate();
                self.cx.step(|p| {
                    let positions: Vec<Pos> = p.query::<&Pos>().map(|(_, p)| *p).collect();
                    let with_f0 = p.query::<&F0>().count();
                    check(self.churn, positions, with_f0)
                })
            }
        }
    };
}

/// `layout: archetypes`: each refresh sorts the ids by component set.
pub mod archetypes {
    fragmented_context!(archetypes);
}

/// `layout: ids`: creation order.
pub mod ids {
    fragmented_context!(ids);
}
