//! A small benchmark harness: warm up, find how many iterations last one
//! sample, then take samples of every implementation of a workload in
//! turn (interleaved in a new order each round, so that a slow phase of a
//! noisy machine hits them all alike, each after a short pause) and keep
//! the median time per iteration.

use crate::expect::Check;
use std::time::{Duration, Instant};

/// One implementation of one workload, set up and ready to run.
pub trait Bench {
    /// One timed iteration of the workload.
    fn run(&mut self);

    /// On a fresh set-up: runs the workload once (in its phases, where it
    /// has some) and checks what it did.
    fn check(&mut self) -> Check;
}

/// How long and how often to measure.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Samples per implementation.
    pub samples: usize,
    /// Fewest samples kept when the budget runs out.
    pub min_samples: usize,
    /// How long one sample should last at least.
    pub sample_time: Duration,
    /// Warm-up per implementation, which also sizes the samples.
    pub warmup: Duration,
    /// Time per implementation after which no more samples are taken.
    pub budget: Duration,
    /// Idle time before each sample.
    pub pause: Duration,
}

impl Plan {
    /// The plan of a real run: about a second per implementation.
    pub fn full() -> Self {
        Plan {
            samples: 40,
            min_samples: 15,
            sample_time: Duration::from_millis(20),
            warmup: Duration::from_millis(200),
            budget: Duration::from_millis(1500),
            pause: Duration::from_millis(5),
        }
    }

    /// A smoke run: a few short samples.
    pub fn quick() -> Self {
        Plan {
            samples: 8,
            min_samples: 5,
            sample_time: Duration::from_millis(5),
            warmup: Duration::from_millis(20),
            budget: Duration::from_millis(150),
            pause: Duration::from_millis(1),
        }
    }
}

/// The measurements of one implementation.
#[derive(Clone, Debug)]
pub struct Stats {
    /// Seconds per iteration of each sample, sorted.
    pub samples: Vec<f64>,
    /// Iterations per sample.
    pub iters: u64,
}

impl Stats {
    /// Median seconds per iteration.
    pub fn median(&self) -> f64 {
        quantile(&self.samples, 0.5)
    }

    /// Adds another run's samples to these.
    pub fn merge(&mut self, other: Stats) {
        self.samples.extend(other.samples);
        self.samples.sort_by(f64::total_cmp);
    }

    /// Interquartile range over the median: the spread of the samples.
    pub fn spread(&self) -> f64 {
        (quantile(&self.samples, 0.75) - quantile(&self.samples, 0.25)) / self.median()
    }
}

/// The `q` quantile of sorted values, interpolated.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Measures every bench by `plan`, interleaving their samples; `K` names
/// each.
pub fn measure<K: Copy>(benches: &mut [(K, Box<dyn Bench>)], plan: &Plan) -> Vec<(K, Stats)> {
    let iters: Vec<u64> = benches.iter_mut().map(|(_, b)| calibrate(b.as_mut(), plan)).collect();
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(plan.samples); benches.len()];
    let mut spent = vec![Duration::ZERO; benches.len()];
    let mut order: Vec<usize> = (0..benches.len()).collect();
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..plan.samples {
        // A new order each round: no implementation always follows the same
        // one.
        shuffle(&mut order, &mut rng);
        for &i in &order {
            if spent[i] > plan.budget && samples[i].len() >= plan.min_samples {
                continue;
            }
            let bench = benches[i].1.as_mut();
            // Let the previous implementation's worker threads finish spinning
            // and go to sleep: on two cores, a thread pool winding down
            // competes with the next one's threads for milliseconds. Then one
            // untimed iteration warms the caches this implementation uses.
            std::thread::sleep(plan.pause);
            bench.run();
            let start = Instant::now();
            for _ in 0..iters[i] {
                bench.run();
            }
            let elapsed = start.elapsed();
            spent[i] += elapsed;
            samples[i].push(elapsed.as_secs_f64() / iters[i] as f64);
        }
    }
    benches
        .iter()
        .zip(samples)
        .zip(iters)
        .map(|((&(lib, _), mut samples), iters)| {
            samples.sort_by(f64::total_cmp);
            (lib, Stats { samples, iters })
        })
        .collect()
}

/// Shuffles `order` in place (Fisher-Yates, xorshift64): a fixed sequence,
/// so runs interleave alike.
fn shuffle(order: &mut [usize], state: &mut u64) {
    for i in (1..order.len()).rev() {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        order.swap(i, (*state % (i as u64 + 1)) as usize);
    }
}

/// Warms `bench` up for the plan's warm-up time and returns how many
/// iterations make one sample.
fn calibrate(bench: &mut dyn Bench, plan: &Plan) -> u64 {
    let start = Instant::now();
    let mut done = 0u64;
    while done == 0 || start.elapsed() < plan.warmup {
        bench.run();
        done += 1;
    }
    let per_iter = start.elapsed().as_secs_f64() / done as f64;
    (plan.sample_time.as_secs_f64() / per_iter).ceil().max(1.0) as u64
}
