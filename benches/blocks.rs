//! Blocks or one entity at a time: three systems over 10 000 entities
//! created together, each walked with `for_each` (which chooses),
//! `for_each_in_blocks` and `for_each_in_place`.
//!
//! - `advance`: `position += velocity`, one written component (simple_iter);
//! - `integrate`: velocity from acceleration, then position from velocity,
//!   two written components, arithmetic on every entity;
//! - `bounce`: position and velocity written only for entities outside the
//!   box, which none of them is: a closure that branches and writes little.

use criterion::{criterion_group, criterion_main, Criterion};
use ecs::{Data, System};

#[derive(Clone, Copy)]
pub struct Position(pub [f32; 3]);
#[derive(Clone, Copy)]
pub struct Velocity(pub [f32; 3]);
#[derive(Clone, Copy)]
pub struct Acceleration(pub [f32; 3]);

const N: usize = 10_000;
const DT: f32 = 0.01;

/// Which `Data` method a system walks its entities with.
#[derive(Clone, Copy, Debug, Default)]
pub enum How {
    /// `for_each`: blocks for one small written `contiguous` component.
    #[default]
    Chosen,
    /// `for_each_in_blocks`.
    Blocks,
    /// `for_each_in_place`.
    InPlace,
}

const HOWS: [(How, &str); 3] = [
    (How::Chosen, "for_each"),
    (How::Blocks, "for_each_in_blocks"),
    (How::InPlace, "for_each_in_place"),
];

/// Walks the system's entities with `$how`, calling `$f` with each item.
macro_rules! walk {
    ($data:expr, $how:expr, $q:ty, $f:expr) => {
        match $how {
            How::Chosen => $data.for_each::<$q>($f),
            How::Blocks => $data.for_each_in_blocks::<$q>($f),
            How::InPlace => $data.for_each_in_place::<$q>($f),
        }
    };
}

#[derive(Default)]
pub struct Advance(pub How);
#[derive(Default)]
pub struct Integrate(pub How);
#[derive(Default)]
pub struct Bounce(pub How);

ecs::declare_context! {
    pub context Advancing {
        settings { entities: fixed(10_000), threads: 1 }
        components { Position, Velocity, Acceleration: contiguous; }
        systems { advance: Advance { read: [Velocity], write: [Position] } }
    }
}

ecs::declare_context! {
    pub context Integrating {
        settings { entities: fixed(10_000), threads: 1 }
        components { Position, Velocity, Acceleration: contiguous; }
        systems { integrate: Integrate { read: [Acceleration], write: [Position, Velocity] } }
    }
}

ecs::declare_context! {
    pub context Bouncing {
        settings { entities: fixed(10_000), threads: 1 }
        components { Position, Velocity, Acceleration: contiguous; }
        systems { bounce: Bounce { write: [Position, Velocity] } }
    }
}

impl System<Advancing> for Advance {
    fn process(&self, data: &mut Data<'_, Advancing, Self>, _: &()) {
        walk!(data, self.0, (&mut Position, &Velocity), |(p, v)| {
            for k in 0..3 {
                p.0[k] += v.0[k];
            }
        });
    }
}

impl System<Integrating> for Integrate {
    fn process(&self, data: &mut Data<'_, Integrating, Self>, _: &()) {
        walk!(data, self.0, (&mut Position, &mut Velocity, &Acceleration), |(
            p,
            v,
            a,
        )| {
            for k in 0..3 {
                v.0[k] += a.0[k] * DT;
                p.0[k] += v.0[k] * DT;
            }
        });
    }
}

impl System<Bouncing> for Bounce {
    fn process(&self, data: &mut Data<'_, Bouncing, Self>, _: &()) {
        walk!(data, self.0, (&mut Position, &mut Velocity), |(p, v)| {
            for k in 0..3 {
                if !(-1e9..=1e9).contains(&p.0[k]) {
                    v.0[k] = -v.0[k];
                    p.0[k] = p.0[k].clamp(-1e9, 1e9);
                }
            }
        });
    }
}

/// A context of type `$world` holding the 10 000 entities, matched.
macro_rules! world {
    ($world:ty) => {{
        let mut world = <$world>::new();
        world.step(|p| {
            let bundles = (0..N).map(|i| {
                let x = i as f32;
                (
                    Position([x, 0.0, 0.0]),
                    Velocity([1.0, 0.5, 0.0]),
                    Acceleration([0.0, -1.0, 0.0]),
                )
            });
            p.spawn_batch(bundles).expect("room").count()
        });
        // Matched once, so that each measured step only runs the system.
        world.step(|p| p.run_all(&()));
        world
    }};
}

/// Measures one step running `$system` of a `$world`, walked each way.
macro_rules! measure {
    ($group:expr, $world:ty, $system:ident, $name:expr) => {{
        let mut world = world!($world);
        for (how, walked) in HOWS {
            world.system_mut::<$system>().0 = how;
            $group.bench_function(format!("{}, {walked}", $name), |b| {
                b.iter(|| world.step(|p| p.run_all(&())));
            });
        }
    }};
}

fn walking(c: &mut Criterion) {
    let mut group = c.benchmark_group("10 000 entities");
    measure!(group, Advancing, Advance, "advance");
    measure!(group, Integrating, Integrate, "integrate");
    measure!(group, Bouncing, Bounce, "bounce");
    group.finish();
}

criterion_group!(benches, walking);
criterion_main!(benches);
