//! Creating 10 000 entities of four components (the peers' simple_insert
//! bundle) in a fresh fixed-size context: `spawn` one by one against one
//! `spawn_batch`, context creation and drop included.

use criterion::{black_box, criterion_group, criterion_main, Criterion};

#[derive(Clone, Copy)]
pub struct Transform(pub [f32; 16]);
#[derive(Clone, Copy)]
pub struct Position(pub [f32; 3]);
#[derive(Clone, Copy)]
pub struct Rotation(pub [f32; 3]);
#[derive(Clone, Copy)]
pub struct Velocity(pub [f32; 3]);

const N: usize = 10_000;

ecs::declare_context! {
    pub context World {
        settings { entities: fixed(10_000), threads: 1 }
        components { Transform, Position, Rotation, Velocity: contiguous; }
    }
}

fn bundle(i: usize) -> (Transform, Position, Rotation, Velocity) {
    let x = i as f32;
    (
        Transform([x; 16]),
        Position([x, 0.0, 0.0]),
        Rotation([0.0; 3]),
        Velocity([1.0; 3]),
    )
}

fn spawning(c: &mut Criterion) {
    let mut group = c.benchmark_group("spawn 10 000 entities");
    group.bench_function("spawn one by one", |b| {
        b.iter(|| {
            let mut world = World::new();
            world.step(|p| {
                for i in 0..N {
                    p.spawn(bundle(i)).expect("room for N");
                }
            });
            black_box(world)
        })
    });
    group.bench_function("spawn_batch", |b| {
        b.iter(|| {
            let mut world = World::new();
            world.step(|p| {
                p.spawn_batch((0..N).map(bundle)).expect("room for N");
            });
            black_box(world)
        })
    });
    group.finish();
}

criterion_group!(benches, spawning);
criterion_main!(benches);
