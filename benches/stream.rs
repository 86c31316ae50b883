//! Streaming outputs (`stream: [producer]`) against running the consumer
//! after its producer: collision detection streaming contacts to a contact
//! solver, on two threads, in one run.
//!
//! 20 000 particles (`Position`, `Velocity`, `contiguous`) against 64
//! static circular obstacles. `collide` (read `Position`, split every 256
//! entities) tests each particle against every obstacle and emits a
//! `Contact` for each overlap; `solve` (write `Velocity`, one thread: it
//! writes the velocity of whichever particle a contact names) relaxes each
//! contact over a few iterations and applies the impulse. Variants:
//!
//! - `streamed`: `solve: Solve { write: [Velocity], stream: [collide] }`,
//!   `collide`'s output an `ecs::Stream<Contact>`: the solver takes contacts
//!   while `collide`'s subtasks still run;
//! - `after`: the same systems with `after: [collide]`, `collide`'s output
//!   a `Vec<Contact>` per subtask that the solver reads once `collide` is
//!   done (`data.outputs::<Collide>()`): what one wrote before streams;
//! - `hand-written, pipelined`: the best-effort yardstick, two threads: a
//!   scoped thread detects contacts and sends them in batches of 64 through
//!   a bounded `std::sync::mpsc::sync_channel` while the caller solves;
//! - `hand-written, serial`: detection then solving on one thread, plain
//!   `Vec`s (the plain baseline);
//! - `streamed, unsplit producer` and `after, unsplit producer`: the same
//!   two with `collide` not split, where only streaming puts the second
//!   thread to work.
//!
//! Every variant's velocities are checked bit for bit against the serial
//! hand-written ones at the end: each particle's contacts come from one
//! subtask, in obstacle order, so the order across subtasks does not change
//! the result (`Consume`'s "Ordering").
//!
//! `--rounds N` (default 31). `--only VARIANT --rounds N` runs one variant
//! alone (`streamed`, `after`, `pipelined`, `serial`), to compare the CPU
//! time each burns (`/usr/bin/time`), which timing under load hides.

#[path = "support/rounds.rs"]
mod rounds;

use ecs::{Consume, Data, Stream, System};
use rounds::{Args, Variants as _};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position {
    pub x: f32,
    pub y: f32,
}
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Velocity {
    pub x: f32,
    pub y: f32,
}

/// A particle overlapping an obstacle: its id, the contact normal and the
/// depth.
#[derive(Clone, Copy, Debug)]
pub struct Contact {
    pub id: ecs::EntityId,
    pub index: u32,
    pub nx: f32,
    pub ny: f32,
    pub depth: f32,
}

const N: usize = 20_000;
const OBSTACLES: usize = 64;
const RADIUS: f32 = 0.6;
const ITERATIONS: u32 = 48;

/// The obstacles: `(x, y, r)` on a grid over the particles' square.
fn obstacles() -> Vec<(f32, f32, f32)> {
    (0..OBSTACLES)
        .map(|i| {
            let (gx, gy) = ((i % 8) as f32, (i / 8) as f32);
            (gx * 18.0 + 9.0, gy * 18.0 + 9.0, 3.0 + (i % 5) as f32)
        })
        .collect()
}

/// Particle `i`'s start.
fn start(i: usize) -> (Position, Velocity) {
    let f = i as f32;
    (
        Position {
            x: (f * 0.618_034).fract() * 144.0,
            y: (f * 0.414_213_6).fract() * 144.0,
        },
        Velocity { x: 0.0, y: 0.0 },
    )
}

/// The contacts of one particle, in obstacle order.
#[inline(always)]
fn detect(p: &Position, obstacles: &[(f32, f32, f32)], mut emit: impl FnMut(f32, f32, f32)) {
    for &(x, y, r) in obstacles {
        let (dx, dy) = (p.x - x, p.y - y);
        let d2 = dx * dx + dy * dy;
        let reach = r + RADIUS;
        if d2 < reach * reach {
            let d = d2.sqrt().max(1e-6);
            emit(dx / d, dy / d, reach - d);
        }
    }
}

/// The impulse of one contact: a few relaxation iterations, as a
/// sequential-impulse solver runs per contact.
#[inline(always)]
fn solve(v: &mut Velocity, nx: f32, ny: f32, depth: f32) {
    let mut lambda = 0.0f32;
    for _ in 0..ITERATIONS {
        let vn = (v.x + nx * lambda) * nx + (v.y + ny * lambda) * ny;
        let delta = (depth * 0.8 - vn) * 0.5;
        lambda = (lambda + delta).max(0.0);
    }
    v.x += nx * lambda;
    v.y += ny * lambda;
}

/// Detects contacts; streamed.
pub struct Collide {
    pub obstacles: Vec<(f32, f32, f32)>,
}
/// Solves contacts as they come.
#[derive(Default)]
pub struct Solve {
    pub contacts: usize,
}

impl Default for Collide {
    fn default() -> Self {
        Self { obstacles: obstacles() }
    }
}

