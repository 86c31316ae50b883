//! What a system walk costs per entity over a `many` component whose
//! entities each hold one instance, against the same values `contiguous`:
//! per instance (`many`, `Data::for_each_instance`) and per entity
//! (`many-view`, the `InstancesMut` query), and both with every 10th
//! entity holding 3 instances (`many-mix`, `many-view-mix`).
//!
//! ```sh
//! cargo build --release --manifest-path benches/drivers/Cargo.toml
//! valgrind --tool=callgrind benches/drivers/target/release/many_walk many 20000
//! valgrind --tool=callgrind benches/drivers/target/release/many_walk many 40000
//! ```
//!
//! Each run creates the entities, then runs the system `STEPS` times; the
//! cost per entity and step is (count at 2N - count at N) / (N * STEPS)
//! minus the same difference for the creation alone (`... many-setup N`).

use ecs::{Data, InstancesMut, Many, System};
use std::hint::black_box;

const STEPS: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos(pub f32);
/// The instance type, `many` in one context, `contiguous` in the other.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Emitter(pub f32);

#[derive(Default)]
pub struct Emit;

mod many {
    use super::*;

    ecs::declare_context! {
        pub context Ctx {
            settings { entities: dynamic(1024), threads: 1 }
            components { Emitter: many; Pos: contiguous; }
            systems { emit: Emit { read: [Pos], write: [Emitter] } }
        }
    }

    /// The argument: `true` to walk entity by entity through their
    /// instances, `false` to walk each instance.
    impl System<Ctx, bool> for Emit {
        fn process(&self, data: &mut Data<'_, Ctx, Self>, &view: &bool) {
            if view {
                data.for_each::<(InstancesMut<Emitter>, &Pos)>(|(mut set, p)| {
                    for e in set.iter_mut() {
                        e.0 += p.0;
                    }
                });
            } else {
                data.for_each_instance::<&mut Emitter, &Pos>(|e, p| e.0 += p.0);
            }
        }
    }

    /// `n` entities of one instance each, or (`mix`) every 10th with 3;
    /// `steps` runs of the per-instance walk, or (`view`) of the
    /// per-entity one.
    pub fn run(n: usize, steps: usize, mix: bool, view: bool) -> f32 {
        let mut cx = Ctx::new();
        cx.step(|p| {
            for i in 0..n {
                let e = p.spawn((Many::new(Emitter(0.0)), Pos(i as f32))).unwrap();
                if mix && i % 10 == 0 {
                    p.add_instance(e, Emitter(1.0)).unwrap();
                    p.add_instance(e, Emitter(2.0)).unwrap();
                }
            }
        });
        for _ in 0..steps {
            cx.step(|p| p.run_all(&view));
        }
        cx.step(|p| {
            let es: Vec<_> = p.query::<&Many<Emitter>>().map(|(e, _)| e).collect();
            es.iter().flat_map(|&e| p.instances::<Emitter>(e).unwrap().to_vec()).map(|e| e.0).sum()
        })
    }
}

mod plain {
    use super::*;

    ecs::declare_context! {
        pub context Ctx {
            settings { entities: dynamic(1024), threads: 1 }
            components { Emitter, Pos: contiguous; }
            systems { emit: Emit { read: [Pos], write: [Emitter] } }
        }
    }

    impl System<Ctx> for Emit {
        fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
            data.for_each::<(&mut Emitter, &Pos)>(|(e, p)| e.0 += p.0);
        }
    }

    pub fn run(n: usize, steps: usize) -> f32 {
        let mut cx = Ctx::new();
        cx.step(|p| {
            for i in 0..n {
                p.spawn((Emitter(0.0), Pos(i as f32))).unwrap();
            }
        });
        for _ in 0..steps {
            cx.step(|p| p.run_all(&()));
        }
        cx.step(|p| p.query::<&Emitter>().map(|(_, e)| e.0).sum())
    }
}

/// Hand-written walks over candidate layouts of one instance per entity
/// (outside the library, same values and closure): what a layout costs
/// before any machinery.
mod hand {
    use super::*;

