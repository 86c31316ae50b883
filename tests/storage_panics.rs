//! Components whose `drop` panics, in every storage kind: removed from every
//! entity at once (`remove_from_all`), replaced in bulk (`add_to_all`), and
//! dropped with the context. Whatever drops panic (the first value, one in
//! the middle, the last, several), every value is dropped exactly once, the
//! first panic reaches the caller, and the entities' bits agree with the
//! columns afterwards: reads, systems, packing ids and refilling a fixed
//! context all find exactly the values they should.

use ecs::storage::{Column, HashMapStorage, Storage};
use ecs::{Data, Entity, EntityId, EntityLimit, System};
use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

thread_local! {
    /// The number of each value dropped (`Bomb`'s), in drop order.
    static DROPPED: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// Drops of `TagBomb`, which has no number (zero-sized).
    static TAG_DROPS: Cell<usize> = const { Cell::new(0) };
    /// The ordinals (from 0, counted by `TAG_DROPS`) of the `TagBomb` drops
    /// that panic.
    static TAG_ARMED: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    /// Drops of `Tally`, a plain component beside the bombs.
    static TALLIES: Cell<usize> = const { Cell::new(0) };
}

/// Records its number when dropped; panics then if armed.
#[derive(Debug)]
pub struct Bomb {
    pub n: u32,
    pub armed: bool,
}

impl Drop for Bomb {
    fn drop(&mut self) {
        DROPPED.with(|d| d.borrow_mut().push(self.n));
        if self.armed {
            panic!("bomb {}", self.n);
        }
    }
}

/// A zero-sized bomb for the `tag` storage: the drops whose ordinal is armed
/// panic.
#[derive(Debug)]
pub struct TagBomb;

impl Drop for TagBomb {
    fn drop(&mut self) {
        let k = TAG_DROPS.with(|c| {
            c.set(c.get() + 1);
            c.get() - 1
        });
        if TAG_ARMED.with(|a| a.borrow().contains(&k)) {
            panic!("tag drop {k}");
        }
    }
}

/// Counts its drops.
#[derive(Debug)]
pub struct Tally(pub u32);

impl Drop for Tally {
    fn drop(&mut self) {
        TALLIES.with(|c| c.set(c.get() + 1));
    }
}

fn reset() {
    DROPPED.with(|d| d.borrow_mut().clear());
    TAG_DROPS.with(|c| c.set(0));
    TAG_ARMED.with(|a| a.borrow_mut().clear());
    TALLIES.with(|c| c.set(0));
}

fn dropped() -> Vec<u32> {
    let mut d = DROPPED.with(|d| d.borrow().clone());
    d.sort_unstable();
    d
}

fn tallies() -> usize {
    TALLIES.with(Cell::get)
}

fn tag_drops() -> usize {
    TAG_DROPS.with(Cell::get)
}

/// The message of a caught panic.
fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(payload) => payload.downcast::<&str>().map(|s| s.to_string()).unwrap_or_default(),
    }
}

/// A custom storage that keeps the `Column` defaults of `remove_range` and
/// `relocate` (the built-in hash map's other methods).
pub struct Plain(HashMapStorage<Bomb>);

impl Storage for Plain {
    fn new(limit: EntityLimit) -> Self {
        Plain(HashMapStorage::new(limit))
    }
}

// SAFETY: every method is the wrapped storage's, which keeps the contract;
// the defaults are written in terms of them.
unsafe impl Column for Plain {
    type Item = Bomb;
    fn insert(&mut self, id: EntityId, value: Bomb) -> Option<Bomb> {
        self.0.insert(id, value)
    }
    fn remove(&mut self, id: EntityId) -> Option<Bomb> {
        self.0.remove(id)
    }
    fn contains(&self, id: EntityId) -> bool {
        self.0.contains(id)
    }
    fn get(&self, id: EntityId) -> Option<&Bomb> {
        self.0.get(id)
    }
    fn get_mut(&mut self, id: EntityId) -> Option<&mut Bomb> {
        self.0.get_mut(id)
    }
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<Bomb>> {
        self.0.get_ptr(id)
    }
    type Fetch = <HashMapStorage<Bomb> as Column>::Fetch;
    fn fetch_state(&self) -> Self::Fetch {
        self.0.fetch_state()
    }
    unsafe fn fetch(state: Self::Fetch, id: EntityId) -> NonNull<Bomb> {
        // SAFETY: the caller's guarantees are the wrapped storage's.
        unsafe { HashMapStorage::fetch(state, id) }
    }
}

