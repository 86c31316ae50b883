//! The best-effort hand-written version of each workload (workloads.md):
//! the same data and results as the others (checked), written as the
//! fastest plain safe Rust we could find, no intrinsics. It is the limit
//! the library is measured against, beside the plain baseline.
//!
//! - simple_insert: each column built at once with `vec![value; n]`.
//! - simple_iter: the positions of 8 entities copied to a local array,
//!   moved there and copied back, which the compiler turns into vector
//!   loads, adds and stores (what ecs's blocks do).
//! - frag_iter: every `Data` in one array of 520 (ecs's own layout).
//! - add_remove: the `B` values and one presence byte per entity, written
//!   for all entities at once; the system reading `B` tests the bytes.
//! - heavy_compute: rayon's `par_chunks_mut` over chunks of 50 entities
//!   (ecs's subtask size). Plain `par_iter_mut`, as the baseline, took
//!   1.59-1.67 ms against 1.55-1.56 in 3 of 4 alternated rounds (1.77 in
//!   the fourth, a busy one; ecs 1.54, one core alone 3.06 for all of
//!   them; where plain `par_iter_mut` loses the time was not traced).
//!   Chunks of 50 claimed from a shared counter by the caller and a
//!   hand-made pool of one worker per other core (ecs's way) measured
//!   1.2-1.5x slower than `par_iter_mut` in an earlier stop.
//! - schedule: three quarters of `ab` (30 000 swaps) on the caller's thread
//!   while a persistent helper thread runs `cd`, `ce` and the last quarter
//!   of `ab` (30 000 too), each thread on the same columns every step, so
//!   they stay in its core's cache. (`ab` whole beside `cd` then `ce`, the
//!   caller's 40 000 swaps against the helper's 20 000, took 5.7-5.9 µs a
//!   step against 4.4-4.6, `examples/schedule_threads`.) The helper spins
//!   briefly between steps, then sleeps (ecs's idle policy), and when it is
//!   not there by the time the caller's share is done, the caller runs the
//!   helper's share itself (as ecs's caller takes queued work): no step
//!   waits for a thread that has not started.

use crate::components::*;
use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::{Workload, FRAG_PER_TYPE, FRAG_TYPES, HEAVY, N};

/// heavy_compute's chunk: 50 entities, as ecs's subtasks.
const HEAVY_CHUNK: usize = 50;
use rayon::prelude::*;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

pub fn make(w: Workload) -> Box<dyn Bench> {
    match w {
        Workload::SimpleInsert => Box::new(SimpleInsert),
        Workload::SimpleIter => Box::new(SimpleIter::new()),
        Workload::FragIter => Box::new(FragIter::new()),
        Workload::HeavyCompute => Box::new(HeavyCompute::new()),
        Workload::AddRemove => Box::new(AddRemove::new()),
        Workload::Schedule => Box::new(Schedule::new()),
        Workload::MoveCollideRender
        | Workload::Save
        | Workload::Load
        | Workload::Fragmented
        | Workload::FragmentedChurn => {
            unreachable!("set up by libs::move_collide_render and libs::save_load")
        }
    }
}

/// The four columns, each built at once.
struct Columns {
    transforms: Vec<Transform>,
    positions: Vec<Position>,
    rotations: Vec<Rotation>,
    velocities: Vec<Velocity>,
}

impl Columns {
    fn new(n: usize) -> Self {
        Columns {
            transforms: vec![transform(); n],
            positions: vec![position(); n],
            rotations: vec![rotation(); n],
            velocities: vec![velocity(); n],
        }
    }
}

struct SimpleInsert;

impl Bench for SimpleInsert {
    fn run(&mut self) {
        drop(black_box(Columns::new(N)));
    }

    fn check(&mut self) -> Check {
        let c = Columns::new(N);
        let all = [
            c.transforms.len(),
            c.positions.len(),
            c.rotations.len(),
            c.velocities.len(),
        ];
        expect::simple_insert(all.into_iter().min().unwrap_or(0))
    }
}

struct SimpleIter(Columns);

impl SimpleIter {
    fn new() -> Self {
        SimpleIter(Columns::new(N))
    }
}

/// Entities moved together in `simple_iter`.
const LANES: usize = 8;

impl Bench for SimpleIter {
    fn run(&mut self) {
        let c = &mut self.0;
        let mut ps = c.positions.chunks_exact_mut(LANES);
        let mut vs = c.velocities.chunks_exact(LANES);
        for (p, v) in (&mut ps).zip(&mut vs) {
            let mut staged: [Position; LANES] = core::array::from_fn(|i| p[i]);
            for (p, v) in staged.iter_mut().zip(v) {
                advance(p, v);
            }
            p.copy_from_slice(&staged);
        }
        for (p, v) in ps.into_remainder().iter_mut().zip(vs.remainder()) {
            advance(p, v);
        }
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::simple_iter(self.0.positions.iter().copied())
    }
}

