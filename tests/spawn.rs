//! `spawn_batch`: all or none, handles in order, freed ids first, values in
//! every storage, matching to systems, and what a misbehaving iterator gets.

use ecs::{Data, Entity, RefreshEvents, System};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position(pub u32);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Velocity(pub u32);
#[derive(Debug, Clone, PartialEq)]
pub struct Name(pub String);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mass(pub u32);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marked;

/// Counts its drops, to check that no value is dropped twice or lost.
#[derive(Debug)]
pub struct Tracked(pub Arc<AtomicUsize>);
impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(Default)]
pub struct Movement;

ecs::declare_context! {
    pub context Fixed {
        settings { entities: fixed(8), threads: 1 }
        components {
            Position, Velocity, Tracked: contiguous;
            Name: sparse_set;
            Mass: hash_map;
            Marked: tag;
        }
        systems { movement: Movement { read: [Velocity], write: [Position] } }
    }
}

ecs::declare_context! {
    pub context Growing {
        settings { entities: dynamic(2), threads: 1 }
        components { Position, Velocity: contiguous; Name: sparse_set; }
    }
}

impl System<Fixed> for Movement {
    fn process(&self, data: &mut Data<'_, Fixed, Self>, _: &()) {
        data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0);
    }
}

fn positions(ctx: &mut Fixed, es: &[Entity]) -> Vec<Option<u32>> {
    ctx.step(|p| es.iter().map(|&e| p.get::<Position>(e).map(|x| x.0)).collect())
}

#[test]
fn handles_come_in_order_with_their_values() {
    let mut ctx = Fixed::new();
    let es: Vec<Entity> = ctx.step(|p| {
        let spawned = p
            .spawn_batch((0..5).map(|i| (Position(i), Velocity(10), Name(format!("n{i}")))))
            .unwrap();
        assert_eq!(spawned.len(), 5);
        spawned.collect()
    });
    assert_eq!(ctx.len(), 5);
    let ids: Vec<u32> = es.iter().map(|&e| ctx.id_of(e).unwrap().to_bits()).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4], "fresh ids, ascending");
    let slots: Vec<u32> = es.iter().map(|e| e.slot()).collect();
    assert_eq!(slots, [0, 1, 2, 3, 4], "fresh slots, ascending");
    ctx.step(|p| {
        for (i, &e) in es.iter().enumerate() {
            assert_eq!(p.get::<Name>(e), Some(&Name(format!("n{i}"))));
            assert!(!p.has::<Mass>(e) && !p.has::<Marked>(e));
        }
    });
    assert_eq!(ctx.subscribers::<Movement>().len(), 5, "matched at refresh");
    ctx.step(|p| p.run_all(&()));
    assert_eq!(positions(&mut ctx, &es), [10, 11, 12, 13, 14].map(Some));
}

#[test]
fn freed_slots_are_reused_first_lowest_first_and_ids_stay_packed() {
    let mut ctx = Fixed::new();
    let first: Vec<Entity> = ctx.step(|p| p.spawn_batch((0..6).map(|i| (Position(i),))).unwrap().collect());
    ctx.step(|p| {
        for i in [4, 1] {
            p.kill(first[i]);
        }
    });
    let again: Vec<Entity> = ctx.step(|p| {
        p.spawn_batch((0..4).map(|i| (Position(100 + i), Mass(i), Marked)))
            .unwrap()
            .collect()
    });
    let slots: Vec<u32> = again.iter().map(|e| e.slot()).collect();
    assert_eq!(slots, [1, 4, 6, 7], "freed slots ascending, then fresh ones");
    // The four survivors hold ids 0..4 and the new entities take the next
    // ids, one run.
    let ids: Vec<u32> = again.iter().map(|&e| ctx.id_of(e).unwrap().to_bits()).collect();
    assert_eq!(ids, [4, 5, 6, 7], "new entities take the ids after the survivors");
    let survivors: Vec<u32> = [0, 2, 3, 5]
        .iter()
        .map(|&i| ctx.id_of(first[i]).unwrap().to_bits())
        .collect();
    assert_eq!(survivors, [0, 2, 3, 1], "5 moved into 4's id, then into 1's");
    assert!(again[0].generation() > 0 && again[2].generation() == 0);
    assert!(
        !ctx.is_alive(first[1]) && ctx.is_alive(again[0]),
        "the old handle reads dead"
    );
    assert_eq!(positions(&mut ctx, &again), [100, 101, 102, 103].map(Some));
    ctx.step(|p| {
        for (i, &e) in again.iter().enumerate() {
            assert_eq!(p.get::<Mass>(e), Some(&Mass(i as u32)));
            assert!(p.has::<Marked>(e));
        }
    });
    assert_eq!(ctx.len(), 8);
}

#[test]
fn a_batch_that_does_not_fit_creates_nothing() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut ctx = Fixed::new();
    ctx.step(|p| p.spawn_batch((0..5).map(|i| (Position(i),))).unwrap().count());
    let bundles: Vec<(Tracked, Position)> = (0..4).map(|i| (Tracked(drops.clone()), Position(i))).collect();
    let err = ctx.step(|p| p.spawn_batch(bundles).unwrap_err());
    assert_eq!(err.limit, 8);
    assert_eq!(ctx.len(), 5, "none of the four was created");
    assert_eq!(drops.load(Ordering::SeqCst), 4, "the bundles were dropped");
    // Three still fit.
    let es: Vec<Entity> = ctx.step(|p| p.spawn_batch((5..8).map(|i| (Position(i),))).unwrap().collect());
    assert_eq!(es.len(), 3);
    assert_eq!(ctx.len(), 8);
    assert!(ctx.step(|p| p.spawn_batch(core::iter::empty::<(Position,)>()).unwrap().len() == 0));
}

