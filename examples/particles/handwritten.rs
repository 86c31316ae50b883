//! The same simulation written by hand, as the reference for what the
//! library costs: one `Vec` per component, indexed by particle, and the
//! best scheduling we could write for each mode, on a rayon pool of
//! `threads` workers that runs each step whole (one hand-over per step).
//! A system is split as the library splits it, and its pieces are shared
//! as the library's team shares subtasks: each piece is claimed once, the
//! thread that splits a system taking pieces from the first and the others
//! from the last, the splitting thread starting at once and offering a
//! runner to the other workers
//! (`rayon::join`), which it takes back if none has started it, so no
//! thread waits for one that is late; each piece pushes to an output
//! buffer taken out of the shared list and put back at the end, as the
//! library's subtasks do (pushing in place, two threads wrote the lengths
//! of neighbouring `Vec`s, which share a cache line: `spatial_partition`
//! took 2.5x and `render` 1.75x as long at 200 000 particles). The pool's
//! other workers stay awake through the whole step, polling for work, as
//! the library's helpers stay through a step's sequential parts
//! ([`with_workers_awake`]).
//!
//! - Inner parallelism off: `life` and `fade` run beside the chain from
//!   `acceleration` to `solve_contacts` (`rayon::join`), each system in one
//!   piece; `render` follows both.
//! - Inner parallelism on: every system except `solve_contacts` is split
//!   in one piece per thread (`split_evenly_per_core`), `collision` in
//!   blocks of [`COLLISION_BLOCK`] particles (`split_every`), one system
//!   after another, each waiting for the last, as the systems'
//!   dependencies say; `life` and `fade`, which no system of the chain
//!   depends on, run beside the grid's fill, the one sequential step they
//!   can overlap. Each piece has its own output buffer, read back in
//!   piece order, so the result does not depend on the number of threads
//!   or on which thread ran a piece. (An earlier version split every
//!   system in chunks of 8 192 particles claimed from a shared counter,
//!   one `rayon::scope` per system, and the next one halved each system's
//!   pieces with `rayon::join` and pushed to its outputs in place: the
//!   library beat both with inner parallelism.)
//! - Dead particles are swap-removed at the end of the step, from the back.
//!   A particle's index is its id for the grid and the contacts, and it is
//!   the id the library gives it, since the library packs ids the same way
//!   when it reclaims entities: both versions compute the same particles
//!   bit for bit, to the end of a wave.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::sim::{
    accelerate, advance, age, cells_of, fade, fan, fan_table, keep_in_bounds, solve, touching, Acceleration, CellEntry,
    Circle, Color, Contact, Grid, Life, Particle, Position, Simulation, Velocity, Vertex, COLLISION_BLOCK, DT,
    VERTICES_PER_PARTICLE,
};

/// The hand-written simulation.
pub struct Handwritten {
    /// The threads that run the steps.
    pool: Arc<rayon::ThreadPool>,
    threads: usize,
    inner_parallelism: bool,
    position: Vec<Position>,
    velocity: Vec<Velocity>,
    acceleration: Vec<Acceleration>,
    color: Vec<Color>,
    circle: Vec<Circle>,
    life: Vec<Life>,
    /// Creation index in the wave, to report particles in creation order.
    created: Vec<u32>,
    grid: Grid<u32>,
    /// Per chunk: the spatial partition's cell entries, the contacts, the
    /// vertices, the indices of the particles that died.
    entries: Vec<Vec<CellEntry<u32>>>,
    contacts: Vec<Vec<Contact<u32>>>,
    vertices: Vec<Vec<Vertex>>,
    deaths: Vec<Vec<u32>>,
}

impl Handwritten {
    /// A simulation on `threads` worker threads, splitting every system
    /// into chunks when `inner_parallelism` holds.
    ///
    /// # Panics
    /// When the worker threads cannot be started.
    pub fn new(threads: usize, inner_parallelism: bool) -> Self {
        let threads = threads.max(1);
        let pool = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("handwritten-worker-{i}"))
                .build()
                .expect("cannot start the worker threads"),
        );
        Self {
            pool,
            threads,
            inner_parallelism,
            position: Vec::new(),
            velocity: Vec::new(),
            acceleration: Vec::new(),
            color: Vec::new(),
            circle: Vec::new(),
            life: Vec::new(),
            created: Vec::new(),
            grid: Grid::default(),
            entries: Vec::new(),
            contacts: Vec::new(),
            vertices: Vec::new(),
            deaths: Vec::new(),
        }
    }
}