ecs::declare_context! {
    pub context Streamed {
        settings { entities: fixed(20_000), threads: 2 }
        components { Position, Velocity: contiguous; }
        systems {
            collide: Collide { read: [Position], output: Stream<Contact>, parallelism: split_every(256) }
            solve: Solve { write: [Velocity], stream: [collide] }
        }
    }
}

ecs::declare_context! {
    /// `Streamed` with a producer that does not split: only streaming
    /// overlaps the two.
    pub context StreamedUnsplit {
        settings { entities: fixed(20_000), threads: 2 }
        components { Position, Velocity: contiguous; }
        systems {
            collide: Collide { read: [Position], output: Stream<Contact> }
            solve: Solve { write: [Velocity], stream: [collide] }
        }
    }
}

/// `Collide`'s, `Solve`'s impls for a streamed context.
macro_rules! streamed_impls {
    ($cx:ident) => {
        impl System<$cx> for Collide {
            fn process(&self, data: &mut Data<'_, $cx, Self>, _: &()) {
                // `for_each` borrows `data`, so a subtask gathers its contacts
                // and pushes them after: they leave in batches as `extend`
                // fills them.
                let found = collide(data.entities(), &self.obstacles, |f| {
                    data.for_each::<&Position>(f)
                });
                data.output().extend(found);
            }

            fn reset_output(stream: &mut Stream<Contact>) {
                stream.clear();
            }
        }

        impl System<$cx> for Solve {
            fn process(&self, _: &mut Data<'_, $cx, Self>, _: &()) {}
        }

        impl Consume<$cx, Contact> for Solve {
            fn consume(&mut self, data: &mut Data<'_, $cx, Self>, c: Contact, _: &()) {
                if let Some(v) = data.write::<Velocity>(c.id) {
                    solve(v, c.nx, c.ny, c.depth);
                }
                self.contacts += 1;
            }
        }
    };
}
streamed_impls!(Streamed);
streamed_impls!(StreamedUnsplit);

/// The contacts of the entities `ids`, whose positions `for_each` visits in
/// the same order.
#[inline(always)]
fn collide(
    ids: &[ecs::EntityId],
    obstacles: &[(f32, f32, f32)],
    for_each: impl FnOnce(&mut dyn FnMut(&Position)),
) -> Vec<Contact> {
    let mut found = Vec::new();
    let mut k = 0;
    for_each(&mut |p: &Position| {
        let id = ids[k];
        k += 1;
        detect(p, obstacles, |nx, ny, depth| {
            found.push(Contact {
                id,
                index: 0,
                nx,
                ny,
                depth,
            })
        });
    });
    found
}

/// Detects contacts; read after.
pub struct CollideAll {
    pub obstacles: Vec<(f32, f32, f32)>,
}
/// Solves contacts once they are all found.
#[derive(Default)]
pub struct SolveAfter {
    pub contacts: usize,
}

impl Default for CollideAll {
    fn default() -> Self {
        Self { obstacles: obstacles() }
    }
}

ecs::declare_context! {
    pub context After {
        settings { entities: fixed(20_000), threads: 2 }
        components { Position, Velocity: contiguous; }
        systems {
            collide: CollideAll { read: [Position], output: Vec<Contact>, parallelism: split_every(256) }
            solve: SolveAfter { write: [Velocity], after: [collide] }
        }
    }
}

ecs::declare_context! {
    /// `After` with a producer that does not split.
    pub context AfterUnsplit {
        settings { entities: fixed(20_000), threads: 2 }
        components { Position, Velocity: contiguous; }
        systems {
            collide: CollideAll { read: [Position], output: Vec<Contact> }
            solve: SolveAfter { write: [Velocity], after: [collide] }
        }
    }
}

/// `CollideAll`'s, `SolveAfter`'s impls for a context that solves after.
macro_rules! after_impls {
    ($cx:ident) => {
        impl System<$cx> for CollideAll {
            fn process(&self, data: &mut Data<'_, $cx, Self>, _: &()) {
                let found = collide(data.entities(), &self.obstacles, |f| {
                    data.for_each::<&Position>(f)
                });
                data.output().extend(found);
            }

            fn reset_output(contacts: &mut Vec<Contact>) {
                contacts.clear();
            }
        }

        impl System<$cx> for SolveAfter {
            fn process(&self, data: &mut Data<'_, $cx, Self>, _: &()) {
                let outputs = data.outputs::<CollideAll>();
                for c in outputs.iter().flatten() {
                    if let Some(v) = data.write::<Velocity>(c.id) {
                        solve(v, c.nx, c.ny, c.depth);
                    }
                }
            }

            fn after(&mut self, _: &mut [()], _: &()) {
                self.contacts += 1;
            }
        }
    };
}
after_impls!(After);
after_impls!(AfterUnsplit);

/// The hand-written versions' data.
struct Hand {
    positions: Vec<Position>,
    velocities: Vec<Velocity>,
    obstacles: Vec<(f32, f32, f32)>,
}

impl Hand {
    fn new() -> Self {
        let (positions, velocities) = (0..N).map(start).unzip();
        Hand {
            positions,
            velocities,
            obstacles: obstacles(),
        }
    }

    fn serial(&mut self) {
        let mut contacts = Vec::new();
        for (i, p) in self.positions.iter().enumerate() {
            detect(p, &self.obstacles, |nx, ny, depth| {
                contacts.push(Contact {
                    id: ecs::EntityId::from_bits(i as u32),
                    index: i as u32,
                    nx,
                    ny,
                    depth,
                })
            });
        }
        for c in &contacts {
            solve(&mut self.velocities[c.index as usize], c.nx, c.ny, c.depth);
        }
    }

    fn pipelined(&mut self) {
        let (positions, obstacles) = (&self.positions, &self.obstacles);
        let velocities = &mut self.velocities;
        std::thread::scope(|s| {
            let (send, receive) = std::sync::mpsc::sync_channel::<Vec<Contact>>(16);
            s.spawn(move || {
                let mut batch = Vec::with_capacity(64);
                for (i, p) in positions.iter().enumerate() {
                    detect(p, obstacles, |nx, ny, depth| {
                        batch.push(Contact {
                            id: ecs::EntityId::from_bits(i as u32),
                            index: i as u32,
                            nx,
                            ny,
                            depth,
                        })
                    });
                    if batch.len() >= 64 {
                        send.send(core::mem::replace(&mut batch, Vec::with_capacity(64)))
                            .unwrap();
                    }
                }
                send.send(batch).unwrap();
            });
            for batch in receive {
                for c in batch {
                    solve(&mut velocities[c.index as usize], c.nx, c.ny, c.depth);
                }
            }
        });
    }
}

const KEYS: [&str; 6] = ["streamed", "after", "pipelined", "serial", "streamed1", "after1"];

struct Variants {
    streamed: Streamed,
    after: After,
    streamed1: StreamedUnsplit,
    after1: AfterUnsplit,
    pipelined: Hand,
    serial: Hand,
}

impl rounds::Variants for Variants {
    const NAMES: &'static [&'static str] = &[
        "streamed",
        "after",
        "hand-written, pipelined",
        "hand-written, serial",
        "streamed, unsplit producer",
        "after, unsplit producer",
    ];

    fn run(&mut self, k: usize) -> Duration {
        let t = Instant::now();
        match k {
            0 => self.streamed.step(|p| p.run_all(black_box(&()))),
            1 => self.after.step(|p| p.run_all(black_box(&()))),
            2 => self.pipelined.pipelined(),
            3 => self.serial.serial(),
            4 => self.streamed1.step(|p| p.run_all(black_box(&()))),
            _ => self.after1.step(|p| p.run_all(black_box(&()))),
        }
        t.elapsed()
    }
}