#[derive(Default)]
pub struct Seer;

/// The positions armed in each case: first, middle, last, several (under
/// Miri, which is slow, only the last case: it has all the others).
const N: u32 = 12;
/// The contexts' fixed limit.
const LIMIT: usize = 64;
const CASES: &[&[u32]] = if cfg!(miri) {
    &[&[0, 4, 5, N - 1]]
} else {
    &[&[0], &[5], &[N - 1], &[0, 4, 5, N - 1]]
};

/// One storage kind under test: a context named `Ctx` whose component
/// `Bomb` (or `TagBomb` for tags) lives in that storage, beside a `Tally`.
macro_rules! kind {
    ($name:ident, bomb: $B:ident, { $($components:tt)* }) => {
        mod $name {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: fixed(64), threads: 1 }
                    components { $($components)* }
                    systems { seer: Seer { read: [$B, Tally], output: Vec<u32> } }
                }
            }

            impl System<Ctx> for Seer {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    for &id in data.entities() {
                        assert!(data.has::<$B>(id), "a system iterates only holders");
                        let n = data.get::<Tally>(id).map_or(u32::MAX, |t| t.0);
                        data.output().push(n);
                    }
                }
            }

            fn make(n: u32, armed: bool) -> $B {
                make_bomb!($B, n, armed)
            }

            /// `N` entities holding `Tally(i)` and a bomb numbered `i`, armed
            /// at `armed`; `extra` more with a `Tally` alone.
            fn world(armed: &[u32], extra: u32) -> (Ctx, Vec<Entity>) {
                reset();
                let mut ctx = Ctx::new();
                let es = ctx.step(|p| {
                    let mut es: Vec<Entity> = (0..N)
                        .map(|i| p.spawn((Tally(i), make(i, armed.contains(&i)))).unwrap())
                        .collect();
                    es.extend((N..N + extra).map(|i| p.spawn((Tally(i),)).unwrap()));
                    es
                });
                ctx.step(|p| p.run_all(&()));
                (ctx, es)
            }

            /// What the system saw in its last run, sorted.
            fn seen(ctx: &mut Ctx) -> Vec<u32> {
                ctx.step(|p| {
                    p.run_all(&());
                    let mut seen: Vec<u32> = p.outputs::<Seer>().concat();
                    seen.sort_unstable();
                    seen
                })
            }

            /// No entity holds the bomb, by any account.
            fn check_none_hold(ctx: &mut Ctx, es: &[Entity]) {
                ctx.step(|p| {
                    for &e in es {
                        assert!(!p.has::<$B>(e) && p.get::<$B>(e).is_none());
                    }
                });
                assert_eq!(seen(ctx), Vec::<u32>::new());
                assert!(ctx.subscribers::<Seer>().is_empty());
            }

            /// Kills some entities (packing ids), gives a disarmed bomb back
            /// to some, and checks each reads its own value and nothing else.
            fn check_packing_and_refill(mut ctx: Ctx, es: &[Entity]) {
                let killed = [0usize, 3, 7];
                ctx.step(|p| {
                    for &k in &killed {
                        assert!(p.kill(es[k]));
                    }
                });
                let live: Vec<usize> = (0..es.len()).filter(|k| !killed.contains(k)).collect();
                let given: Vec<usize> = live.iter().copied().filter(|k| k % 2 == 0).collect();
                ctx.step(|p| {
                    for &k in &given {
                        assert!(p.add(es[k], make(100 + k as u32, false)).unwrap().is_none());
                    }
                });
                ctx.step(|p| {
                    for &k in &live {
                        assert_eq!(p.get::<Tally>(es[k]).map(|t| t.0), Some(k as u32));
                        assert_eq!(p.has::<$B>(es[k]), given.contains(&k), "entity {k}");
                        if let Some(b) = p.get::<$B>(es[k]) {
                            check_number!($B, b, 100 + k as u32);
                        }
                    }
                });
                let want: Vec<u32> = given.iter().map(|&k| k as u32).collect();
                assert_eq!(seen(&mut ctx), want, "the system sees exactly the holders");
                // Refilled to the limit: every slot and id is usable.
                let room = LIMIT - live.len();
                ctx.step(|p| {
                    for i in 0..room {
                        p.spawn((Tally(1000 + i as u32), make(1000 + i as u32, false))).unwrap();
                    }
                    assert!(p.create().is_err(), "full at the limit");
                });
                assert_eq!(seen(&mut ctx).len(), given.len() + room);
                reset_counts_only();
                drop(ctx);
                assert_eq!(tallies(), LIMIT, "the context drops every value");
                assert_eq!(bomb_drops!($B), given.len() + room);
            }

            #[test]
            fn remove_from_all_drops_every_value_once_whatever_panics() {
                for armed in CASES {
                    let (mut ctx, es) = world(armed, 0);
                    arm_tags!($B, armed);
                    let r = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.remove_from_all::<$B>())));
                    let msg = message(r.expect_err("a drop panicked"));
                    assert!(first_message!($B, armed).contains(&msg), "{msg} for {armed:?}");
                    assert_eq!(bomb_drops!($B), N as usize, "each value once, for {armed:?}");
                    check_dropped_once!($B);
                    check_none_hold(&mut ctx, &es);
                    disarm_tags();
                    check_packing_and_refill(ctx, &es);
                }
            }

            #[test]
            fn remove_from_all_of_a_few_entities_drops_every_value_once() {
                // 12 holders among 52: removed entity by entity.
                for armed in CASES {
                    let (mut ctx, es) = world(armed, 40);
                    arm_tags!($B, armed);
                    let r = catch_unwind(AssertUnwindSafe(|| ctx.step(|p| p.remove_from_all::<$B>())));
                    assert!(r.is_err());
                    assert_eq!(bomb_drops!($B), N as usize, "each value once, for {armed:?}");
                    check_dropped_once!($B);
                    check_none_hold(&mut ctx, &es);
                    disarm_tags();
                    check_packing_and_refill(ctx, &es);
                }
            }

            #[test]
            fn killing_every_holder_drops_every_value_once_whatever_panics() {
                // Reclamation removes each killed entity's values one by one
                // (`Column::discard`, through the declaration's dispatch by
                // component index), in kill order.
                for armed in CASES {
                    let (mut ctx, es) = world(armed, 0);
                    arm_tags!($B, armed);
                    let r = catch_unwind(AssertUnwindSafe(|| {
                        ctx.step(|p| {
                            for &e in &es {
                                assert!(p.kill(e));
                            }
                        })
                    }));
                    let msg = message(r.expect_err("a drop panicked"));
                    assert!(first_message!($B, armed).contains(&msg), "{msg} for {armed:?}");
                    assert_eq!(bomb_drops!($B), N as usize, "each value once, for {armed:?}");
                    check_dropped_once!($B);
                    assert_eq!(tallies(), N as usize, "every other value too, for {armed:?}");
                    disarm_tags();
                    reset_counts_only();
                    assert_eq!(ctx.len(), 0);
                    assert_eq!(seen(&mut ctx), Vec::<u32>::new());
                    // Refilled to the limit: every id holds only its new values.
                    let refill = ctx.step(|p| {
                        (0..LIMIT as u32).map(|i| p.spawn((Tally(i), make(i, false))).unwrap()).collect::<Vec<_>>()
                    });
                    ctx.step(|p| {
                        for (i, &e) in refill.iter().enumerate() {
                            assert_eq!(p.get::<Tally>(e).map(|t| t.0), Some(i as u32));
                            check_number!($B, p.get::<$B>(e).expect("its own value"), i as u32);
                        }
                    });
                    assert_eq!(seen(&mut ctx), (0..LIMIT as u32).collect::<Vec<_>>());
                    drop(ctx);
                    assert_eq!(bomb_drops!($B), LIMIT, "the context drops the new values");
                    assert_eq!(tallies(), LIMIT);
                }
            }

            #[test]
            fn add_to_all_replacing_values_whose_drop_panics_gives_every_entity_its_value() {
                for armed in CASES {
                    let (mut ctx, es) = world(armed, 0);
                    arm_tags!($B, armed);
                    let r = catch_unwind(AssertUnwindSafe(|| {
                        ctx.step(|p| p.add_to_all::<(Tally,), $B>(|id| make(200 + id.to_bits(), false)))
                    }));
                    assert!(r.is_err(), "a replaced value's drop panicked");
                    assert_eq!(bomb_drops!($B), N as usize, "every old value once, for {armed:?}");
                    check_dropped_once!($B);
                    disarm_tags();
                    // Every entity holds its new value, and the system sees all.
                    ctx.step(|p| {
                        for &e in &es {
                            let b = p.get::<$B>(e).expect("every entity got its new value");
                            check_number!($B, b, 200 + p.id_of(e).unwrap().to_bits());
                        }
                    });
                    assert_eq!(seen(&mut ctx), (0..N).collect::<Vec<_>>());
                    reset_counts_only();
                    drop(ctx);
                    assert_eq!(bomb_drops!($B), N as usize);
                }
            }

            #[test]
            fn dropping_the_context_drops_every_value_once_whatever_panics() {
                for armed in CASES {
                    let (ctx, _) = world(armed, 0);
                    arm_tags!($B, armed);
                    let r = catch_unwind(AssertUnwindSafe(move || drop(ctx)));
                    let msg = message(r.expect_err("a drop panicked"));
                    assert!(first_message!($B, armed).contains(&msg), "{msg} for {armed:?}");
                    assert_eq!(bomb_drops!($B), N as usize, "each bomb once, for {armed:?}");
                    check_dropped_once!($B);
                    assert_eq!(tallies(), N as usize, "every other value too, for {armed:?}");
                }
            }

            #[test]
            fn a_context_dropped_while_unwinding_drops_every_value_without_aborting() {
                for armed in CASES {
                    let (ctx, _) = world(armed, 0);
                    arm_tags!($B, armed);
                    let r = catch_unwind(AssertUnwindSafe(move || {
                        let _ctx = ctx;
                        panic!("the caller's panic");
                    }));
                    // The panic under way is the one that arrives; the drops'
                    // panics are not raised again (that would abort).
                    assert_eq!(message(r.expect_err("it panicked")), "the caller's panic");
                    assert_eq!(bomb_drops!($B), N as usize, "each bomb once, for {armed:?}");
                    check_dropped_once!($B);
                    assert_eq!(tallies(), N as usize, "every other value too, for {armed:?}");
                }
            }
        }
    };
}