#[test]
fn values_are_dropped_once_when_their_entities_die() {
    let drops = Arc::new(AtomicUsize::new(0));
    {
        let mut ctx = Fixed::new();
        let es: Vec<Entity> = ctx.step(|p| {
            p.spawn_batch((0..6).map(|i| (Tracked(drops.clone()), Position(i))))
                .unwrap()
                .collect()
        });
        ctx.step(|p| {
            p.kill(es[0]);
            p.kill(es[3]);
        });
        assert_eq!(drops.load(Ordering::SeqCst), 2);
        ctx.step(|p| {
            p.spawn_batch((0..2).map(|_| (Tracked(drops.clone()),)))
                .unwrap()
                .count()
        });
        assert_eq!(drops.load(Ordering::SeqCst), 2);
    }
    assert_eq!(drops.load(Ordering::SeqCst), 8, "the rest dropped with the context");
}

/// An `ExactSizeIterator` whose `len` is `claimed` whatever it yields.
struct Lying<I> {
    inner: I,
    claimed: usize,
}
impl<I: Iterator> Iterator for Lying<I> {
    type Item = I::Item;
    fn next(&mut self) -> Option<I::Item> {
        self.inner.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.claimed, Some(self.claimed))
    }
}
impl<I: Iterator> ExactSizeIterator for Lying<I> {}

#[test]
fn an_iterator_whose_len_is_wrong_gets_no_more_than_it_claimed() {
    let mut ctx = Fixed::new();
    // Claims 3, yields 6: three are created.
    let more = Lying {
        inner: (0..6).map(|i| (Position(i),)),
        claimed: 3,
    };
    assert_eq!(ctx.step(|p| p.spawn_batch(more).unwrap().count()), 3);
    assert_eq!(ctx.len(), 3);
    // Claims 5 (which fit), yields 2: two are created.
    let fewer = Lying {
        inner: (10..12).map(|i| (Position(i),)),
        claimed: 5,
    };
    let es: Vec<Entity> = ctx.step(|p| p.spawn_batch(fewer).unwrap().collect());
    assert_eq!(positions(&mut ctx, &es), [Some(10), Some(11)]);
    // Claims 1, would yield 100: one is created, the context never overflows.
    let flood = Lying {
        inner: (0..100).map(|i| (Position(i),)),
        claimed: 1,
    };
    assert_eq!(ctx.step(|p| p.spawn_batch(flood).unwrap().count()), 1);
    assert_eq!(ctx.len(), 6);
    assert_eq!(ctx.subscribers::<Movement>().len(), 0, "no Velocity, no match");
}

#[test]
fn a_panicking_iterator_leaves_the_context_consistent() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut ctx = Fixed::new();
    let old: Vec<Entity> = ctx.step(|p| p.spawn_batch((0..2).map(|i| (Position(i),))).unwrap().collect());
    ctx.step(|p| p.kill(old[0]));
    let yielded = Cell::new(0);
    let bundles = (0..5).map(|i| {
        if i == 3 {
            panic!("the iterator fails");
        }
        yielded.set(yielded.get() + 1);
        (Tracked(drops.clone()), Position(i), Name(format!("{i}")))
    });
    let r = catch_unwind(AssertUnwindSafe(|| {
        ctx.step(|p| p.spawn_batch(bundles).map(|s| s.count()))
    }));
    assert!(r.is_err());
    assert_eq!(yielded.get(), 3);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        3,
        "the failed batch's values dropped by its cleanup"
    );
    // No entity was made, and the values given so far are not visible
    // anywhere.
    assert_eq!(ctx.len(), 1);
    // The next batch takes the same ids and works normally.
    let es: Vec<Entity> = ctx.step(|p| {
        p.spawn_batch((0..3).map(|i| (Tracked(drops.clone()), Position(20 + i))))
            .unwrap()
            .collect()
    });
    assert_eq!(
        es.iter().map(|&e| ctx.id_of(e).unwrap().to_bits()).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(positions(&mut ctx, &es), [20, 21, 22].map(Some));
    ctx.step(|p| {
        for &e in &es {
            assert!(!p.has::<Name>(e), "no name left over from the failed batch");
        }
    });
    drop(ctx);
    // Dropped once each: the three `Tracked` of the failed run (written
    // into their slots, never recorded: dropped by the panic's cleanup) and
    // the three of the second batch.
    assert_eq!(drops.load(Ordering::SeqCst), 6);
}

#[test]
fn growing_contexts_make_room_for_a_batch() {
    let mut ctx = Growing::new();
    let es: Vec<Entity> = ctx.step(|p| {
        p.spawn_batch((0..1000).map(|i| (Position(i), Velocity(i * 2), Name(i.to_string()))))
            .unwrap()
            .collect()
    });
    assert_eq!(ctx.len(), 1000);
    ctx.step(|p| {
        for (i, &e) in es.iter().enumerate() {
            let i = i as u32;
            assert_eq!(p.get::<Position>(e), Some(&Position(i)));
            assert_eq!(p.get::<Velocity>(e), Some(&Velocity(i * 2)));
            assert_eq!(p.get::<Name>(e), Some(&Name(i.to_string())));
        }
    });
}

#[test]
fn every_spawned_entity_is_reported_to_subscribers() {
    let mut ctx = Fixed::new();
    let seen = Cell::new(0);
    let mut events = RefreshEvents::<Fixed>::new().on_subscribe::<Movement>(|_| seen.set(seen.get() + 1));
    ctx.step_with(&mut events, |p| {
        p.spawn_batch((0..4).map(|i| (Position(i), Velocity(1))))
            .unwrap()
            .count();
    });
    drop(events);
    assert_eq!(seen.get(), 4);
}