impl Variants {
    fn new() -> Self {
        let mut streamed = Streamed::new();
        streamed.step(|p| p.spawn_batch((0..N).map(start)).map(drop).expect("room"));
        let mut after = After::new();
        after.step(|p| p.spawn_batch((0..N).map(start)).map(drop).expect("room"));
        let mut streamed1 = StreamedUnsplit::new();
        streamed1.step(|p| p.spawn_batch((0..N).map(start)).map(drop).expect("room"));
        let mut after1 = AfterUnsplit::new();
        after1.step(|p| p.spawn_batch((0..N).map(start)).map(drop).expect("room"));
        Variants {
            streamed,
            after,
            streamed1,
            after1,
            pipelined: Hand::new(),
            serial: Hand::new(),
        }
    }

    fn velocities(&mut self, k: usize) -> Vec<Velocity> {
        match k {
            0 => self
                .streamed
                .step(|p| p.query::<&Velocity>().map(|(_, v)| *v).collect()),
            1 => self.after.step(|p| p.query::<&Velocity>().map(|(_, v)| *v).collect()),
            2 => self.pipelined.velocities.clone(),
            3 => self.serial.velocities.clone(),
            4 => self
                .streamed1
                .step(|p| p.query::<&Velocity>().map(|(_, v)| *v).collect()),
            _ => self.after1.step(|p| p.query::<&Velocity>().map(|(_, v)| *v).collect()),
        }
    }
}

fn main() {
    let Args { rounds, only } = Args::parse(31, &KEYS);
    let mut variants = Variants::new();
    if let Some(k) = only {
        return rounds::run_only(&mut variants, k, rounds);
    }
    let medians = rounds::medians(&mut variants, rounds);
    let want = variants.velocities(3);
    for (k, name) in Variants::NAMES.iter().enumerate().filter(|&(k, _)| k != 3) {
        assert!(variants.velocities(k) == want, "`{name}` computed other velocities");
    }
    let contacts = variants.streamed.system::<Solve>().contacts / (rounds + 1);
    rounds::print_ratios::<Variants>(
        &format!(
            "collide {N} particles with {OBSTACLES} obstacles, solve {contacts} contacts, 2 threads (median of {rounds} rounds; ratio to hand-written, pipelined)"
        ),
        &medians,
        2,
    );
    println!(
        "  after / streamed: {:.2}x; unsplit producer: {:.2}x",
        medians[1].as_secs_f64() / medians[0].as_secs_f64(),
        medians[5].as_secs_f64() / medians[4].as_secs_f64()
    );
}
