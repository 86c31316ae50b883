//! A column step beside entity systems: ordered with them, split across
//! threads, with an output, run by `run_all`, `run_from` and an adapter.

use ecs::{ColumnSystem, Columns, Data, System};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Velocity(pub f32);

#[derive(Default)]
pub struct Integrate;
#[derive(Default)]
pub struct Draw;

ecs::declare_context! {
    pub context World {
        settings { threads: 2 }
        components { Position, Velocity: contiguous; }
        systems {
            integrate: Integrate {
                kind: columns,
                read: [Velocity],
                write: [Position],
                parallelism: split_evenly_per_core,
                output: usize,
            }
            draw: Draw { read: [Position], after: [integrate], output: f32 }
        }
    }
}

impl ColumnSystem<World> for Integrate {
    fn process(&self, columns: &mut Columns<'_, World, Self>, _: &()) {
        let mut n = 0;
        columns.for_each_run::<(&mut Position, &Velocity)>(|(p, v)| {
            for (p, v) in p.iter_mut().zip(v) {
                p.0 += v.0;
            }
            n += p.len();
        });
        *columns.output() = n;
    }
}

impl System<World> for Draw {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let n: usize = data.outputs::<Integrate>().iter().sum();
        let mut sum = 0.0;
        data.for_each::<&Position>(|p| sum += p.0);
        *data.output() = sum + n as f32;
    }
}

fn main() {
    let mut w = World::new();
    w.step(|p| {
        for i in 0..100 {
            p.spawn((Position(i as f32), Velocity(1.0))).unwrap();
        }
    });
    w.step(|p| p.run_all(&()));
    w.step(|p| p.run_from::<(Integrate,), ()>(&()));
    w.step(|p| {
        p.run_adapted(&ecs::Adapters::new().columns::<Integrate>(|_, columns| {
            columns.for_each_run::<&mut Position>(|p| p.iter_mut().for_each(|p| p.0 += 1.0));
        }))
    });
    let sum: f32 = w.outputs::<Draw>().iter().sum();
    assert_eq!(sum, (0..100).map(|i| i as f32 + 2.0).sum::<f32>() + 100.0);
    assert!(w.summary().contains("integrate: Integrate (column step)"));
}
