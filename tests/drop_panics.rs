//! A component whose `drop` panics while the context drops it: the panic
//! reaches the caller, every other value is still dropped exactly once, and
//! the context is left consistent. A second panicking drop does not abort
//! either: storages keep dropping and raise the first panic at the end
//! (`tests/storage_panics.rs` tries every storage).

use ecs::{Data, Entity, RefreshEvents, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Counts its drops; panics in `drop` with its message when armed.
#[derive(Debug)]
pub struct Bomb {
    drops: Arc<AtomicUsize>,
    armed: Option<&'static str>,
}

impl Drop for Bomb {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
        if let Some(message) = self.armed {
            panic!("{message}");
        }
    }
}

/// Counts its drops.
#[derive(Debug)]
pub struct Tracked(pub Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Age(pub u32);

#[derive(Default)]
pub struct Ages;

ecs::declare_context! {
    pub context World {
        settings { entities: fixed(16), threads: 1 }
        components { Age, Tracked: contiguous; Bomb: sparse_set; }
        systems { ages: Ages { read: [Age] } }
    }
}

impl System<World> for Ages {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}

struct Counters {
    bombs: Arc<AtomicUsize>,
    tracked: Arc<AtomicUsize>,
}

impl Counters {
    fn new() -> Self {
        Counters {
            bombs: Arc::new(AtomicUsize::new(0)),
            tracked: Arc::new(AtomicUsize::new(0)),
        }
    }

    fn bomb(&self, armed: Option<&'static str>) -> Bomb {
        Bomb {
            drops: self.bombs.clone(),
            armed,
        }
    }

    fn tracked(&self) -> Tracked {
        Tracked(self.tracked.clone())
    }
}

/// Eight entities with `Age`, `Tracked` and a `Bomb`; the bomb of entity
/// `i` panics with `armed[k].1` when `armed[k].0 == i`.
fn world(c: &Counters, armed: &[(usize, &'static str)]) -> (World, Vec<Entity>) {
    let mut ctx = World::new();
    let es = ctx.step(|p| {
        (0..8)
            .map(|i| {
                let message = armed.iter().find(|a| a.0 == i).map(|a| a.1);
                p.spawn((Age(i as u32), c.tracked(), c.bomb(message))).unwrap()
            })
            .collect()
    });
    ctx.step(|p| p.run_all(&()));
    (ctx, es)
}

/// After a panic: the entities in `dead` read dead, the others alive with
/// their values, ids packed, the system's set right, and the context keeps
/// working.
fn check_consistent(ctx: &mut World, es: &[Entity], dead: &[usize]) {
    for (i, &e) in es.iter().enumerate() {
        assert_eq!(ctx.is_alive(e), !dead.contains(&i), "entity {i}");
    }
    let live = es.len() - dead.len();
    assert_eq!(ctx.len(), live);
    ctx.step(|p| {
        for (i, &e) in es.iter().enumerate() {
            if !dead.contains(&i) {
                assert_eq!(p.get::<Age>(e), Some(&Age(i as u32)));
                assert!(p.id_of(e).unwrap().index() < live, "ids stay packed");
            }
        }
        p.run_all(&());
    });
    assert_eq!(ctx.subscribers::<Ages>().len(), live);
    // Freed slots are reused, and new entities are matched.
    let more = ctx.step(|p| {
        (0..dead.len())
            .map(|i| p.spawn((Age(100 + i as u32),)).unwrap())
            .collect::<Vec<_>>()
    });
    ctx.step(|p| p.run_all(&()));
    assert_eq!(ctx.len(), es.len());
    assert_eq!(ctx.subscribers::<Ages>().len(), es.len());
    for e in more {
        assert!(dead.iter().any(|&i| es[i].slot() == e.slot()), "a freed slot is reused");
    }
}

/// The message of a caught panic.
fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(payload) => payload.downcast::<&str>().map(|s| s.to_string()).unwrap_or_default(),
    }
}

fn kill_all(ctx: &mut World, es: &[Entity], killed: &[usize]) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| {
        ctx.step(|p| {
            for &i in killed {
                assert!(p.kill(es[i]));
            }
        })
    }))
    .map_err(message)
}

#[test]
fn a_drop_panicking_in_reclamation_reclaims_every_killed_entity() {
    let c = Counters::new();
    let (mut ctx, es) = world(&c, &[(3, "bomb 3")]);
    let killed = [1, 3, 5, 6];
    assert_eq!(kill_all(&mut ctx, &es, &killed), Err("bomb 3".into()));
    // Every value of every killed entity was dropped, once, the bomb included.
    assert_eq!(c.bombs.load(Ordering::SeqCst), 4);
    assert_eq!(c.tracked.load(Ordering::SeqCst), 4);
    check_consistent(&mut ctx, &es, &killed);
    drop(ctx);
    assert_eq!(c.bombs.load(Ordering::SeqCst), 8);
    assert_eq!(c.tracked.load(Ordering::SeqCst), 8);
}

#[test]
fn several_drops_panicking_in_one_refresh_report_the_first() {
    let c = Counters::new();
    let (mut ctx, es) = world(&c, &[(0, "bomb 0"), (5, "bomb 5"), (7, "bomb 7")]);
    let killed = [7, 0, 2, 5];
    // Reclaimed in kill order: entity 7's bomb goes first.
    assert_eq!(kill_all(&mut ctx, &es, &killed), Err("bomb 7".into()));
    assert_eq!(c.bombs.load(Ordering::SeqCst), 4);
    assert_eq!(c.tracked.load(Ordering::SeqCst), 4);
    check_consistent(&mut ctx, &es, &killed);
}

#[test]
fn a_panicking_drop_in_a_step_with_events_leaves_later_events_right() {
    let c = Counters::new();
    let (mut ctx, es) = world(&c, &[(2, "bomb 2")]);
    let mut reclaimed = Vec::new();
    let r = catch_unwind(AssertUnwindSafe(|| {
        let mut events = RefreshEvents::<World>::new().on_reclaim(|e| reclaimed.push(e));
        ctx.step_with(&mut events, |p| {
            p.kill(es[2]);
            p.kill(es[4]);
        })
    }));
    assert_eq!(r.map_err(message), Err("bomb 2".into()));
    // The panic comes before the handlers: this refresh's events are lost.
    assert!(reclaimed.is_empty());
    let mut unsubscribed = Vec::new();
    let mut events = RefreshEvents::<World>::new()
        .on_reclaim(|e| reclaimed.push(e))
        .on_unsubscribe::<Ages>(|e| unsubscribed.push(e));
    ctx.step_with(&mut events, |p| {
        p.kill(es[6]);
    });
    drop(events);
    // The next step's events are its own, and nothing else.
    assert_eq!(reclaimed, vec![es[6]]);
    assert_eq!(unsubscribed, vec![es[6]]);
    check_consistent(&mut ctx, &es, &[2, 4, 6]);
}