/// Runs `f` on every item, from a worker of the pool, as the library's
/// team runs a split system's subtasks: each item is claimed once, this
/// thread taking them from the last, the others from the first, until the
/// two ends meet (so that a thread gets the same pieces from step to step
/// when the steps take the same time, and the piece that follows another
/// thread's in memory, which runs slower, is this thread's:
/// `ecs-core/src/schedule/ends.rs`). This thread starts at once and
/// offers a runner to each other worker (`rayon::join`); a runner no
/// worker has started by the time this thread has claimed everything is
/// taken back and finds nothing left, so no thread waits for one that is
/// late. With one item per thread, this thread runs the second piece and
/// the other worker, if it comes, the first.
fn claim_each<T: Send>(threads: usize, items: impl IntoIterator<Item = T>, f: impl Fn(T) + Sync) {
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let n = slots.len();
    assert!(u32::try_from(n).is_ok(), "more pieces than a 32-bit end counts");
    // The unclaimed items `front..back`: `front` in the low 32 bits.
    let ends = AtomicU64::new((n as u64) << 32);
    let claim = |from_front: bool| {
        let mut word = ends.load(Ordering::Relaxed);
        loop {
            let (front, back) = (word & u64::from(u32::MAX), word >> 32);
            if front >= back {
                return None;
            }
            let (k, next) = if from_front {
                (front, word + 1)
            } else {
                (back - 1, word - (1 << 32))
            };
            match ends.compare_exchange_weak(word, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(k as usize),
                Err(now) => word = now,
            }
        }
    };
    let run = |from_front: bool| {
        while let Some(k) = claim(from_front) {
            let item = slots[k].lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(item) = item {
                f(item);
            }
        }
    };
    let count = threads.min(n);
    if count <= 1 {
        run(false);
    } else {
        rayon::join(|| run(false), || runners(count - 1, &|| run(true)));
    }
}

/// Runs `run` on this thread and offers it to `count - 1` other workers.
fn runners(count: usize, run: &(impl Fn() + Sync)) {
    if count <= 1 {
        run();
    } else {
        rayon::join(run, || runners(count - 1, run));
    }
}

/// `life` then `fade` over a range of particles whose first index is
/// `first`: the indices of those that died go to `dead`, in order.
fn life_and_fade(first: usize, life: &mut [Life], color: &mut [Color], dead: &mut Vec<u32>) {
    dead.clear();
    for (i, l) in life.iter_mut().enumerate() {
        if age(l, DT) {
            dead.push((first + i) as u32);
        }
    }
    for (c, l) in color.iter_mut().zip(&*life) {
        fade(c, l);
    }
}

/// `spatial_partition`'s cell entries of the particles from index `first`.
fn enter(first: usize, position: &[Position], circle: &[Circle], out: &mut Vec<CellEntry<u32>>) {
    out.clear();
    for (i, (p, c)) in position.iter().zip(circle).enumerate() {
        let id = (first + i) as u32;
        cells_of(p, c, |cell| out.push(CellEntry { id, cell }));
    }
}

/// `collision` for the particles of `range`.
fn collide(
    range: std::ops::Range<usize>,
    position: &[Position],
    circle: &[Circle],
    grid: &Grid<u32>,
    out: &mut Vec<Contact<u32>>,
) {
    out.clear();
    for i in range {
        let (p0, c0) = (position[i], circle[i]);
        for &other in grid.cell_at(&p0) {
            let j = other as usize;
            if j >= i {
                continue;
            }
            if let Some(dist) = touching(&p0, &c0, &position[j], &circle[j]) {
                out.push(Contact {
                    e0: i as u32,
                    e1: other,
                    dist,
                });
            }
        }
    }
}

/// `solve_contacts`, in output order.
fn solve_all(contacts: &[Vec<Contact<u32>>], position: &mut [Position], velocity: &mut [Velocity], circle: &[Circle]) {
    for contact in contacts.iter().flatten() {
        let (i, j) = (contact.e0 as usize, contact.e1 as usize);
        let (mut p0, mut v0, mut p1, mut v1) = (position[i], velocity[i], position[j], velocity[j]);
        solve(
            contact.dist,
            (&mut p0, &mut v0, &circle[i]),
            (&mut p1, &mut v1, &circle[j]),
        );
        (position[i], velocity[i], position[j], velocity[j]) = (p0, v0, p1, v1);
    }
}

