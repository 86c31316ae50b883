//! `spawn_n`: copies of one bundle in every storage, the handles it returns,
//! a full context (an error, nothing lost), and a `clone` that panics at
//! every point (no entity made, every value dropped once, the ids reusable).
//! The `miri_` cases are small enough for Miri (a few seconds each).

use ecs::{ContextFull, Entity};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::sync::Arc;

/// The values alive (made minus dropped), and the clones left before one
/// panics (`usize::MAX`: none does).
#[derive(Debug, Default)]
pub struct Ledger {
    alive: AtomicIsize,
    clones_left: AtomicUsize,
}

impl Ledger {
    fn new(clones_before_panic: usize) -> Arc<Self> {
        Arc::new(Self {
            alive: AtomicIsize::new(0),
            clones_left: AtomicUsize::new(clones_before_panic),
        })
    }

    fn alive(&self) -> isize {
        self.alive.load(Ordering::SeqCst)
    }
}

macro_rules! tracked {
    ($($name:ident),+) => {$(
        /// Counted in its ledger while alive; its `clone` panics when the
        /// ledger says so, its `drop` when `bomb` is set.
        #[derive(Debug)]
        pub struct $name {
            pub n: u32,
            pub bomb: bool,
            pub ledger: Arc<Ledger>,
        }
        impl $name {
            fn new(n: u32, bomb: bool, ledger: &Arc<Ledger>) -> Self {
                ledger.alive.fetch_add(1, Ordering::SeqCst);
                Self { n, bomb, ledger: ledger.clone() }
            }
        }
        impl Clone for $name {
            fn clone(&self) -> Self {
                let left = self.ledger.clones_left.load(Ordering::SeqCst);
                if left == 0 {
                    panic!("a component's clone fails");
                }
                self.ledger.clones_left.store(left.saturating_sub(1), Ordering::SeqCst);
                Self::new(self.n, self.bomb, &self.ledger)
            }
        }
        impl Drop for $name {
            fn drop(&mut self) {
                self.ledger.alive.fetch_sub(1, Ordering::SeqCst);
                if self.bomb {
                    panic!("a component's drop fails");
                }
            }
        }
    )+};
}
tracked!(InSlot, InSparse, InMap);

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position(pub u32);

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marker;

ecs::declare_context! {
    pub context Fixed {
        settings { entities: fixed(12), threads: 1 }
        components {
            InSlot, Position: contiguous;
            InSparse: sparse_set;
            InMap: hash_map;
            Marker: tag;
        }
        systems {}
    }
}

ecs::declare_context! {
    pub context Growing {
        settings { entities: dynamic(2), threads: 1 }
        components {
            InSlot, Position: contiguous;
            InSparse: sparse_set;
            InMap: hash_map;
            Marker: tag;
        }
        systems {}
    }
}

type Full = (InSlot, InSparse, InMap, Position, Marker);

fn bundle(bomb: bool, ledger: &Arc<Ledger>) -> Full {
    (
        InSlot::new(1, bomb, ledger),
        InSparse::new(2, false, ledger),
        InMap::new(3, false, ledger),
        Position(7),
        Marker,
    )
}

/// Spawns `n` copies in a context holding one entity already, with the
/// `fail`-th clone panicking (`bomb`: the `InSlot` values panic when
/// dropped); checks that nothing is left, then that the ids are reusable.
macro_rules! failing_copies {
    ($Cx:ident, $n:expr, $fail:expr, $bomb:expr) => {{
        let (n, fail, bomb): (usize, usize, bool) = ($n, $fail, $bomb);
        let ledger = Ledger::new(fail);
        let mut cx = $Cx::new();
        let first = cx.step(|p| p.spawn((Position(99),)).unwrap());
        let b = bundle(bomb, &ledger);
        let r = catch_unwind(AssertUnwindSafe(|| cx.step(|p| p.spawn_n(n, b).map(|s| s.count()))));
        assert!(r.is_err(), "the clone's panic reaches the caller (fail {fail})");
        assert_eq!(
            ledger.alive(),
            0,
            "every clone and the bundle dropped once (fail {fail})"
        );
        assert_eq!(cx.len(), 1, "no entity made");
        let ok = Ledger::new(usize::MAX);
        let next: Vec<Entity> = cx.step(|p| p.spawn_n(3, bundle(false, &ok)).unwrap().collect());
        let ids: Vec<u32> = next.iter().map(|&e| cx.id_of(e).unwrap().to_bits()).collect();
        assert_eq!(ids, [1, 2, 3]);
        cx.step(|p| {
            for &e in &next {
                assert_eq!(p.get::<Position>(e), Some(&Position(7)));
                assert_eq!(p.get::<InSlot>(e).map(|v| v.n), Some(1));
                assert_eq!(p.get::<InSparse>(e).map(|v| v.n), Some(2));
                assert_eq!(p.get::<InMap>(e).map(|v| v.n), Some(3));
                assert!(p.has::<Marker>(e));
            }
            assert!(!p.has::<InSlot>(first) && !p.has::<InSparse>(first) && !p.has::<InMap>(first));
        });
        assert_eq!(ok.alive(), 9);
        drop(cx);
        assert_eq!(ok.alive(), 0, "the context drops each value once");
        assert_eq!(ledger.alive(), 0, "nothing dropped twice");
    }};
}

