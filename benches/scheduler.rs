//! Scheduling overhead per step, against hand-written rayon doing the same
//! work on a pool of the same size (2 threads):
//! - 1, 8 and 32 independent empty systems;
//! - one system over 10, 1 000 and 100 000 entities, split per core.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use ecs::{Data, System};
use rayon::prelude::*;

#[derive(Clone, Copy)]
pub struct Value(pub f32);

macro_rules! empty_systems {
    ($ctx:ident: $($name:ident: $ty:ident),*) => {
        $( #[derive(Default)] pub struct $ty; )*
        ecs::declare_context! {
            pub context $ctx {
                settings { threads: 2 }
                components { Value: contiguous; }
                systems { $( $name: $ty {} )* }
            }
        }
        $(
            impl System<$ctx> for $ty {
                fn process(&self, data: &mut Data<'_, $ctx, Self>, _: &()) {
                    black_box(data.entity_count());
                }
            }
        )*
    };
}

mod one {
    use super::*;
    empty_systems!(Ctx: s0: S0);
}
mod eight {
    use super::*;
    empty_systems!(Ctx: s0: S0, s1: S1, s2: S2, s3: S3, s4: S4, s5: S5, s6: S6, s7: S7);
}
mod thirty_two {
    use super::*;
    empty_systems!(Ctx: s0: S0, s1: S1, s2: S2, s3: S3, s4: S4, s5: S5, s6: S6, s7: S7,
        s8: S8, s9: S9, s10: S10, s11: S11, s12: S12, s13: S13, s14: S14, s15: S15,
        s16: S16, s17: S17, s18: S18, s19: S19, s20: S20, s21: S21, s22: S22, s23: S23,
        s24: S24, s25: S25, s26: S26, s27: S27, s28: S28, s29: S29, s30: S30, s31: S31);
}

#[derive(Default)]
pub struct Bump;

ecs::declare_context! {
    pub context Split {
        settings { threads: 2 }
        components { Value: contiguous; }
        systems { bump: Bump { write: [Value], parallelism: split_evenly_per_core } }
    }
}

impl System<Split> for Bump {
    fn process(&self, data: &mut Data<'_, Split, Self>, _: &()) {
        data.for_each::<&mut Value>(|v| v.0 += 1.0);
    }
}

fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap()
}

fn empty(c: &mut Criterion) {
    let mut g = c.benchmark_group("empty_systems");
    let pool = pool();
    macro_rules! case {
        ($n:expr, $ctx:ty) => {
            let mut ctx = <$ctx>::new();
            g.bench_function(BenchmarkId::new("ecs", $n), |b| {
                b.iter(|| ctx.step(|p| p.run_all(&())))
            });
            g.bench_function(BenchmarkId::new("rayon", $n), |b| {
                b.iter(|| {
                    pool.install(|| {
                        rayon::scope(|s| {
                            for i in 0..$n {
                                s.spawn(move |_| {
                                    black_box(i);
                                });
                            }
                        })
                    })
                })
            });
        };
    }
    case!(1, one::Ctx);
    case!(8, eight::Ctx);
    case!(32, thirty_two::Ctx);
    g.finish();
}

fn split(c: &mut Criterion) {
    let mut g = c.benchmark_group("one_system_split_per_core");
    let pool = pool();
    for n in [10usize, 1_000, 100_000] {
        let mut ctx = Split::new();
        ctx.step(|p| {
            for _ in 0..n {
                p.spawn((Value(0.0),)).unwrap();
            }
        });
        g.bench_function(BenchmarkId::new("ecs", n), |b| b.iter(|| ctx.step(|p| p.run_all(&()))));
        let mut values = vec![Value(0.0); n];
        g.bench_function(BenchmarkId::new("rayon", n), |b| {
            b.iter(|| {
                let chunk = n.div_ceil(2).max(1);
                pool.install(|| {
                    values
                        .par_chunks_mut(chunk)
                        .for_each(|c| c.iter_mut().for_each(|v| v.0 += 1.0))
                })
            })
        });
    }
    g.finish();
}

criterion_group!(benches, empty, split);
criterion_main!(benches);
