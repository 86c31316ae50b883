//! Refresh order: deferred functions in system, subtask and call order, then
//! reclamation of killed entities, then matching.

use ecs::{Data, Entity, EntityId, RefreshEvents, System};
use std::sync::Mutex;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tick(pub u32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spawned(pub u32);

#[derive(Default)]
pub struct First;
#[derive(Default)]
pub struct Second;
#[derive(Default)]
pub struct Watch;

static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn log(s: String) {
    LOG.lock().unwrap().push(s);
}

ecs::declare_context! {
    pub context Ctx {
        settings { threads: 2 }
        components { Tick: contiguous; Spawned: sparse_set; }
        systems {
            first: First { read: [Tick], parallelism: split_every(2) }
            second: Second { read: [Tick] }
            watch: Watch { read: [Spawned] }
        }
    }
}

impl System<Ctx> for First {
    fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
        let sub = data.subtask_index();
        for call in 0..2 {
            data.defer(move |_| log(format!("first/{sub}/{call}")));
        }
        data.for_entities::<(EntityId, &Tick)>(|view, (id, t)| {
            if t.0 == 0 {
                view.kill(id);
                view.defer(move |d| {
                    log("first kills".into());
                    let e = d.create().unwrap();
                    d.add(e, Spawned(7)).unwrap();
                });
            }
        });
    }
}

impl System<Ctx> for Second {
    fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
        data.defer(|_| log("second".into()));
    }
}

impl System<Ctx> for Watch {
    fn process(&self, _: &mut Data<'_, Ctx, Self>, _: &()) {}
}

#[test]
fn deferred_then_reclaimed_then_matched() {
    let mut ctx = Ctx::new();
    let zero = ctx.step(|p| {
        let z = p.spawn((Tick(0),)).unwrap();
        for i in 1..4 {
            p.spawn((Tick(i),)).unwrap();
        }
        z
    });
    let events: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut handlers = RefreshEvents::<Ctx>::new()
        .on_reclaim(|e: Entity| {
            events.lock().unwrap().push(format!("reclaim {}", e.slot()));
            log("reclaim".into());
        })
        .on_subscribe::<Watch>(|_| log("subscribe watch".into()))
        .on_unsubscribe::<First>(|_| log("unsubscribe first".into()));
    ctx.step_with(&mut handlers, |p| p.run_all(&()));
    drop(handlers);
    let log = LOG.lock().unwrap().clone();
    assert_eq!(
        log,
        [
            "first/0/0",
            "first/0/1",
            "first kills",
            "first/1/0",
            "first/1/1",
            "second",
            "unsubscribe first",
            "reclaim",
            "subscribe watch",
        ]
    );
    assert!(!ctx.is_alive(zero));
    assert_eq!(events.into_inner().unwrap(), vec![format!("reclaim {}", zero.slot())]);
    assert_eq!(ctx.subscribers::<Watch>().len(), 1);
}
