//! A component that no system names is not matched when it is added or
//! removed (its presence cannot change which systems process an entity):
//! systems still see exactly the entities holding what they name, fire
//! subscription events only for those changes, and queries over the
//! unnamed component see every change, in either layout and in the same
//! step as changes of named components.

use ecs::{Data, Entity, EntityId, PreparedQuery, RefreshEvents, System};
use std::cell::RefCell;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seen(pub u32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Filler(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Flag;

#[derive(Default)]
pub struct Watch;

/// Which systems name what: `Seen` by `watch`; `Filler` and `Flag` by none.
macro_rules! case {
    ($test:ident, $layout:ident) => {
        mod $test {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: dynamic(4), threads: 1, layout: $layout }
                    components { Seen, Filler: contiguous; Flag: tag; }
                    systems { watch: Watch { read: [Seen], output: Vec<u32> } }
                }
            }

            impl System<Ctx> for Watch {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_entities::<&Seen>(|view, s| view.output().push(s.0));
                }
            }

            #[test]
            fn systems_and_queries_follow_every_change() {
                run::<Ctx>(Ctx::new());
            }
        }
    };
}

case!(ids, ids);
case!(archetypes, archetypes);

/// Deterministic choices (xorshift), so that a failure repeats.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n)) as u32
    }
}

fn run<Cx>(mut ctx: impl std::ops::DerefMut<Target = ecs::Context<Cx>>)
where
    Cx: ecs::traits::ContextDecl + ecs::traits::Dispatch<()>,
    Seen: ecs::traits::Component<Cx>,
    Filler: ecs::traits::Component<Cx>,
    Flag: ecs::traits::Component<Cx>,
    Watch: ecs::traits::SystemOf<Cx, Output = Vec<u32>>,
{
    let es: Vec<Entity> = ctx.step(|p| {
        (0..60u32)
            .map(|i| {
                let e = p.spawn((Seen(i),)).unwrap();
                if i % 3 == 0 {
                    p.add(e, Filler(i)).unwrap();
                }
                e
            })
            .collect()
    });
    // What each entity holds, as the test expects it.
    let mut seen: Vec<bool> = vec![true; es.len()];
    let mut filler: Vec<bool> = (0..es.len()).map(|i| i % 3 == 0).collect();
    let mut flag = vec![false; es.len()];
    let mut fillers = PreparedQuery::<Cx, (EntityId, &'static Filler)>::new();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..40 {
        let subscribed = RefCell::new(0usize);
        let unsubscribed = RefCell::new(0usize);
        let mut events = RefreshEvents::<Cx>::new()
            .on_subscribe::<Watch>(|_| *subscribed.borrow_mut() += 1)
            .on_unsubscribe::<Watch>(|_| *unsubscribed.borrow_mut() += 1);
        let (mut gained, mut lost) = (0, 0);
        ctx.step_with(&mut events, |p| {
            for (i, &e) in es.iter().enumerate() {
                match rng.below(8) {
                    // Unnamed: no system's set may change.
                    0 | 1 => {
                        if filler[i] {
                            assert_eq!(p.remove::<Filler>(e), Some(Filler(i as u32)));
                        } else {
                            assert_eq!(p.add(e, Filler(i as u32)).unwrap(), None);
                        }
                        filler[i] = !filler[i];
                    }
                    2 => {
                        if flag[i] {
                            assert_eq!(p.remove::<Flag>(e), Some(Flag));
                        } else {
                            assert_eq!(p.add(e, Flag).unwrap(), None);
                        }
                        flag[i] = !flag[i];
                    }
                    // Named, in the same step: `watch`'s set changes.
                    3 => {
                        if seen[i] {
                            assert_eq!(p.remove::<Seen>(e), Some(Seen(i as u32)));
                            lost += 1;
                        } else {
                            assert_eq!(p.add(e, Seen(i as u32)).unwrap(), None);
                            gained += 1;
                        }
                        seen[i] = !seen[i];
                    }
                    _ => {}
                }
            }
            p.run_all(&());
            let mut watched = p.outputs::<Watch>()[0].clone();
            watched.sort_unstable();
            let want: Vec<u32> = (0..es.len() as u32).filter(|&i| seen[i as usize]).collect();
            assert_eq!(
                watched, want,
                "round {round}: `watch` processes exactly the holders of `Seen`"
            );
            // Queries over the unnamed components see the changes at once.
            let mut got = Vec::new();
            fillers.for_each(p, |(_, f)| got.push(f.0));
            got.sort_unstable();
            let want: Vec<u32> = (0..es.len() as u32).filter(|&i| filler[i as usize]).collect();
            assert_eq!(got, want, "round {round}: the prepared query over `Filler`");
            let flagged = p.query::<&Flag>().count();
            assert_eq!(flagged, flag.iter().filter(|&&f| f).count(), "round {round}: `Flag`");
        });
        drop(events);
        assert_eq!(
            (subscribed.into_inner(), unsubscribed.into_inner()),
            (gained, lost),
            "round {round}: events only for changes of `Seen`"
        );
    }
}
