//! A diagnosis of `fragmented_churn`'s sensitivity to code placement
//! (BENCHMARKS.md, "fragmented_churn and code placement"): the workload's
//! step (1 000 entities toggle `F0` through `entity_mut`, then Move)
//! compiled 64 times, each copy's body starting `K` bytes past a 64-byte
//! boundary (a jump over `.p2align 6` and `.skip K`, K = 0..63). Built with
//! `-align-loops=1`, so that the loop is not re-aligned to 16 bytes, the
//! copies' loops lie at every byte offset modulo 64 (and at 64 different
//! addresses). Each copy is timed in turn, in rounds, on one context; the
//! minimum over rounds of each copy's mean step time is printed.
//!
//! Modes: `same` (the workload: each step toggles the same entities, so
//! the toggle's branch repeats its pattern every two steps), `random`
//! (before each timed step an untimed one toggles each of those entities
//! with probability 1/2: the timed step's pattern is new each time) and
//! `touch` (the control: the untimed step toggles each twice, the same
//! work as `random`'s with the pattern left as `same` has it).
//!
//! ```sh
//! cargo rustc --release --manifest-path benches/peers/Cargo.toml --example churn_placement -- -C llvm-args=-align-loops=1
//! benches/peers/target/release/examples/churn_placement [ROUNDS] [same|random|touch]
//! ```

use ecs::{Data, Entity, System};
use std::hint::black_box;
use std::time::Instant;

#[path = "common/fragmented_data.rs"]
mod data;
#[macro_use]
#[path = "common/place.rs"]
mod place;
use data::{filler, spec, Pos, Vel, CHURN_STEP, ENTITIES, F0, F1, F2, F3, F4, F5};

#[inline(always)]
fn advance(p: &mut Pos, v: &Vel) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
}

#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context Frags {
        settings { entities: fixed(100_000), threads: 1, layout: archetypes }
        components { Pos, Vel, F0, F1, F2, F3, F4, F5: contiguous; }
        systems { movement: Move { read: [Vel], write: [Pos] } }
    }
}

impl System<Frags> for Move {
    fn process(&self, data: &mut Data<'_, Frags, Self>, _: &()) {
        data.for_each::<(&mut Pos, &Vel)>(|(p, v)| advance(p, v));
    }
}

fn setup() -> (Frags, Vec<(usize, Entity)>) {
    let mut cx = Frags::new();
    let churned = cx.step(|p| data::populate!(p));
    (cx, churned)
}

/// Lines of padding added before every copy's body: another value moves
/// every copy by a multiple of 64 bytes (another layout of the same code).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const SHIFT: usize = 0;

/// The workload's step, its body starting `K` bytes past a 64-byte boundary.
#[inline(never)]
fn step<const K: usize>(cx: &mut Frags, churned: &[(usize, Entity)]) {
    place!(K + 64 * SHIFT);
    cx.step(|p| {
        for &(i, e) in churned {
            let mut m = p.entity_mut(e).unwrap();
            if m.remove::<F0>().is_none() {
                m.add(F0(filler(i, 0)));
            }
        }
        p.run_all(&());
    });
}

type StepFn = fn(&mut Frags, &[(usize, Entity)]);

fn main() {
    let rounds: usize = std::env::args().nth(1).map_or(15, |s| s.parse().unwrap());
    macro_rules! steps {
        ($($k:literal)*) => { [$(($k, step::<$k> as StepFn)),*] };
    }
    let steps: [(usize, StepFn); 64] = steps!(
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    );
    let (mut cx, churned) = setup();
    const ITERATIONS: usize = 400;
    // `random`: before each timed step, an untimed one toggles each of the
    // same entities with probability 1/2, so that the timed step's toggles
    // take their branch in a pattern no earlier step showed (the same
    // entities, in the same order, as the workload).
    // `touch`, the control: the untimed step toggles each twice (no set
    // changes), the same work as `random`'s but the timed step's pattern
    // unchanged.
    let mode = std::env::args().nth(2).unwrap_or_default();
    let (random, touch) = (mode == "random", mode == "touch");
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut scramble = |cx: &mut Frags| {
        if !random && !touch {
            return;
        }
        cx.step(|p| {
            for &(i, e) in &churned {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                for _ in 0..(if touch { 2 } else { x & 1 }) {
                    let mut m = p.entity_mut(e).unwrap();
                    if m.remove::<F0>().is_none() {
                        m.add(F0(filler(i, 0)));
                    }
                }
            }
        });
    };
    let mut best = [f64::INFINITY; 64];
    for _ in 0..rounds {
        for (slot, &(_, f)) in steps.iter().enumerate() {
            // Warm up: an even count, so each copy starts from the same sets.
            for _ in 0..20 {
                f(&mut cx, &churned);
            }
            let mut total = std::time::Duration::ZERO;
            for _ in 0..ITERATIONS {
                scramble(&mut cx);
                let t = Instant::now();
                f(&mut cx, &churned);
                total += t.elapsed();
            }
            let us = total.as_secs_f64() * 1e6 / ITERATIONS as f64;
            best[slot] = best[slot].min(us);
        }
    }
    black_box(&cx);
    for (slot, &(k, _)) in steps.iter().enumerate() {
        println!("K={k:2} {:.2} us", best[slot]);
    }
}
