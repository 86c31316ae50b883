//! `spawn_batch` takes any iterator: exact size hints go straight into the
//! columns, others are collected first; a size hint that lies costs
//! entities, never memory safety.

use ecs::ContextFull;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position(pub f32);
#[derive(Clone, Debug, PartialEq)]
pub struct Name(pub String);
/// A value whose drops are counted (by its `Arc`'s count).
pub struct Held(pub std::sync::Arc<()>);

ecs::declare_context! {
    pub context World {
        settings { entities: fixed(100), threads: 1 }
        components { Position: contiguous; Name: sparse_set; Held: contiguous; }
        systems {}
    }
}

/// An iterator whose size hint claims `claim` items, exactly, while it
/// yields `real`.
struct Liar {
    claim: usize,
    real: usize,
}

impl Iterator for Liar {
    type Item = (Position, Name);
    fn next(&mut self) -> Option<Self::Item> {
        (self.real > 0).then(|| {
            self.real -= 1;
            (Position(self.real as f32), Name(format!("{}", self.real)))
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.claim, Some(self.claim))
    }
}

#[test]
fn ranges_of_u64_and_filters_spawn() {
    let mut w = World::new();
    let n: u64 = 40;
    let made = w.step(|p| p.spawn_batch((0..n).map(|i| (Position(i as f32),))).unwrap().count());
    assert_eq!(made, 40);
    let evens = w.step(|p| {
        p.spawn_batch(
            (0..40u32)
                .filter(|i| i % 2 == 0)
                .map(|i| (Position(i as f32), Name(i.to_string()))),
        )
        .unwrap()
        .collect::<Vec<_>>()
    });
    assert_eq!(evens.len(), 20);
    w.step(|p| assert_eq!(p.get::<Name>(evens[3]), Some(&Name("6".into()))));
    // 60 taken, 40 left: a filter yielding 41 creates nothing.
    let r = w.step(|p| {
        p.spawn_batch((0..100).filter(|i| *i <= 40).map(|_| (Position(0.0),)))
            .map(|s| s.count())
    });
    assert_eq!(r, Err(ContextFull { limit: 100 }));
    assert_eq!(w.len(), 60);
}

#[test]
fn a_lying_size_hint_is_harmless() {
    let mut w = World::new();
    // Claims fewer than it yields: only the claimed ones are taken.
    let made = w.step(|p| p.spawn_batch(Liar { claim: 3, real: 10 }).unwrap().count());
    assert_eq!(made, 3);
    // Claims more than it yields: only the real ones are made.
    let made = w.step(|p| p.spawn_batch(Liar { claim: 50, real: 5 }).unwrap().count());
    assert_eq!(made, 5);
    // Claims more than the room: refused before reading any.
    assert!(w.step(|p| p.spawn_batch(Liar { claim: 1000, real: 1 }).is_err()));
    assert_eq!(w.len(), 8);
    w.step(|p| {
        let names: Vec<String> = p.query::<&Name>().map(|(_, n)| n.0.clone()).collect();
        assert_eq!(names, ["9", "8", "7", "4", "3", "2", "1", "0"]);
    });
}

/// An iterator of known length is read only as far as its length, and not
/// at all when the context has no room for it: in an optimised build it is
/// stored as it is read (`store_fresh`), in a debug build collected first
/// (`spawn_collected`); both keep these promises.
#[test]
fn a_known_length_is_read_no_further_and_not_when_full() {
    let mut w = World::new();
    let asked = std::cell::Cell::new(0usize);
    let counted = |claim, real| Liar { claim, real }.inspect(|_| asked.set(asked.get() + 1));
    // `inspect` keeps the liar's hint: 4 claimed of 10, 4 read.
    let made = w.step(|p| p.spawn_batch(counted(4, 10)).unwrap().count());
    assert_eq!((made, asked.get()), (4, 4));
    // 96 left, 97 claimed: refused before any is read.
    assert!(w.step(|p| p.spawn_batch(counted(97, 97)).is_err()));
    assert_eq!((w.len(), asked.get()), (4, 4));
    // Fewer than claimed: all read, those made.
    let made = w.step(|p| p.spawn_batch(counted(9, 2)).unwrap().count());
    assert_eq!((made, asked.get()), (2, 6));
    assert_eq!(w.len(), 6);
}

/// A batch refused for want of room drops its bundles, each once: of known
/// length before reading any, of unknown length once collected (a debug
/// build's `store_collected` drops them through its guard).
#[test]
fn a_refused_batch_drops_its_bundles_once() {
    let mut w = World::new();
    let held = std::sync::Arc::new(());
    let make = |_| (Held(held.clone()), Position(0.0));
    w.step(|p| p.spawn_batch((0..90).map(make)).unwrap().count());
    assert_eq!(std::sync::Arc::strong_count(&held), 91);
    // Of unknown length: 20 collected, 10 places left.
    assert!(w.step(|p| p.spawn_batch((0..20).filter(|_| true).map(make)).is_err()));
    assert_eq!(std::sync::Arc::strong_count(&held), 91);
    // Of known length: refused before any is made.
    assert!(w.step(|p| p.spawn_batch((0..11).map(make)).is_err()));
    assert_eq!(std::sync::Arc::strong_count(&held), 91);
    // Room for what is left, then dropped with the context.
    w.step(|p| p.spawn_batch((0..10).filter(|_| true).map(make)).unwrap().count());
    assert_eq!((w.len(), std::sync::Arc::strong_count(&held)), (100, 101));
    drop(w);
    assert_eq!(std::sync::Arc::strong_count(&held), 1);
}
