//! Resources: declared in `resources`, read and written by systems as their
//! `read` and `write` lists allow, and by the step closure, deferred
//! functions and the context itself.

use ecs::{Data, System};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Velocity(pub f32);

/// The time step.
#[derive(Debug, PartialEq)]
pub struct Time {
    pub dt: f32,
    pub steps: u32,
}

impl Default for Time {
    fn default() -> Self {
        Time { dt: 1.0, steps: 0 }
    }
}

/// Not `Default`: given to the constructor.
#[derive(Debug, PartialEq)]
pub struct Bounds(pub f32);

#[derive(Default, Debug, PartialEq)]
pub struct Stats {
    pub moved: usize,
    pub max: f32,
}

#[derive(Default)]
pub struct Tick;
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Measure;
#[derive(Default)]
pub struct Clamp;

ecs::declare_context! {
    pub context World {
        settings { threads: 2 }
        components { Position, Velocity: contiguous; }
        resources {
            /// Advanced once per step by `tick`.
            Time,
            Bounds,
            Stats,
        }
        systems {
            tick: Tick { write: [Time] }
            movement: Move {
                read: [Velocity, Time],
                write: [Position],
                after: [tick],
                parallelism: split_every(16),
            }
            measure: Measure { read: [Position], write: [Stats], after: [movement] }
            clamp: Clamp { read: [Bounds], write: [Position], after: [measure], parallelism: split_evenly_per_core }
        }
    }
}

impl System<World> for Tick {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.resource_mut::<Time>().steps += 1;
    }
}

impl System<World> for Move {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let dt = data.resource::<Time>().dt;
        data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0 * dt);
    }
}

impl System<World> for Measure {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let mut max = f32::MIN;
        let mut n = 0;
        data.for_each::<&Position>(|p| {
            max = max.max(p.0);
            n += 1;
        });
        let stats = data.resource_mut::<Stats>();
        stats.moved = n;
        stats.max = max;
    }
}

impl System<World> for Clamp {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let bound = data.resource::<Bounds>().0;
        data.for_each::<&mut Position>(|p| p.0 = p.0.min(bound));
    }
}

fn world(threads: usize) -> World {
    World::from_parts(
        WorldSystems::default(),
        WorldResources {
            time: Time { dt: 0.5, steps: 0 },
            bounds: Bounds(10.0),
            stats: Stats::default(),
        },
        Some(threads),
    )
}

#[test]
fn systems_read_and_write_resources_on_one_and_two_threads() {
    for threads in [1, 2] {
        let mut w = world(threads);
        w.step(|p| {
            p.spawn_batch((0..100).map(|i| (Position(i as f32 * 0.1), Velocity(1.0))))
                .map(drop)
        })
        .unwrap();
        for _ in 0..4 {
            w.step(|p| p.run_all(&()));
        }
        assert_eq!(w.resource::<Time>().steps, 4);
        let stats = w.resource::<Stats>();
        assert_eq!(stats.moved, 100);
        // Before the last clamp: 9.9 + 4 * 0.5, clamped to 10 after three steps.
        assert_eq!(stats.max, 10.5);
        w.step(|p| {
            let positions: Vec<f32> = p.query::<&Position>().map(|(_, pos)| pos.0).collect();
            assert!(positions.iter().all(|&x| x <= 10.0));
        });
    }
}

#[test]
fn step_closure_and_deferred_functions_reach_every_resource() {
    let mut w = world(1);
    w.step(|p| {
        p.resource_mut::<Time>().dt = 2.0;
        assert_eq!(p.resource::<Bounds>(), &Bounds(10.0));
        p.resource_mut::<Bounds>().0 = 3.0;
    });
    assert_eq!(w.resource::<Time>().dt, 2.0);
    let e = w.step(|p| p.spawn((Position(0.0), Velocity(1.0)))).unwrap();
    w.step(|p| p.run_all(&()));
    // 0 + 1 * 2, clamped to 3: not clamped.
    assert_eq!(w.step(|p| p.component::<Position>(e).0), 2.0);
    w.step(|p| p.run_all(&()));
    assert_eq!(w.step(|p| p.component::<Position>(e).0), 3.0);
    w.resource_mut::<Stats>().moved = 7;
    assert_eq!(w.resource::<Stats>().moved, 7);
    // A deferred function, run at refresh, has every resource too.
    w.step(|p| {
        p.run_adapted(
            &ecs::Adapters::new().system::<Move>(|_, data| data.defer(|d| d.resource_mut::<Stats>().moved += 1)),
        )
    });
    assert_eq!(w.resource::<Stats>().moved, 8);
}

/// Every resource `Default`: `new` works, and `with_resources` overrides.
mod defaults {
    use super::{Stats, Time};

    ecs::declare_context! {
        pub context Small {
            resources { Time; Stats; }
        }
    }

    #[test]
    fn new_uses_default_values() {
        let s = Small::new();
        assert_eq!(s.resource::<Time>(), &Time::default());
        let s = Small::with_resources(
            SmallSystems {},
            SmallResources {
                time: Time { dt: 3.0, steps: 9 },
                stats: Stats::default(),
            },
        );
        assert_eq!(s.resource::<Time>().steps, 9);
    }
}

/// A resource's value is dropped once, with the context.
#[test]
fn resources_drop_with_the_context() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    #[derive(Default)]
    pub struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    ecs::declare_context! {
        context Holder {
            resources { Counted }
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let h = Holder::with_resources(
        HolderSystems {},
        HolderResources {
            counted: Counted(drops.clone()),
        },
    );
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(h);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

/// The summary and the DOT graph show resources and who reads and writes them.
#[test]
fn summary_and_dot_show_resources() {
    let w = world(1);
    let summary = w.summary();
    assert!(
        summary.contains("resources (3):\n  Time\n  Bounds\n  Stats\n"),
        "{summary}"
    );
    assert!(
        summary.contains("  tick: Tick read [] write [Time] after []\n"),
        "{summary}"
    );
    assert!(
        summary.contains("  movement: Move read [Velocity, Time] write [Position] after [tick]\n"),
        "{summary}"
    );
    let dot = w.dot(true);
    for line in [
        "\"resource Time\" [label=\"Time\\nresource\"];",
        "\"tick\" -> \"resource Time\" [style=bold];",
        "\"resource Time\" -> \"movement\" [style=dashed];",
        "\"measure\" -> \"resource Stats\" [style=bold];",
        "\"resource Bounds\" -> \"clamp\" [style=dashed];",
    ] {
        assert!(dot.contains(line), "missing {line} in\n{dot}");
    }
    // Three nodes, four edges.
    assert_eq!(dot.matches("resource ").count(), 3 + 4, "{dot}");
    // Without components, no resource either.
    assert!(!w.dot(false).contains("resource"));
}