/// Every `Data` in one array, the marker groups one after another.
struct FragIter(Vec<frag::Data>);

impl FragIter {
    fn new() -> Self {
        FragIter(vec![frag::Data(1.0); FRAG_TYPES * FRAG_PER_TYPE])
    }
}

impl Bench for FragIter {
    fn run(&mut self) {
        for d in &mut self.0 {
            d.0 *= 2.0;
        }
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::frag_iter(self.0.iter().map(|d| d.0))
    }
}

struct HeavyCompute {
    matrices: Vec<Matrix4>,
    positions: Vec<Position>,
    _rotations: Vec<Rotation>,
    _velocities: Vec<Velocity>,
}

impl HeavyCompute {
    fn new() -> Self {
        HeavyCompute {
            matrices: vec![matrix4(); HEAVY],
            positions: vec![heavy_position(); HEAVY],
            _rotations: vec![rotation(); HEAVY],
            _velocities: vec![velocity(); HEAVY],
        }
    }
}

impl Bench for HeavyCompute {
    fn run(&mut self) {
        self.matrices
            .par_chunks_mut(HEAVY_CHUNK)
            .zip(self.positions.par_chunks_mut(HEAVY_CHUNK))
            .for_each(|(m, p)| m.iter_mut().zip(p).for_each(|(m, p)| heavy(m, p)));
    }

    fn check(&mut self) -> Check {
        self.run();
        expect::heavy_compute(self.positions.iter().copied())
    }
}

struct AddRemove {
    a: Vec<letters::A>,
    b: Vec<letters::B>,
    /// Whether entity `i` holds `B`.
    has_b: Vec<bool>,
}

impl AddRemove {
    fn new() -> Self {
        AddRemove {
            a: vec![letters().0; N],
            b: vec![letters::B(0.0); N],
            has_b: vec![false; N],
        }
    }

    /// The system reading `A` and `B`: every entity holding `B`.
    fn system(&self) -> usize {
        let mut seen = 0;
        let mut sum = 0.0;
        for ((a, b), &has) in self.a.iter().zip(&self.b).zip(&self.has_b) {
            if has {
                seen += 1;
                sum += read_ab(a, b);
            }
        }
        black_box(sum);
        seen
    }
}

impl Bench for AddRemove {
    fn run(&mut self) {
        self.b.fill(letters::B(0.0));
        self.has_b.fill(true);
        black_box(self.system());
        self.has_b.fill(false);
        black_box(self.system());
    }

    fn check(&mut self) -> Check {
        self.b.fill(letters::B(0.0));
        self.has_b.fill(true);
        let added = self.system();
        self.has_b.fill(false);
        let left = self.system();
        expect::add_remove(self.a.len(), added, left)
    }
}

/// The columns `cd` and `ce` write, owned by the helper thread.
struct Cde {
    /// `C` and `D` of the (A, B, C, D) group.
    cd: [Vec<f32>; 2],
    /// `C` and `E` of the (A, B, C, E) group.
    ce: [Vec<f32>; 2],
    /// `A` and `B` of the (A, B, C, E) group: the last quarter of `ab`,
    /// which evens the two threads' shares (30 000 swaps each).
    ab: [Vec<f32>; 2],
}

/// `cd`, `ce` and the last quarter of `ab`, by whichever thread claims
/// them: the helper or the caller.
struct Shared {
    cde: Mutex<Cde>,
    /// Steps asked for, steps claimed and steps done: the step numbered
    /// `claimed + 1` is taken by whoever moves `claimed` to it first.
    asked: AtomicU64,
    claimed: AtomicU64,
    done: AtomicU64,
    quit: AtomicBool,
}

impl Shared {
    /// Runs `cd` and `ce` of step `step` if no one has claimed it yet.
    fn try_run(&self, step: u64) {
        if self
            .claimed
            .compare_exchange(step - 1, step, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            {
                let mut g = self.cde.lock().unwrap_or_else(|e| e.into_inner());
                let Cde {
                    cd: [c, d],
                    ce: [c2, e],
                    ab: [a, b],
                } = &mut *g;
                swap_columns(c, d);
                swap_columns(c2, e);
                swap_columns(a, b);
            }
            self.done.store(step, Ordering::Release);
        }
    }
}