/// A bomb of type `$B` numbered `$n`.
macro_rules! make_bomb {
    (TagBomb, $n:expr, $armed:expr) => {{
        let _ = ($n, $armed);
        TagBomb
    }};
    (Bomb, $n:expr, $armed:expr) => {
        Bomb { n: $n, armed: $armed }
    };
}

macro_rules! check_number {
    (TagBomb, $b:expr, $n:expr) => {{
        let _ = ($b, $n);
    }};
    (Bomb, $b:expr, $n:expr) => {
        assert_eq!($b.n, $n, "an entity reads its own value")
    };
}

/// How many bombs were dropped.
macro_rules! bomb_drops {
    (TagBomb) => {
        tag_drops()
    };
    (Bomb) => {
        DROPPED.with(|d| d.borrow().len())
    };
}

/// Each numbered bomb was dropped once (tags have no numbers: counted).
macro_rules! check_dropped_once {
    (TagBomb) => {};
    (Bomb) => {
        assert_eq!(dropped(), (0..N).collect::<Vec<_>>(), "each value dropped exactly once")
    };
}

/// Tags drop in id order: arming their ordinals arms the same positions.
macro_rules! arm_tags {
    (TagBomb, $armed:expr) => {
        TAG_ARMED.with(|a| *a.borrow_mut() = $armed.iter().map(|&k| k as usize).collect())
    };
    (Bomb, $armed:expr) => {{
        let _ = $armed;
    }};
}

