//! Where `schedule`'s systems run on two threads (BENCHMARKS.md, "Where the
//! gaps come from"): the table's ecs context with two threads, and the
//! best-effort version's caller and helper, run `ITERATIONS` steps; prints
//! how many times each system ran on the caller's thread and the mean step
//! time (under load, only a hint), then where a step's time goes on the
//! caller's thread (means over the steps): `ab` itself, its end measured
//! from the step's start (the head: what runs before `ab`, `ab ends at`
//! minus `ab`) and the step's end (the tail: `step` minus `ab ends at`), and
//! how long after the step's start `cd` began on the other thread. For `perf stat -e
//! context-switches,cpu-migrations` and `strace -f -c`, which count what the
//! two versions ask of the kernel per step. `join` runs the same columns as
//! the best-effort version with `rayon::join(ab, cd)` then `ce`, on a rayon
//! pool of two threads (a reference for what rayon's hand-over costs).
//!
//! ```sh
//! cargo build --release --manifest-path benches/peers/Cargo.toml --example schedule_threads
//! perf stat -e context-switches,cpu-migrations benches/peers/target/release/examples/schedule_threads ecs 100000
//! ```

#[macro_use]
#[path = "common/schedule_data.rs"]
mod schedule_data;

use ecs::{Data, System};
use std::cell::Cell;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