/// `render` for a range of particles.
fn render(position: &[Position], circle: &[Circle], color: &[Color], out: &mut Vec<Vertex>) {
    out.clear();
    out.reserve(VERTICES_PER_PARTICLE * position.len());
    let table = fan_table();
    for ((p, c), color) in position.iter().zip(circle).zip(color) {
        fan(table, p, c, color, out);
    }
}

impl Simulation for Handwritten {
    fn spawn(&mut self, wave: &[Particle]) -> Result<(), ecs::ContextFull> {
        let first = self.created.len();
        self.position.extend(wave.iter().map(|q| q.position));
        self.velocity.extend(wave.iter().map(|q| q.velocity));
        self.acceleration.extend(wave.iter().map(|q| q.acceleration));
        self.color.extend(wave.iter().map(|q| q.color));
        self.circle.extend(wave.iter().map(|q| q.circle));
        self.life.extend(wave.iter().map(|q| q.life));
        self.created.extend((first..first + wave.len()).map(|i| i as u32));
        Ok(())
    }

    fn step(&mut self) {
        let pool = Arc::clone(&self.pool);
        let threads = self.threads;
        pool.install(|| {
            with_workers_awake(threads, || {
                if self.inner_parallelism {
                    self.step_split();
                } else {
                    self.step_whole();
                }
            })
        });
        // Deaths are in ascending index order; removing from the back keeps
        // the indices still to remove valid.
        for &i in self.deaths.iter().flatten().rev() {
            let i = i as usize;
            self.position.swap_remove(i);
            self.velocity.swap_remove(i);
            self.acceleration.swap_remove(i);
            self.color.swap_remove(i);
            self.circle.swap_remove(i);
            self.life.swap_remove(i);
            self.created.swap_remove(i);
        }
        if self.position.is_empty() {
            self.created.clear();
        }
    }

    fn alive(&self) -> usize {
        self.position.len()
    }

    fn particles(&mut self) -> Vec<Particle> {
        let mut order: Vec<usize> = (0..self.position.len()).collect();
        order.sort_by_key(|&i| self.created[i]);
        order
            .into_iter()
            .map(|i| Particle {
                position: self.position[i],
                velocity: self.velocity[i],
                acceleration: self.acceleration[i],
                color: self.color[i],
                circle: self.circle[i],
                life: self.life[i],
            })
            .collect()
    }

    fn contacts(&mut self) -> usize {
        self.contacts.iter().map(Vec::len).sum()
    }

    fn threads(&self) -> usize {
        self.threads
    }
}

impl Handwritten {
    /// A step with no system split: `life` and `fade` on a helper beside
    /// the chain on the caller, then `render`.
    fn step_whole(&mut self) {
        let n = self.position.len();
        let Self {
            position,
            velocity,
            acceleration,
            color,
            circle,
            life,
            grid,
            entries,
            contacts,
            vertices,
            deaths,
            ..
        } = self;
        entries.resize_with(1, Vec::new);
        contacts.resize_with(1, Vec::new);
        vertices.resize_with(1, Vec::new);
        deaths.resize_with(1, Vec::new);
        rayon::join(
            || {
                velocity
                    .iter_mut()
                    .zip(&*acceleration)
                    .for_each(|(v, a)| accelerate(v, a, DT));
                position.iter_mut().zip(&*velocity).for_each(|(p, v)| advance(p, v, DT));
                position
                    .iter_mut()
                    .zip(velocity.iter_mut())
                    .zip(&*circle)
                    .for_each(|((p, v), c)| keep_in_bounds(p, v, c));
                grid.clear();
                enter(0, position, circle, &mut entries[0]);
                grid.fill(entries);
                collide(0..n, position, circle, grid, &mut contacts[0]);
                solve_all(contacts, position, velocity, circle);
            },
            || life_and_fade(0, life, color, &mut deaths[0]),
        );
        render(position, circle, color, &mut vertices[0]);
    }

