//! `System::reset_output`'s default replaces each subtask's output with
//! `Default::default()` before every run, on the one-subtask path
//! (`run_body!`) and on the split path (`ArgsSubtask::run`), and drops the
//! last run's output when it does.

use ecs::{Data, System};
use std::sync::Arc;

#[derive(Clone, Copy)]
pub struct Pos(pub f32);

#[derive(Default)]
pub struct One;
#[derive(Default)]
pub struct Split;

ecs::declare_context! {
    pub context World {
        settings { threads: 2 }
        components { Pos: contiguous; }
        systems {
            one: One { read: [Pos], output: Vec<Arc<()>> }
            split: Split { read: [Pos], output: Vec<Arc<()>>, parallelism: split_every(2) }
        }
    }
}

/// Pushes one clone of `token` per entity the subtask walks.
macro_rules! push_each {
    ($data:expr, $token:expr) => {{
        let mut n = 0;
        $data.for_each::<&Pos>(|_| n += 1);
        for _ in 0..n {
            $data.output().push($token.clone());
        }
    }};
}

impl System<World, Arc<()>> for One {
    fn process(&self, data: &mut Data<'_, World, Self>, token: &Arc<()>) {
        push_each!(data, token);
    }
}

impl System<World, Arc<()>> for Split {
    fn process(&self, data: &mut Data<'_, World, Self>, token: &Arc<()>) {
        push_each!(data, token);
    }
}

#[test]
fn each_run_starts_from_default_outputs_and_drops_the_last() {
    let mut world = World::new();
    world.step(|p| {
        for i in 0..5 {
            p.spawn((Pos(i as f32),)).unwrap();
        }
    });
    let token = Arc::new(());
    for run in 1..=3 {
        world.step(|p| p.run_all(&token));
        let one: usize = world.outputs::<One>().iter().map(Vec::len).sum();
        let split: usize = world.outputs::<Split>().iter().map(Vec::len).sum();
        assert_eq!((one, split), (5, 5), "run {run}: outputs start empty");
        assert!(world.outputs::<Split>().len() > 1, "the split system split");
        // One per entity and system: the last run's clones were dropped.
        assert_eq!(Arc::strong_count(&token), 1 + 10, "run {run}");
    }
    drop(world);
    assert_eq!(Arc::strong_count(&token), 1);
}
