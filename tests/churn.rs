//! Churn and limits: a million entities created and killed in waves reuse
//! ids and storage, never hand out a live id twice, and leave every handle to
//! a reclaimed entity dead.

use ecs::{Data, Entity, EntityId, RefreshEvents, System};
use std::collections::HashSet;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Age(pub u32);
#[derive(Clone, Debug, PartialEq)]
pub struct Payload(pub Vec<u8>);

#[derive(Default)]
pub struct Older;

ecs::declare_context! {
    pub context Churn {
        settings { entities: dynamic(1024), threads: 2 }
        components { Age: contiguous; Payload: sparse_set; }
        systems { older: Older { write: [Age], parallelism: split_evenly_per_core } }
    }
}

impl System<Churn> for Older {
    fn process(&self, data: &mut Data<'_, Churn, Self>, _: &()) {
        data.for_entities::<(EntityId, &mut Age)>(|view, (id, age)| {
            age.0 += 1;
            if age.0 >= 3 {
                view.kill(id);
            }
        });
    }
}

#[test]
fn a_million_entities_in_waves_reuse_ids_and_memory() {
    const STEPS: usize = 1000;
    const PER_STEP: usize = 1000;
    let mut ctx = Churn::new();
    let mut alive: HashSet<u32> = HashSet::new();
    let mut dead: Vec<Entity> = Vec::new();
    let mut max_bound = 0;
    for step in 0..STEPS {
        let mut reclaimed = Vec::new();
        let mut events = RefreshEvents::<Churn>::new().on_reclaim(|e| reclaimed.push(e));
        let made: Vec<Entity> = ctx.step_with(&mut events, |p| {
            let made: Vec<Entity> = (0..PER_STEP)
                .map(|i| p.spawn((Age(0), Payload(vec![i as u8; 8]))).unwrap())
                .collect();
            p.run_all(&());
            made
        });
        drop(events);
        for e in &made {
            assert!(alive.insert(e.slot()), "slot {} handed out twice while alive", e.slot());
        }
        for e in reclaimed {
            assert!(alive.remove(&e.slot()));
            dead.push(e);
        }
        // Every handle to a reclaimed entity reads dead, even after reuse.
        if step % 100 == 99 {
            for &e in &dead {
                assert!(!ctx.is_alive(e));
            }
            dead.clear();
        }
        max_bound = max_bound.max(ctx.len());
    }
    assert_eq!(ctx.len(), alive.len());
    // Entities live three steps: at most ~3 waves are alive at once, and
    // slots (so the metadata table) stay bounded by that, not by the million;
    // ids stay packed (so every id-indexed buffer holds only live entities).
    assert!(max_bound <= 3 * PER_STEP, "alive peak {max_bound}");
    let (slots_ever, id, alive_now) = ctx.step(|p| {
        let e = p.create().unwrap();
        (e.slot() as usize, p.id_of(e).unwrap().index(), p.len())
    });
    assert!(slots_ever < 4 * PER_STEP, "slots are reused: highest slot {slots_ever}");
    assert_eq!(id, alive_now - 1, "ids are packed: the new entity takes the next one");
}

#[derive(Default)]
pub struct Nothing;

ecs::declare_context! {
    pub context Small {
        settings { entities: fixed(8), threads: 1 }
        components { Age: contiguous; }
        systems { nothing: Nothing { read: [Age] } }
    }
}

impl System<Small> for Nothing {
    fn process(&self, _: &mut Data<'_, Small, Self>, _: &()) {}
}

#[test]
fn a_full_fixed_context_errs_and_recovers_over_many_cycles() {
    let mut ctx = Small::new();
    for _ in 0..100 {
        let made = ctx.step(|p| {
            let mut made = Vec::new();
            while let Ok(e) = p.spawn((Age(1),)) {
                made.push(e);
            }
            assert_eq!(p.create().unwrap_err().limit, 8);
            made
        });
        assert_eq!(made.len(), 8);
        assert_eq!(ctx.len(), 8);
        ctx.step(|p| {
            for e in made {
                assert!(p.kill(e));
            }
        });
        assert_eq!(ctx.len(), 0);
    }
}

#[test]
fn a_panicking_event_handler_leaves_a_consistent_context() {
    let mut ctx = Small::new();
    let es: Vec<Entity> = ctx.step(|p| (0..4).map(|i| p.spawn((Age(i),)).unwrap()).collect());
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut events = RefreshEvents::<Small>::new().on_reclaim(|_| panic!("handler boom"));
        ctx.step_with(&mut events, |p| {
            p.kill(es[0]);
            p.kill(es[1]);
        });
    }));
    assert!(r.is_err());
    // Both kills were applied before the handlers ran.
    assert!(!ctx.is_alive(es[0]) && !ctx.is_alive(es[1]));
    assert_eq!(ctx.subscribers::<Nothing>().len(), 2);
    ctx.step(|p| {
        assert_eq!(p.len(), 2);
        let e = p.spawn((Age(9),)).unwrap();
        assert!(
            e.slot() == es[0].slot() || e.slot() == es[1].slot(),
            "reclaimed slots are free"
        );
        p.run_all(&());
    });
    assert_eq!(ctx.subscribers::<Nothing>().len(), 3);
}
