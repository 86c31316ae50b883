//! A context starts its worker threads the first time a step has work to
//! hand them, not when it is created: creating a context with default
//! settings costs no thread (Linux: threads are counted by their names in
//! `/proc/self/task/*/comm`).
#![cfg(target_os = "linux")]

use ecs::{Adapters, Data, System};
use std::time::{Duration, Instant};

#[derive(Clone, Copy)]
pub struct A(pub u32);
#[derive(Clone, Copy)]
pub struct B(pub u32);

#[derive(Default)]
pub struct One;
#[derive(Default)]
pub struct Two;
#[derive(Default)]
pub struct Halves;

ecs::declare_context! {
    /// Two independent systems.
    pub context Lazy {
        settings { threads: 2 }
        components { A, B: contiguous; }
        systems {
            one: One { write: [A] }
            two: Two { write: [B] }
        }
    }
}

ecs::declare_context! {
    /// One system, split in two.
    pub context Parts {
        settings { threads: 2, inner_parallelism: allow }
        components { A: contiguous; }
        systems { halves: Halves { write: [A], parallelism: split_every(8) } }
    }
}

ecs::declare_context! {
    /// Default settings (a thread per core) and no systems: the peers'
    /// `simple_insert`.
    pub context Bare {
        components { A: contiguous; }
    }
}

impl System<Lazy> for One {
    fn process(&self, data: &mut Data<'_, Lazy, Self>, _: &()) {
        data.for_each::<&mut A>(|a| a.0 += 1);
    }
}
impl System<Lazy> for Two {
    fn process(&self, data: &mut Data<'_, Lazy, Self>, _: &()) {
        data.for_each::<&mut B>(|b| b.0 += 1);
    }
}
impl System<Parts> for Halves {
    fn process(&self, data: &mut Data<'_, Parts, Self>, _: &()) {
        data.for_each::<&mut A>(|a| a.0 += 1);
    }
}

/// Threads of this process: a thread shows here as soon as its spawn
/// returns.
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

/// Whether a thread named `{context}-worker-0` runs; waits up to 10 s for
/// it, since a new thread names itself once it runs.
fn named_worker(context: &str) -> bool {
    let name = format!("{context}-worker-0\n");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let found = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
            .any(|comm| comm == name);
        if found || Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

// One test, so that no other test's threads come and go while it counts.
#[test]
fn workers_start_when_a_step_first_has_work_for_them() {
    let baseline = threads();

    // Default settings (a thread per core), no systems: never a thread.
    for _ in 0..3 {
        let mut ctx = Bare::new();
        ctx.step(|p| {
            for i in 0..1000 {
                p.spawn((A(i),)).unwrap();
            }
        });
        assert_eq!(threads(), baseline, "a context without systems starts no thread");
    }

    // Two independent systems.
    let mut lazy = Lazy::new();
    assert_eq!(lazy.threads(), 2);
    assert_eq!(threads(), baseline, "creating a context starts no thread");
    lazy.step(|p| {
        for i in 0..100 {
            p.spawn((A(i), B(i))).unwrap();
        }
    });
    // One system alone: nothing to hand a helper.
    lazy.step(|p| p.run_adapted(&Adapters::new().system::<One>(|_, data| data.for_each::<&mut A>(|a| a.0 += 1))));
    assert_eq!(threads(), baseline, "a step with no work for helpers starts no thread");
    // Two systems ready at once: the worker starts, once.
    lazy.step(|p| p.run_all(&()));
    assert_eq!(threads(), baseline + 1);
    assert!(named_worker("Lazy"));
    lazy.step(|p| p.run_all(&()));
    assert_eq!(threads(), baseline + 1, "started once");

    // One system, split when it has more than 8 entities.
    let mut parts = Parts::new();
    parts.step(|p| {
        for i in 0..4 {
            p.spawn((A(i),)).unwrap();
        }
    });
    parts.step(|p| p.run_all(&()));
    assert_eq!(threads(), baseline + 1, "four entities: one subtask, no helper");
    parts.step(|p| {
        for i in 0..12 {
            p.spawn((A(i),)).unwrap();
        }
    });
    parts.step(|p| p.run_all(&()));
    assert_eq!(threads(), baseline + 2, "two subtasks: the worker starts");
    assert!(named_worker("Parts"));
}