/// Clones per bundle: one per tracked column for every entity but the last.
const TRACKED: usize = 3;

#[test]
fn fixed_a_panicking_clone_at_every_point_leaves_nothing() {
    let n = 4;
    for fail in 0..TRACKED * (n - 1) {
        failing_copies!(Fixed, n, fail, false);
    }
}

#[test]
fn growing_a_panicking_clone_at_every_point_leaves_nothing() {
    let n = 5;
    for fail in 0..TRACKED * (n - 1) {
        failing_copies!(Growing, n, fail, false);
    }
}

/// For Miri: with two copies, the clone of the `hash_map` column fails
/// after the `contiguous` slots were written (their values' `drop` panics)
/// and the `sparse_set` column stored by `insert_new`.
#[test]
fn miri_a_panicking_clone_leaves_nothing() {
    failing_copies!(Growing, 2, 2, true);
}

#[test]
fn panicking_drops_during_the_cleanup_stop_no_other_drop() {
    // The `InSlot` clones (the first column, all written) panic when
    // dropped; a clone of a later column fails.
    let n = 4;
    for fail in n - 1..TRACKED * (n - 1) {
        failing_copies!(Fixed, n, fail, true);
        failing_copies!(Growing, n, fail, true);
    }
}

#[test]
fn miri_copies_hold_the_bundle_in_every_storage_and_are_dropped_once() {
    let ledger = Ledger::new(usize::MAX);
    let mut cx = Growing::new();
    let spawned = cx.step(|p| p.spawn_n(10, bundle(false, &ledger)).unwrap());
    assert_eq!(spawned.len(), 10);
    let es: Vec<Entity> = spawned.collect();
    assert_eq!(cx.len(), 10);
    assert_eq!(ledger.alive(), 30, "9 clones and the bundle, per tracked column");
    let ids: Vec<u32> = es.iter().map(|&e| cx.id_of(e).unwrap().to_bits()).collect();
    assert_eq!(ids, (0..10).collect::<Vec<_>>());
    cx.step(|p| {
        for &e in &es {
            assert_eq!(p.get::<InSlot>(e).map(|v| v.n), Some(1));
            assert_eq!(p.get::<InSparse>(e).map(|v| v.n), Some(2));
            assert_eq!(p.get::<InMap>(e).map(|v| v.n), Some(3));
            assert_eq!(p.get::<Position>(e), Some(&Position(7)));
            assert!(p.has::<Marker>(e));
        }
        p.kill(es[3]);
    });
    assert_eq!(ledger.alive(), 27, "a killed entity's values dropped");
    drop(cx);
    assert_eq!(ledger.alive(), 0);
}

#[test]
fn freed_slots_are_reused_first_and_their_handles_returned() {
    let mut cx = Fixed::new();
    let old: Vec<Entity> = cx.step(|p| p.spawn_n(4, (Position(1),)).unwrap().collect());
    cx.step(|p| {
        p.kill(old[1]);
        p.kill(old[2]);
    });
    let new: Vec<Entity> = cx.step(|p| p.spawn_n(3, (Position(2), Marker)).unwrap().collect());
    assert_eq!(new.len(), 3);
    assert_eq!(new[0].slot(), old[1].slot(), "lowest free slot first");
    assert_eq!(new[1].slot(), old[2].slot());
    assert_eq!(new[2].slot(), 4, "then a fresh one");
    cx.step(|p| {
        assert!(!p.is_alive(old[1]), "the old handle stays dead");
        for &e in &new {
            assert_eq!(p.get::<Position>(e), Some(&Position(2)));
            assert!(p.has::<Marker>(e));
        }
        assert_eq!(p.get::<Position>(old[0]), Some(&Position(1)));
    });
    assert_eq!(cx.len(), 5);
}