    /// A step with every system but `solve_contacts` split, as the library
    /// splits them: one piece per thread, `collision` in blocks of
    /// [`COLLISION_BLOCK`] particles.
    fn step_split(&mut self) {
        let n = self.position.len();
        let piece = n.div_ceil(self.threads).max(1);
        let pieces = n.div_ceil(piece).max(1);
        let threads = self.threads;
        let Self {
            position,
            velocity,
            acceleration,
            color,
            circle,
            life,
            grid,
            entries,
            contacts,
            vertices,
            deaths,
            ..
        } = self;
        entries.resize_with(pieces, Vec::new);
        contacts.resize_with(n.div_ceil(COLLISION_BLOCK).max(1), Vec::new);
        vertices.resize_with(pieces, Vec::new);
        deaths.resize_with(1, Vec::new);

        claim_each(
            threads,
            velocity.chunks_mut(piece).zip(acceleration.chunks(piece)),
            |(v, a)| {
                v.iter_mut().zip(a).for_each(|(v, a)| accelerate(v, a, DT));
            },
        );
        claim_each(
            threads,
            position.chunks_mut(piece).zip(velocity.chunks(piece)),
            |(p, v)| {
                p.iter_mut().zip(v).for_each(|(p, v)| advance(p, v, DT));
            },
        );
        claim_each(
            threads,
            position
                .chunks_mut(piece)
                .zip(velocity.chunks_mut(piece))
                .zip(circle.chunks(piece)),
            |((p, v), c)| {
                p.iter_mut()
                    .zip(v)
                    .zip(c)
                    .for_each(|((p, v), c)| keep_in_bounds(p, v, c));
            },
        );
        claim_each(
            threads,
            entries
                .iter_mut()
                .zip(position.chunks(piece).zip(circle.chunks(piece)))
                .enumerate(),
            |(k, (out, (p, c)))| in_local(out, |out| enter(k * piece, p, c, out)),
        );
        // `life` and `fade` depend on nothing of the chain and nothing of it
        // on them until `render`: the other thread runs them while this one
        // fills the grid, which cannot be split.
        let fill = || {
            grid.clear();
            grid.fill(entries);
        };
        let age_and_fade = || in_local(&mut deaths[0], |dead| life_and_fade(0, life, color, dead));
        rayon::join(fill, age_and_fade);
        let (position_ref, circle_ref, grid_ref) = (&*position, &*circle, &*grid);
        claim_each(threads, contacts.iter_mut().enumerate(), |(k, out)| {
            let start = k * COLLISION_BLOCK;
            let range = start..(start + COLLISION_BLOCK).min(n);
            in_local(out, |out| collide(range, position_ref, circle_ref, grid_ref, out));
        });
        solve_all(contacts, position, velocity, circle);
        claim_each(
            threads,
            vertices.iter_mut().zip(
                position
                    .chunks(piece)
                    .zip(circle.chunks(piece))
                    .zip(color.chunks(piece)),
            ),
            |(out, ((p, c), color))| in_local(out, |out| render(p, c, color, out)),
        );
    }
}

/// Runs `step` on this worker while the pool's other workers stay awake
/// until it returns, running whatever work rayon has for them (each of
/// `threads - 1` spawned runners polls `rayon::yield_now`, spinning then
/// yielding the core between polls), as the library's helpers stay through
/// a step's sequential parts (`solve_contacts`, the grid's fill) where
/// rayon's idle workers went to sleep and took a wake-up to come back at
/// the next split system: a wave of 50 000 with inner parallelism took
/// 825-885 ms without this, 778-813 with it (alternated runs).
fn with_workers_awake(threads: usize, step: impl FnOnce() + Send) {
    /// Sets the flag when dropped: a panicking step releases the runners
    /// too, so the scope ends and re-raises the panic.
    struct SetOnDrop<'a>(&'a AtomicBool);
    impl Drop for SetOnDrop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
        }
    }
    let done = AtomicBool::new(false);
    let done = &done;
    rayon::scope(|s| {
        for _ in 1..threads {
            s.spawn(move |_| {
                let mut idle = 0u32;
                while !done.load(Ordering::Acquire) {
                    if rayon::yield_now() == Some(rayon::Yield::Executed) {
                        idle = 0;
                    } else if idle < 128 {
                        core::hint::spin_loop();
                        idle += 1;
                    } else {
                        std::thread::yield_now();
                    }
                }
            });
        }
        let _done = SetOnDrop(done);
        step();
    });
}

/// Runs `f` on a copy of `out` taken from its place and put back after, as
/// the library's subtasks do: pushing in place, threads would write the
/// lengths of neighbouring `Vec`s, which share cache lines.
fn in_local<T>(out: &mut Vec<T>, f: impl FnOnce(&mut Vec<T>)) {
    let mut mine = std::mem::take(out);
    f(&mut mine);
    *out = mine;
}