/// The messages the first panic may have (the storage chooses its order).
macro_rules! first_message {
    (TagBomb, $armed:expr) => {
        $armed.iter().map(|k| format!("tag drop {k}")).collect::<Vec<_>>()
    };
    (Bomb, $armed:expr) => {
        $armed.iter().map(|k| format!("bomb {k}")).collect::<Vec<_>>()
    };
}

fn disarm_tags() {
    TAG_ARMED.with(|a| a.borrow_mut().clear());
}

/// Forgets the drops counted so far (the armed values are gone).
fn reset_counts_only() {
    DROPPED.with(|d| d.borrow_mut().clear());
    TAG_DROPS.with(|c| c.set(0));
    TALLIES.with(|c| c.set(0));
}

kind!(contiguous, bomb: Bomb, { Bomb: contiguous; Tally: contiguous; });
kind!(grouped, bomb: Bomb, { (Bomb, Tally): grouped; });
kind!(sparse_set, bomb: Bomb, { Bomb: sparse_set; Tally: contiguous; });
kind!(hash_map, bomb: Bomb, { Bomb: hash_map; Tally: contiguous; });
kind!(custom, bomb: Bomb, { Bomb: custom(Plain); Tally: contiguous; });
kind!(tag, bomb: TagBomb, { TagBomb: tag; Tally: contiguous; });