#[test]
fn a_full_context_is_an_error_and_loses_nothing() {
    let ledger = Ledger::new(usize::MAX);
    let mut cx = Fixed::new();
    cx.step(|p| p.spawn_n(10, (Position(1),)).unwrap());
    let r = cx.step(|p| p.spawn_n(3, bundle(false, &ledger)).map(|s| s.len()));
    assert_eq!(r, Err(ContextFull { limit: 12 }));
    assert_eq!(ledger.alive(), 0, "the bundle is dropped");
    assert_eq!(cx.len(), 10, "nothing changes");
    assert_eq!(
        cx.step(|p| p.spawn_n(2, bundle(false, &ledger)).map(|s| s.len())),
        Ok(2)
    );
    assert_eq!(
        cx.step(|p| p.spawn_n(0, (Position(3),)).map(|s| s.len())),
        Ok(0),
        "a full context makes none"
    );
    drop(cx);
    assert_eq!(ledger.alive(), 0);
}

/// Counts the entities holding a `Position` each time it runs.
#[derive(Default)]
pub struct CountPositions(AtomicUsize);

impl ecs::System<Watched> for CountPositions {
    fn process(&self, data: &mut ecs::Data<'_, Watched, Self>, _: &()) {
        let mut n = 0;
        data.for_each::<&Position>(|_| n += 1);
        self.0.store(n, Ordering::Relaxed);
    }
}

ecs::declare_context! {
    pub context Watched {
        settings { entities: fixed(46), threads: 1 }
        components { Position, Marker: contiguous; }
        systems { count: CountPositions { read: [Position] } }
    }
}

/// The entity records of a run (built 4 at a time, the rest one by one):
/// after runs of every length from 0 to 9, starting at ids that are not a
/// multiple of 4, each handle is alive, names its own id, reads its
/// values, and is seen by the shared generation table and, queued for
/// matching, by a system; killing every other entity afterwards packs the
/// ids as for entities made one by one.
#[test]
fn miri_runs_of_every_length_record_each_entity() {
    let mut cx = Watched::new();
    let liveness = cx.liveness();
    let mut all: Vec<Entity> = vec![cx.step(|p| p.spawn((Position(1000),)).unwrap())];
    for n in 0..10u32 {
        let run: Vec<Entity> = cx.step(|p| p.spawn_n(n as usize, (Position(n), Marker)).unwrap().collect());
        assert_eq!(run.len(), n as usize);
        for (k, &e) in run.iter().enumerate() {
            let id = all.len() + k;
            assert_eq!(e.slot() as usize, id, "fresh slots in order");
            assert!(cx.is_alive(e) && liveness.is_alive(e));
            assert_eq!(cx.id_of(e).map(|i| i.to_bits() as usize), Some(id));
        }
        all.extend(run);
        cx.step(|p| p.run_all(&()));
        assert_eq!(
            cx.system::<CountPositions>().0.load(Ordering::Relaxed),
            all.len(),
            "after the run of {n}"
        );
    }
    assert_eq!(all.len(), 1 + 45);
    assert!(
        cx.step(|p| p.spawn_n(1, (Position(0),)).is_err()),
        "full: the last run took the last id"
    );
    cx.step(|p| {
        for (i, &e) in all.iter().enumerate() {
            let want = if i == 0 {
                1000
            } else {
                (0..10u32).find(|&n| i <= (n * (n + 1) / 2) as usize).unwrap()
            };
            assert_eq!(p.get::<Position>(e), Some(&Position(want)), "entity {i}");
        }
        for &e in all.iter().step_by(2) {
            p.kill(e);
        }
    });
    cx.step(|p| p.run_all(&()));
    let kept: Vec<Entity> = all.iter().copied().skip(1).step_by(2).collect();
    assert_eq!(cx.len(), kept.len());
    assert_eq!(cx.system::<CountPositions>().0.load(Ordering::Relaxed), kept.len());
    for &e in &all[..1] {
        assert!(!cx.is_alive(e) && !liveness.is_alive(e));
    }
    let mut ids: Vec<u32> = kept.iter().map(|&e| cx.id_of(e).unwrap().to_bits()).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        (0..kept.len() as u32).collect::<Vec<_>>(),
        "packed after the kills"
    );
}