const N: usize = 10_000;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct A(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct B(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct C(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct D(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct E(pub f32);

thread_local! {
    static CALLER: Cell<bool> = const { Cell::new(false) };
}

/// Runs of each system (`ab`, `cd`, `ce`) on the caller's thread.
static ON_CALLER: [AtomicU64; 3] = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];

static STEP_START: AtomicU64 = AtomicU64::new(0);
static LAT: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];
static AB_NS: AtomicU64 = AtomicU64::new(0);
static AB_END_NS: AtomicU64 = AtomicU64::new(0);
static STEP_NS: AtomicU64 = AtomicU64::new(0);
static BASE: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
fn now_ns() -> u64 {
    BASE.get_or_init(Instant::now).elapsed().as_nanos() as u64
}
fn mark_start() {
    STEP_START.store(now_ns(), Ordering::Relaxed);
}
/// Latency from the step's start to the worker's start of cd, in buckets
/// of <250, <500, <1000, <2000, <4000, <8000, more ns; bucket 7: cd on the caller.
fn worker_started() {
    if CALLER.with(Cell::get) {
        LAT[7].fetch_add(1, Ordering::Relaxed);
        return;
    }
    let d = now_ns() - STEP_START.load(Ordering::Relaxed);
    let b = [250, 500, 1000, 2000, 4000, 8000]
        .iter()
        .position(|&x| d < x)
        .unwrap_or(6);
    LAT[b].fetch_add(1, Ordering::Relaxed);
}
fn lat_report() {
    let l: Vec<u64> = LAT.iter().map(|x| x.load(Ordering::Relaxed)).collect();
    println!(
        "cd start latency <250 <500 <1us <2us <4us <8us more / on caller: {:?}",
        l
    );
}

fn count(system: usize) {
    if CALLER.with(Cell::get) {
        ON_CALLER[system].fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(Default)]
pub struct SwapAb;
#[derive(Default)]
pub struct SwapCd;
#[derive(Default)]
pub struct SwapCe;

ecs::declare_context! {
    pub context Sched {
        settings { entities: fixed(40_000), threads: 2 }
        components { A, B, C, D, E: contiguous; }
        systems {
            ab: SwapAb { write: [A, B], parallelism: none }
            cd: SwapCd { write: [C, D] }
            ce: SwapCe { write: [C, E], after: [cd] }
        }
    }
}

impl System<Sched> for SwapAb {
    fn process(&self, data: &mut Data<'_, Sched, Self>, _: &()) {
        timed_ab(|| data.for_each::<(&mut A, &mut B)>(|(a, b)| core::mem::swap(&mut a.0, &mut b.0)));
    }
}

impl System<Sched> for SwapCd {
    fn process(&self, data: &mut Data<'_, Sched, Self>, _: &()) {
        count(1);
        worker_started();
        data.for_each::<(&mut C, &mut D)>(|(c, d)| core::mem::swap(&mut c.0, &mut d.0));
    }
}

impl System<Sched> for SwapCe {
    fn process(&self, data: &mut Data<'_, Sched, Self>, _: &()) {
        count(2);
        data.for_each::<(&mut C, &mut E)>(|(c, e)| core::mem::swap(&mut c.0, &mut e.0));
    }
}

fn ecs_steps(iterations: usize) {
    let mut world = Sched::new();
    spawn_schedule!(world);
    reset();
    let start = Instant::now();
    for _ in 0..iterations {
        mark_start();
        world.step(|p| p.run_all(&()));
        STEP_NS.fetch_add(now_ns() - STEP_START.load(Ordering::Relaxed), Ordering::Relaxed);
    }
    report(start, iterations);
    lat_report();
}

fn reset() {
    for c in &ON_CALLER {
        c.store(0, Ordering::Relaxed);
    }
}

fn report(start: Instant, iterations: usize) {
    let per_step = start.elapsed().as_secs_f64() * 1e6 / iterations as f64;
    let [ab, cd, ce] = ON_CALLER.each_ref().map(|c| c.load(Ordering::Relaxed));
    println!("{iterations} steps, {per_step:.2} us per step (under load); on the caller: ab {ab}, cd {cd}, ce {ce}");
    let n = iterations as f64 * 1e3;
    println!(
        "  ab {:.2} us, ab ends at {:.2} us, step {:.2} us (means)",
        AB_NS.load(Ordering::Relaxed) as f64 / n,
        AB_END_NS.load(Ordering::Relaxed) as f64 / n,
        STEP_NS.load(Ordering::Relaxed) as f64 / n
    );
}

/// The best-effort version's helper (`libs::best`, `schedule`), trimmed.
struct Shared {
    cde: Mutex<[Vec<f32>; 4]>,
    asked: AtomicU64,
    claimed: AtomicU64,
    done: AtomicU64,
    quit: AtomicBool,
}

/// Runs `ab` (the system or a hand-written version's loop) as system 0,
/// adding its time and its end's offset from the step's start to the
/// means `report` prints.
fn timed_ab(ab: impl FnOnce()) {
    count(0);
    let t = now_ns();
    ab();
    let e = now_ns();
    AB_NS.fetch_add(e - t, Ordering::Relaxed);
    AB_END_NS.fetch_add(e - STEP_START.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// The hand-written versions' `ab`: the four pairs of columns swapped.
fn swap_ab(ab: &mut [[Vec<f32>; 2]; 4]) {
    for [a, b] in ab {
        swap_columns(a, b);
    }
}

fn swap_columns(x: &mut [f32], y: &mut [f32]) {
    for (x, y) in x.iter_mut().zip(y) {
        core::mem::swap(x, y);
    }
}

impl Shared {
    fn try_run(&self, step: u64) {
        if self
            .claimed
            .compare_exchange(step - 1, step, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            count(1);
            count(2);
            worker_started();
            {
                let mut g = self.cde.lock().unwrap_or_else(|e| e.into_inner());
                let [c, d, c2, e] = &mut *g;
                swap_columns(c, d);
                swap_columns(c2, e);
            }
            self.done.store(step, Ordering::Release);
        }
    }
}

fn wait_until(ready: impl Fn() -> bool, park: bool) {
    let mut idle = 0;
    let mut yielding: Option<Instant> = None;
    while !ready() {
        if idle < 128 {
            core::hint::spin_loop();
        } else if !park || yielding.get_or_insert_with(Instant::now).elapsed() < std::time::Duration::from_millis(2) {
            thread::yield_now();
        } else {
            thread::park();
        }
        idle += 1;
    }
}

fn best_steps(iterations: usize) {
    let col = |x: f32| vec![x; N];
    let shared = Arc::new(Shared {
        cde: Mutex::new([col(2.0), col(3.0), col(2.0), col(4.0)]),
        asked: AtomicU64::new(0),
        claimed: AtomicU64::new(0),
        done: AtomicU64::new(0),
        quit: AtomicBool::new(false),
    });
    let helper = {
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
    let mut ab: [[Vec<f32>; 2]; 4] = core::array::from_fn(|_| [col(0.0), col(1.0)]);
    let mut step = |shared: &Shared| {
        let n = shared.asked.fetch_add(1, Ordering::AcqRel) + 1;
        helper.thread().unpark();
        timed_ab(|| swap_ab(&mut ab));
        shared.try_run(n);
        wait_until(|| shared.done.load(Ordering::Acquire) >= n, false);
    };
    step(&shared);
    reset();
    let start = Instant::now();
    for _ in 0..iterations {
        mark_start();
        step(&shared);
        STEP_NS.fetch_add(now_ns() - STEP_START.load(Ordering::Relaxed), Ordering::Relaxed);
    }
    report(start, iterations);
    lat_report();
    black_box(&ab);
    shared.quit.store(true, Ordering::Release);
    helper.thread().unpark();
    let _ = helper.join();
}

/// The reference the hand-over is compared with in BENCHMARKS.md: rayon's
/// own fork-join on a pool of two threads, the loop running on one of its
/// workers (`install`), each step `rayon::join(ab, cd)` then `ce` on the
/// thread that returns from the join.
fn join_steps(iterations: usize) {
    let col = |x: f32| vec![x; N];
    let mut ab: [[Vec<f32>; 2]; 4] = core::array::from_fn(|_| [col(0.0), col(1.0)]);
    let [mut c, mut d, mut c2, mut e] = [col(2.0), col(3.0), col(2.0), col(4.0)];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
    pool.install(|| {
        CALLER.with(|c| c.set(true));
        let mut step = || {
            rayon::join(
                || timed_ab(|| swap_ab(&mut ab)),
                || {
                    count(1);
                    worker_started();
                    swap_columns(&mut c, &mut d);
                },
            );
            count(2);
            swap_columns(&mut c2, &mut e);
        };
        step();
        reset();
        let start = Instant::now();
        for _ in 0..iterations {
            mark_start();
            step();
            STEP_NS.fetch_add(now_ns() - STEP_START.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        report(start, iterations);
        lat_report();
    });
    black_box((&ab, &c, &d, &c2, &e));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: schedule_threads ecs|best|join ITERATIONS";
    let Some(version) = args.get(1) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let iterations: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    CALLER.with(|c| c.set(true));
    match version.as_str() {
        "ecs" => ecs_steps(iterations),
        "best" => best_steps(iterations),
        "join" => join_steps(iterations),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}
