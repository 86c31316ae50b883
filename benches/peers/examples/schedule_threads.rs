//! Where `schedule`'s work runs on two threads, and when (BENCHMARKS.md,
//! "Where the gaps come from"): each version runs `ITERATIONS` steps, then
//! prints the mean step time (under load, only a hint), how many of each
//! piece ran on the caller's thread, and for each piece (the quarters of
//! `ab` by subtask index, or `ab` whole as piece 0; `cd`; `ce`) when it
//! started and ended, measured from the step's start (means and medians
//! over the steps, whichever thread ran it).
//!
//! - `ecs`: the table's context, `ab` split every 10 000 entities
//!   (`libs/ecs/schedule.rs`);
//! - `ecs-whole`: the same with `ab` unsplit, beside `cd` then `ce`;
//! - `ecs-alone`: the table's context on one thread (`threads: 1`): every
//!   piece in turn on the caller, none beside another;
//! - `best`: the best-effort version (`libs/best.rs`): three quarters of
//!   `ab` on the caller, `cd`, `ce` and the last quarter on a helper;
//! - `best-columns`: `best` with ecs's layout: a buffer per component
//!   indexed by entity, the quarters of `ab` side by side (`COL_GAP=K`
//!   leaves `K` unused `f32` between them);
//! - in `best` and `best-columns`, `BUF_AT=K` starts every buffer `K` bytes
//!   past a page's start (otherwise where the allocator puts it), and
//!   `DOWN=1` walks each of the caller's quarters in blocks of 64 from its
//!   last block down (so that its walk ends away from the helper's quarter);
//!   `MIRROR=1` gives the helper the first quarter and the caller the
//!   others from the last down (ecs's claim order), and `HELPER_DOWN=1`
//!   walks the helper's quarter from its last block down; `CHASE=K` has
//!   the caller write `K` lines at each step's start that the helper reads
//!   one after another before `cd` (what a chain of reads of lines the
//!   other core just wrote costs);
//! - `best-whole`: `ab` whole on the caller, `cd` then `ce` on the helper;
//! - `join`: `rayon::join(ab, cd)` then `ce` on a rayon pool of two threads
//!   (what rayon's hand-over costs).
//!
//! Also for `perf stat -e context-switches,cpu-migrations` and `strace -f
//! -c`, which count what the versions ask of the kernel per step.
//!
//! ```sh
//! cargo build --release --manifest-path benches/peers/Cargo.toml --example schedule_threads
//! benches/peers/target/release/examples/schedule_threads ecs 100000
//! ```

#[macro_use]
#[path = "common/schedule_data.rs"]
mod schedule_data;

use std::cell::Cell;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
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

/// Pieces: the quarters of `ab` (0-3, or `ab` whole as 0), `cd`, `ce`.
const PIECES: usize = 6;
const CD: usize = 4;
const CE: usize = 5;
const NAMES: [&str; PIECES] = ["ab 0", "ab 1", "ab 2", "ab 3", "cd", "ce"];

/// One piece's counts: runs on the caller's thread, runs, sums of start and
/// end offsets. On a cache line of its own (two, for the prefetcher of
/// pairs), so that the threads recording different pieces do not take a
/// line from each other and time that instead.
#[repr(align(128))]
struct Counts {
    on_caller: AtomicU64,
    runs: AtomicU64,
    starts: AtomicU64,
    ends: AtomicU64,
}

static COUNTS: [Counts; PIECES] = [const {
    Counts {
        on_caller: AtomicU64::new(0),
        runs: AtomicU64::new(0),
        starts: AtomicU64::new(0),
        ends: AtomicU64::new(0),
    }
}; PIECES];
static STEP_START: AtomicU64 = AtomicU64::new(0);
/// The timed step being run.
static STEP_NO: Aligned<AtomicUsize> = Aligned(AtomicUsize::new(0));
/// Each piece's start and end in each timed step (ns from the step's
/// start, `start << 32 | end`; `u64::MAX` if the piece did not run), for
/// their medians, which the slow tail of steps does not pull as it pulls
/// the means. Each piece's array, and the step number, on cache lines of
/// their own: shared lines made each thread's records wait for the other's.
static OFFSETS: std::sync::OnceLock<[Aligned<Box<[AtomicU64]>>; PIECES]> = std::sync::OnceLock::new();

#[repr(align(128))]
struct Aligned<T>(T);
static STEP_NS: AtomicU64 = AtomicU64::new(0);
static BASE: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

