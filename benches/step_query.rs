//! Queries on the step proxy against a system's `for_each` and a
//! hand-written loop: `position += velocity` over 10 000 entities created
//! together (so one run of ids), and over the same entities when every
//! tenth lacks `Velocity` (runs of 9).
//!
//! `cargo bench --bench step_query`

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::{Data, System};

#[derive(Clone, Copy)]
pub struct Position(pub [f32; 3]);
#[derive(Clone, Copy)]
pub struct Velocity(pub [f32; 3]);

const N: usize = 10_000;

#[derive(Default)]
pub struct Advance;

ecs::declare_context! {
    pub context World {
        settings { entities: fixed(10_000), threads: 1 }
        components { Position, Velocity: contiguous; }
        systems { advance: Advance { read: [Velocity], write: [Position] } }
    }
}

impl System<World> for Advance {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_each::<(&mut Position, &Velocity)>(|(p, v)| {
            for k in 0..3 {
                p.0[k] += v.0[k];
            }
        });
    }
}

/// The entities, every `gap`-th without `Velocity` (none when 0), matched.
fn world(gap: usize) -> World {
    let mut world = World::new();
    world.step(|p| {
        for i in 0..N {
            let e = p.spawn((Position([i as f32, 0.0, 0.0]),)).unwrap();
            if gap == 0 || i % gap != 0 {
                p.add(e, Velocity([1.0, 0.5, 0.0])).unwrap();
            }
        }
    });
    world.step(|p| p.run_all(&()));
    world
}

fn advance(c: &mut Criterion) {
    for (gap, name) in [
        (0, "10 000 entities"),
        (10, "10 000 entities, every tenth without velocity"),
    ] {
        let mut group = c.benchmark_group(name);
        let mut w = world(gap);
        group.bench_function("system for_each", |b| b.iter(|| w.step(|p| p.run_all(&()))));
        group.bench_function("step for_each", |b| {
            b.iter(|| {
                w.step(|p| {
                    p.for_each::<(&mut Position, &Velocity)>(|(p, v)| {
                        for k in 0..3 {
                            p.0[k] += v.0[k];
                        }
                    })
                })
            })
        });
        group.bench_function("step query_mut", |b| {
            b.iter(|| {
                w.step(|p| {
                    for (_, (p, v)) in p.query_mut::<(&mut Position, &Velocity)>() {
                        for k in 0..3 {
                            p.0[k] += v.0[k];
                        }
                    }
                })
            })
        });
        if gap == 0 {
            let mut ps = vec![Position([0.0; 3]); N];
            let vs = vec![Velocity([1.0, 0.5, 0.0]); N];
            group.bench_function("hand-written", |b| {
                b.iter(|| {
                    for (p, v) in ps.iter_mut().zip(&vs) {
                        for k in 0..3 {
                            p.0[k] += v.0[k];
                        }
                    }
                    criterion::black_box(&mut ps);
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, advance);
criterion_main!(benches);
