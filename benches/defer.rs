//! Deferring one small closure per entity over 100 000 entities, then the
//! refresh that runs them: the inline queue every system now records into
//! (each closure moved into one reused buffer) against the boxed queue it
//! replaced (one `Box<dyn FnOnce>` per closure), in one run, as a ratio.
//!
//! The boxed variant defers the same closure behind a `Box<dyn FnOnce>`,
//! which costs what the old queue did per closure: an allocation when
//! deferred, an indirect call and a free when run. Both variants run in
//! the same context, alternating, so they see the same machine.
//!
//! `cargo bench --bench defer` (`-- --rounds N`, default 41).

#[path = "support/rounds.rs"]
mod rounds;

use ecs::{Data, Defer, System};
use std::hint::black_box;
use std::time::{Duration, Instant};

const N: u32 = 100_000;

pub struct Val(pub u32);

/// Defers one closure per entity; `boxed` chooses the queue it imitates.
#[derive(Default)]
pub struct DeferEach {
    pub boxed: bool,
}

ecs::declare_context! {
    pub context World {
        settings { entities: fixed(100_000), threads: 1 }
        components { Val: contiguous; }
        systems { defer_each: DeferEach { read: [Val] } }
    }
}

type Boxed = Box<dyn for<'d> FnOnce(&mut Defer<'d, World>) + Send>;

impl System<World> for DeferEach {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let boxed = self.boxed;
        data.for_entities::<&Val>(|view, v| {
            let v = v.0;
            let f = move |_: &mut Defer<'_, World>| {
                black_box(v);
            };
            if boxed {
                let b: Boxed = Box::new(f);
                view.defer(move |d| b(d));
            } else {
                view.defer(f);
            }
        });
    }
}

fn one_step(world: &mut World, boxed: bool) -> Duration {
    world.step(|p| p.system_mut::<DeferEach>().boxed = boxed);
    let start = Instant::now();
    world.step(|p| p.run_all(&()));
    start.elapsed()
}

fn main() {
    let rounds = rounds::Args::parse(41, &[]).rounds;
    let mut world = World::new();
    world.step(|p| {
        p.spawn_batch((0..N).map(|i| (Val(i),))).expect("room for N");
    });
    // Warm-up: the inline buffers grow to their size once.
    for _ in 0..3 {
        one_step(&mut world, false);
        one_step(&mut world, true);
    }
    let (mut inline, mut boxed) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        inline.push(one_step(&mut world, false));
        boxed.push(one_step(&mut world, true));
    }
    let (inline, boxed) = (rounds::median(inline), rounds::median(boxed));
    let ratio = boxed.as_secs_f64() / inline.as_secs_f64();
    println!("defer one closure per entity, {N} entities, run at refresh (median of {rounds} steps each)");
    println!("  inline queue: {:>8.1} µs", inline.as_secs_f64() * 1e6);
    println!("  boxed queue:  {:>8.1} µs", boxed.as_secs_f64() * 1e6);
    println!(
        "  boxed / inline: {ratio:.2}x (target >= 3x: {})",
        if ratio >= 3.0 { "met" } else { "MISSED" }
    );
}