fn now_ns() -> u64 {
    BASE.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

fn since_step() -> u64 {
    now_ns() - STEP_START.load(Ordering::Relaxed)
}

/// Runs `work` as piece `k`, recording where and when.
fn piece(k: usize, work: impl FnOnce()) {
    let counts = &COUNTS[k];
    if CALLER.with(Cell::get) {
        counts.on_caller.fetch_add(1, Ordering::Relaxed);
    }
    let start = since_step();
    counts.starts.fetch_add(start, Ordering::Relaxed);
    work();
    let end = since_step();
    counts.ends.fetch_add(end, Ordering::Relaxed);
    if let Some(offsets) = OFFSETS.get() {
        if let Some(slot) = offsets[k].0.get(STEP_NO.0.load(Ordering::Relaxed)) {
            slot.store(start << 32 | end, Ordering::Relaxed);
        }
    }
    counts.runs.fetch_add(1, Ordering::Relaxed);
}

fn reset() {
    for c in &COUNTS {
        for n in [&c.on_caller, &c.runs, &c.starts, &c.ends] {
            n.store(0, Ordering::Relaxed);
        }
    }
    STEP_NS.store(0, Ordering::Relaxed);
}

/// Times `iterations` calls of `step` after one untimed, then reports.
fn timed(iterations: usize, mut step: impl FnMut()) {
    step();
    reset();
    let offsets = OFFSETS
        .get_or_init(|| core::array::from_fn(|_| Aligned((0..iterations).map(|_| AtomicU64::new(u64::MAX)).collect())));
    let mut times = Vec::with_capacity(iterations);
    let start = Instant::now();
    for i in 0..iterations {
        STEP_NO.0.store(i, Ordering::Relaxed);
        STEP_START.store(now_ns(), Ordering::Relaxed);
        step();
        let t = since_step();
        STEP_NS.fetch_add(t, Ordering::Relaxed);
        times.push(t);
    }
    let per_step = start.elapsed().as_secs_f64() * 1e6 / iterations as f64;
    let n = iterations as f64 * 1e3;
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize] as f64 / 1e3;
    println!(
        "{iterations} steps, {per_step:.2} us per step (under load), step {:.2} us (mean of the timed steps); \
         percentiles 10/50/90/99: {:.2} {:.2} {:.2} {:.2} us",
        STEP_NS.load(Ordering::Relaxed) as f64 / n,
        at(0.1),
        at(0.5),
        at(0.9),
        at(0.99)
    );
    for ((name, c), offsets) in NAMES.iter().zip(&COUNTS).zip(offsets) {
        let runs = c.runs.load(Ordering::Relaxed);
        if runs == 0 {
            continue;
        }
        let mean = |n: &AtomicU64| n.load(Ordering::Relaxed) as f64 / runs as f64 / 1e3;
        let median = |end: bool| {
            let mut v: Vec<u64> = offsets
                .0
                .iter()
                .map(|t| t.load(Ordering::Relaxed))
                .filter(|&t| t != u64::MAX)
                .map(|t| if end { t & 0xffff_ffff } else { t >> 32 })
                .collect();
            v.sort_unstable();
            v.get(v.len() / 2).map_or(f64::NAN, |&t| t as f64 / 1e3)
        };
        println!(
            "  {name:5} on the caller {:6} of {runs}: starts {:.2} us, ends {:.2} us (medians {:.2}, {:.2})",
            c.on_caller.load(Ordering::Relaxed),
            mean(&c.starts),
            mean(&c.ends),
            median(false),
            median(true)
        );
    }
}

/// A context of the table's shape, `ab` split as `$($split)*` says.
macro_rules! sched {
    ($module:ident, $threads:literal, $($split:tt)*) => {
        mod $module {
            use super::{piece, A, B, C, CD, CE, D, E};
            use ecs::{Data, System};

            #[derive(Default)]
            pub struct SwapAb;
            #[derive(Default)]
            pub struct SwapCd;
            #[derive(Default)]
            pub struct SwapCe;

            ecs::declare_context! {
                pub context Sched {
                    settings { entities: fixed(40_000), threads: $threads }
                    components { A, B, C, D, E: contiguous; }
                    systems {
                        ab: SwapAb { write: [A, B], parallelism: $($split)* }
                        cd: SwapCd { write: [C, D] }
                        ce: SwapCe { write: [C, E], after: [cd] }
                    }
                }
            }

            impl System<Sched> for SwapAb {
                fn process(&self, data: &mut Data<'_, Sched, Self>, _: &()) {
                    piece(data.subtask_index(), || {
                        data.for_each::<(&mut A, &mut B)>(|(a, b)| core::mem::swap(&mut a.0, &mut b.0))
                    });
                }
            }

            impl System<Sched> for SwapCd {
                fn process(&self, data: &mut Data<'_, Sched, Self>, _: &()) {
                    piece(CD, || data.for_each::<(&mut C, &mut D)>(|(c, d)| core::mem::swap(&mut c.0, &mut d.0)));
                }
            }

            impl System<Sched> for SwapCe {
                fn process(&self, data: &mut Data<'_, Sched, Self>, _: &()) {
                    piece(CE, || data.for_each::<(&mut C, &mut E)>(|(c, e)| core::mem::swap(&mut c.0, &mut e.0)));
                }
            }
        }
    };
}