    /// The first instance inline, the others behind an optional box: a
    /// branch per entity.
    pub struct Inline {
        first: Emitter,
        #[expect(
            clippy::box_collection,
            reason = "one pointer beside the first instance, not a `Vec`'s three words"
        )]
        more: Option<Box<Vec<Emitter>>>,
    }

    pub fn inline_first(n: usize, steps: usize) -> f32 {
        let pos: Vec<Pos> = (0..n).map(|i| Pos(i as f32)).collect();
        let mut sets: Vec<Inline> = (0..n)
            .map(|_| Inline {
                first: Emitter(0.0),
                more: None,
            })
            .collect();
        for _ in 0..steps {
            for (set, p) in black_box(&mut sets).iter_mut().zip(&pos) {
                set.first.0 += p.0;
                if let Some(more) = &mut set.more {
                    for e in more.iter_mut() {
                        e.0 += p.0;
                    }
                }
            }
        }
        sets.iter().map(|s| s.first.0).sum()
    }

    /// The first instances in a plain id-indexed column, one bit per entity
    /// saying it has more (kept in an overflow of (id, instance) pairs):
    /// blocks of 8 entities with no bit set walk the column as a plain
    /// column is walked; the overflow is walked after, per instance.
    pub fn split_column(n: usize, steps: usize) -> f32 {
        let pos: Vec<Pos> = (0..n).map(|i| Pos(i as f32)).collect();
        let mut first: Vec<Emitter> = (0..n).map(|_| Emitter(0.0)).collect();
        let more_bits: Vec<u8> = vec![0; n.div_ceil(8)];
        let mut overflow: Vec<(u32, Emitter)> = Vec::new();
        for _ in 0..steps {
            let first = black_box(&mut first);
            let (fc, fr) = first.as_chunks_mut::<8>();
            let (pc, _) = pos.as_chunks::<8>();
            for ((f, p), &bits) in fc.iter_mut().zip(pc).zip(&more_bits) {
                // The more bits only say where the overflow has instances;
                // the walk over first instances is the same either way.
                black_box(bits);
                for j in 0..8 {
                    f[j].0 += p[j].0;
                }
            }
            for (k, e) in fr.iter_mut().enumerate() {
                e.0 += pos[fc.len() * 8 + k].0;
            }
            for (id, e) in black_box(&mut overflow).iter_mut() {
                e.0 += pos[*id as usize].0;
            }
        }
        first.iter().map(|e| e.0).sum()
    }

    /// A plain column, the yardstick.
    pub fn plain(n: usize, steps: usize) -> f32 {
        let pos: Vec<Pos> = (0..n).map(|i| Pos(i as f32)).collect();
        let mut es: Vec<Emitter> = (0..n).map(|_| Emitter(0.0)).collect();
        for _ in 0..steps {
            for (e, p) in black_box(&mut es).iter_mut().zip(&pos) {
                e.0 += p.0;
            }
        }
        es.iter().map(|e| e.0).sum()
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_else(|| "many".into());
    let n: usize = args.next().map_or(20_000, |s| s.parse().unwrap());
    let sum = match what.as_str() {
        "many" => many::run(n, STEPS, false, false),
        "many-setup" => many::run(n, 0, false, false),
        "many-view" => many::run(n, STEPS, false, true),
        "many-view-setup" => many::run(n, 0, false, true),
        "many-mix" => many::run(n, STEPS, true, false),
        "many-mix-setup" => many::run(n, 0, true, false),
        "many-view-mix" => many::run(n, STEPS, true, true),
        "many-view-mix-setup" => many::run(n, 0, true, true),
        "plain" => plain::run(n, STEPS),
        "plain-setup" => plain::run(n, 0),
        "hand-inline" => hand::inline_first(n, STEPS),
        "hand-inline-setup" => hand::inline_first(n, 0),
        "hand-split" => hand::split_column(n, STEPS),
        "hand-split-setup" => hand::split_column(n, 0),
        "hand-plain" => hand::plain(n, STEPS),
        "hand-plain-setup" => hand::plain(n, 0),
        _ => panic!("many, many-view, many-mix, many-view-mix, plain, hand-inline, hand-split or hand-plain, each with -setup"),
    };
    println!("{what} {n}: {}", black_box(sum));
}