/// A helper thread that runs `cd`, `ce` and the last quarter of `ab` each
/// time it is asked, unless the caller got to them first.
struct Helper {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// Idle rounds spent spinning before a waiting thread starts yielding the
/// core, and how long it yields before it sleeps (ecs's `team.rs` policy).
const SPIN_HINTS: u32 = 128;
const STAY: Duration = Duration::from_millis(2);

/// Waits until `ready()`: spins, then yields, then (if `park`) sleeps until
/// unparked, checking again after each wake.
fn wait_until(ready: impl Fn() -> bool, park: bool) {
    let mut idle = 0;
    let mut yielding: Option<Instant> = None;
    while !ready() {
        if idle < SPIN_HINTS {
            core::hint::spin_loop();
        } else if !park || yielding.get_or_insert_with(Instant::now).elapsed() < STAY {
            thread::yield_now();
        } else {
            thread::park();
        }
        idle += 1;
    }
}

impl Helper {
    fn new(cde: Cde) -> Self {
        let shared = Arc::new(Shared {
            cde: Mutex::new(cde),
            asked: AtomicU64::new(0),
            claimed: AtomicU64::new(0),
            done: AtomicU64::new(0),
            quit: AtomicBool::new(false),
        });
        let thread = {
            let shared = shared.clone();
            thread::spawn(move || loop {
                let seen = shared.claimed.load(Ordering::Acquire);
                wait_until(
                    || shared.asked.load(Ordering::Acquire) > seen || shared.quit.load(Ordering::Acquire),
                    true,
                );
                if shared.quit.load(Ordering::Acquire) {
                    return;
                }
                shared.try_run(seen + 1);
            })
        };
        Helper {
            shared,
            thread: Some(thread),
        }
    }

    /// Asks for one run of the helper's share; returns its step number.
    fn start(&self) -> u64 {
        let step = self.shared.asked.fetch_add(1, Ordering::AcqRel) + 1;
        if let Some(t) = &self.thread {
            t.thread().unpark();
        }
        step
    }

    /// Runs the helper's share of `step` on the caller if the helper has
    /// not claimed it, then waits until it is done.
    fn finish(&self, step: u64) {
        self.shared.try_run(step);
        wait_until(|| self.shared.done.load(Ordering::Acquire) >= step, false);
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        self.shared.quit.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// `schedule`: the `A` and `B` columns of three groups on the caller's
/// side; the `C`, `D`, `E` columns that `cd` and `ce` write, and the fourth
/// group's `A` and `B`, with the helper. Each thread's columns stay in its
/// core's cache from step to step.
struct Schedule {
    ab: [[Vec<f32>; 2]; 3],
    /// `C` of the (A, B, C) group, which no system writes.
    abc_c: Vec<f32>,
    helper: Helper,
}

impl Schedule {
    fn new() -> Self {
        let (a, b, c, d, e) = letters();
        let col = |x: f32| vec![x; N];
        Schedule {
            ab: core::array::from_fn(|_| [col(a.0), col(b.0)]),
            abc_c: col(c.0),
            helper: Helper::new(Cde {
                cd: [col(c.0), col(d.0)],
                ce: [col(c.0), col(e.0)],
                ab: [col(a.0), col(b.0)],
            }),
        }
    }
}

/// Swaps two columns element by element.
fn swap_columns(x: &mut [f32], y: &mut [f32]) {
    for (x, y) in x.iter_mut().zip(y) {
        swap(x, y);
    }
}

impl Bench for Schedule {
    fn run(&mut self) {
        let step = self.helper.start();
        for [a, b] in &mut self.ab {
            swap_columns(a, b);
        }
        self.helper.finish(step);
    }

    fn check(&mut self) -> Check {
        self.run();
        let pairs = |x: &[f32], y: &[f32]| x.iter().copied().zip(y.iter().copied()).collect::<Vec<_>>();
        let mut s = expect::Schedule::default();
        for [a, b] in &self.ab {
            s.ab.extend(pairs(a, b));
        }
        let cde = self.helper.shared.cde.lock().unwrap_or_else(|e| e.into_inner());
        s.ab.extend(pairs(&cde.ab[0], &cde.ab[1]));
        s.cd = pairs(&cde.cd[0], &cde.cd[1]);
        s.ce = pairs(&cde.ce[0], &cde.ce[1]);
        s.c = [&self.abc_c, &cde.cd[0], &cde.ce[0]]
            .into_iter()
            .flatten()
            .copied()
            .collect();
        drop(cde);
        expect::schedule(s)
    }
}

pub const NOTES: &str = "the fastest plain safe Rust we found, no intrinsics: each column built with \
`vec![value; n]` (simple_insert); the positions of 8 entities staged in a local array, which the compiler moves \
with vector instructions (simple_iter); every `Data` in one array of 520 (frag_iter); rayon's \
`par_chunks_mut` over chunks of 50 entities, ecs's subtask size (heavy_compute: plain `par_iter_mut` measured \
2-7% slower); the `B` \
values and one presence byte per entity, each filled at once, the system testing the bytes (add_remove); three \
quarters of `ab` on the caller's thread while a persistent helper thread runs `cd`, `ce` and the last quarter, \
30 000 swaps each, each thread on the same columns every step, spinning briefly between steps then sleeping as \
ecs's threads do; when the helper has not claimed its share by the time the caller is done, the caller runs it \
itself, as ecs's caller takes queued work (schedule).";