sched!(split, 2, split_every(10_000));
sched!(whole, 2, none);
sched!(split_alone, 1, split_every(10_000));

fn ecs_split(iterations: usize) {
    let mut world = split::Sched::new();
    spawn_schedule!(world);
    timed(iterations, || world.step(|p| p.run_all(&())));
}

fn ecs_alone(iterations: usize) {
    let mut world = split_alone::Sched::new();
    spawn_schedule!(world);
    timed(iterations, || world.step(|p| p.run_all(&())));
}

fn ecs_whole(iterations: usize) {
    let mut world = whole::Sched::new();
    spawn_schedule!(world);
    timed(iterations, || world.step(|p| p.run_all(&())));
}

fn swap_columns(x: &mut [f32], y: &mut [f32]) {
    for (x, y) in x.iter_mut().zip(y) {
        core::mem::swap(x, y);
    }
}

/// `swap_columns` in blocks of 64 from the last block down.
fn swap_columns_down(x: &mut [f32], y: &mut [f32]) {
    for (x, y) in x.chunks_mut(64).rev().zip(y.chunks_mut(64).rev()) {
        swap_columns(x, y);
    }
}

/// The helper's share: `C`, `D`, `C`, `E` of `cd` and `ce`, then its
/// quarters of `ab`.
type Share = ([&'static mut [f32]; 4], Vec<[&'static mut [f32]; 2]>);

/// The best-effort version's helper (`libs::best`, `schedule`), trimmed.
struct Shared {
    cde: Mutex<Share>,
    asked: AtomicU64,
    claimed: AtomicU64,
    done: AtomicU64,
    quit: AtomicBool,
    /// `MIRROR`: the helper runs the first quarter, the caller the others
    /// from the last down.
    mirror: bool,
    /// `HELPER_DOWN`: the helper walks its quarter from its last block down.
    helper_down: bool,
    /// `CHASE=K`: `K` lines the caller writes at each step's start, each
    /// holding the index of the next, which the helper follows before
    /// `cd` (as ecs's helper follows the published root's template, the
    /// graph and the step's closure, which its caller wrote that step).
    chase: Vec<Link>,
}

/// One line of `CHASE`: the index of the next (`usize::MAX` for none).
#[repr(align(128))]
struct Link {
    next: AtomicUsize,
}

impl Shared {
    fn try_run(&self, step: u64) {
        if self
            .claimed
            .compare_exchange(step - 1, step, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            let mut at = if self.chase.is_empty() { usize::MAX } else { 0 };
            while at != usize::MAX {
                at = self.chase[at].next.load(Ordering::Acquire);
            }
            let mut g = self.cde.lock().unwrap_or_else(|e| e.into_inner());
            let ([c, d, c2, e], ab) = &mut *g;
            piece(CD, || swap_columns(c, d));
            piece(CE, || swap_columns(c2, e));
            // The quarter the helper runs: the last, or with `MIRROR` the
            // first (ecs's claim order).
            let q = if self.mirror { 0 } else { 3 };
            for [a, b] in ab {
                if self.helper_down {
                    piece(q, || swap_columns_down(a, b));
                } else {
                    piece(q, || swap_columns(a, b));
                }
            }
            drop(g);
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

/// `n` copies of `x`, leaked (the helper's share is `'static`), starting
/// `at` bytes past a page's start when given (`at` a multiple of 4).
fn column(x: f32, n: usize, at: Option<usize>) -> &'static mut [f32] {
    let v = vec![x; n + 1024].leak();
    let skip = at.map_or(0, |at| {
        (at as isize - v.as_ptr() as isize).rem_euclid(4096) as usize / 4
    });
    &mut v[skip..skip + n]
}

/// The best-effort version with `helper_quarters` of `ab`'s four on the
/// helper (1: the table's; 0: `ab` whole on the caller).
fn best_steps(iterations: usize, helper_quarters: usize, columns: bool) {
    // Leaked: the helper's share is `'static`. `columns`: one buffer per
    // component, indexed by entity (`C` from entity 10 000, `D` 20 000-30 000,
    // `E` 30 000-40 000), the quarters of `ab` side by side, as ecs lays
    // them out; otherwise a `Vec` per quarter and per system's column.
    let at: Option<usize> = std::env::var("BUF_AT").ok().and_then(|v| v.parse().ok());
    let col = |x: f32, n: usize| column(x, n, at);
    let (mut ab, cde): (Vec<[&'static mut [f32]; 2]>, [&'static mut [f32]; 4]) = if columns {
        let gap: usize = std::env::var("COL_GAP").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
        let quarters = |x: &'static mut [f32], gap: usize| -> Vec<&'static mut [f32]> {
            x.chunks_mut(N + gap).map(|c| &mut c[..N]).collect()
        };
        let (a, b) = (
            quarters(col(0.0, 4 * (N + gap)), gap),
            quarters(col(1.0, 4 * (N + gap)), gap),
        );
        let [_, _, c_cd, c_ce]: [&'static mut [f32]; 4] = quarters(col(2.0, 4 * N), 0).try_into().expect("4");
        let d = &mut col(3.0, 4 * N)[2 * N..3 * N];
        let e = &mut col(4.0, 4 * N)[3 * N..];
        (a.into_iter().zip(b).map(|(a, b)| [a, b]).collect(), [c_cd, d, c_ce, e])
    } else {
        (
            (0..4).map(|_| [col(0.0, N), col(1.0, N)]).collect(),
            [col(2.0, N), col(3.0, N), col(2.0, N), col(4.0, N)],
        )
    };
    let mirror = std::env::var("MIRROR").is_ok() && helper_quarters == 1;
    let theirs = if mirror {
        let rest = ab.split_off(1);
        core::mem::replace(&mut ab, rest)
    } else {
        ab.split_off(4 - helper_quarters)
    };
    let down = std::env::var("DOWN").is_ok();
    let shared = Arc::new(Shared {
        cde: Mutex::new((cde, theirs)),
        asked: AtomicU64::new(0),
        claimed: AtomicU64::new(0),
        done: AtomicU64::new(0),
        quit: AtomicBool::new(false),
        mirror,
        helper_down: std::env::var("HELPER_DOWN").is_ok(),
        chase: (0..std::env::var("CHASE").ok().and_then(|v| v.parse().ok()).unwrap_or(0))
            .map(|_| Link {
                next: AtomicUsize::new(usize::MAX),
            })
            .collect(),
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
    // Outside the step: the caller reads nothing of `shared` for `CHASE`
    // but the links themselves.
    let links: &[Link] = &shared.chase;
    timed(iterations, || {
        for (i, link) in links.iter().enumerate() {
            link.next
                .store(if i + 1 < links.len() { i + 1 } else { usize::MAX }, Ordering::Release);
        }
        let n = shared.asked.fetch_add(1, Ordering::AcqRel) + 1;
        helper.thread().unpark();
        // The caller's quarters (with `MIRROR` from the last down, as ecs's
        // caller claims them), each recorded as its quarter of `ab`.
        let quarters = ab.len();
        for j in 0..quarters {
            let (at, k) = if mirror {
                (quarters - 1 - j, quarters - j)
            } else {
                (j, j)
            };
            let [a, b] = &mut ab[at];
            if down {
                piece(k, || swap_columns_down(a, b));
            } else {
                piece(k, || swap_columns(a, b));
            }
        }
        shared.try_run(n);
        wait_until(|| shared.done.load(Ordering::Acquire) >= n, false);
    });
    black_box(&ab);
    shared.quit.store(true, Ordering::Release);
    helper.thread().unpark();
    let _ = helper.join();
}

/// rayon's own fork-join on a pool of two threads, the loop running on one
/// of its workers (`install`), each step `rayon::join(ab, cd)` then `ce` on
/// the thread that returns from the join.
fn join_steps(iterations: usize) {
    let col = |x: f32| vec![x; N];
    let mut ab: [[Vec<f32>; 2]; 4] = core::array::from_fn(|_| [col(0.0), col(1.0)]);
    let [mut c, mut d, mut c2, mut e] = [col(2.0), col(3.0), col(2.0), col(4.0)];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
    pool.install(|| {
        CALLER.with(|c| c.set(true));
        timed(iterations, || {
            rayon::join(
                || {
                    for (k, [a, b]) in ab.iter_mut().enumerate() {
                        piece(k, || swap_columns(a, b));
                    }
                },
                || piece(CD, || swap_columns(&mut c, &mut d)),
            );
            piece(CE, || swap_columns(&mut c2, &mut e));
        });
    });
    black_box((&ab, &c, &d, &c2, &e));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: schedule_threads ecs|ecs-whole|ecs-alone|best|best-columns|best-whole|join ITERATIONS";
    let Some(version) = args.get(1) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let iterations: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    CALLER.with(|c| c.set(true));
    match version.as_str() {
        "ecs" => ecs_split(iterations),
        "ecs-whole" => ecs_whole(iterations),
        "ecs-alone" => ecs_alone(iterations),
        "best" => best_steps(iterations, 1, false),
        "best-columns" => best_steps(iterations, 1, true),
        "best-whole" => best_steps(iterations, 0, false),
        "join" => join_steps(iterations),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}
