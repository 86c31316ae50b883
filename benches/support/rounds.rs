//! The shell the timed benches without criterion share (`columns`,
//! `stream`, `defer`): command-line rounds, interleaved timing with a
//! warm-up, medians, and the table of ratios to one reference variant.
//!
//! Each bench includes it with `#[path = "support/rounds.rs"] mod rounds;`
//! (a bench target is its own crate) and keeps only what it measures.
#![allow(dead_code)] // each bench uses part of it

use std::time::Duration;

/// The middle of the samples (the upper one of the two middles for an even
/// count).
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// `--rounds N` (default `default_rounds`) and `--only KEY`, the index of
/// `KEY` in `keys`.
pub struct Args {
    pub rounds: usize,
    pub only: Option<usize>,
}

impl Args {
    /// Reads the process's arguments.
    ///
    /// # Panics
    /// When `--only` names no key.
    pub fn parse(default_rounds: usize, keys: &[&str]) -> Self {
        let args: Vec<String> = std::env::args().collect();
        let arg = |name: &str| args.iter().skip_while(|a| *a != name).nth(1).cloned();
        Args {
            rounds: arg("--rounds").and_then(|n| n.parse().ok()).unwrap_or(default_rounds),
            only: arg("--only").map(|k| keys.iter().position(|&n| n == k).expect("a variant's key")),
        }
    }
}

/// Variants of one workload, each run once by `run(k)`, which times itself.
pub trait Variants {
    /// How the report names each variant.
    const NAMES: &'static [&'static str];
    fn run(&mut self, k: usize) -> Duration;
}

/// `rounds` runs of variant `k` alone, untimed: for `/usr/bin/time` or a
/// profiler.
pub fn run_only<V: Variants>(variants: &mut V, k: usize, rounds: usize) {
    for _ in 0..rounds {
        variants.run(k);
    }
    println!("{rounds} rounds of `{}`", V::NAMES[k]);
}

/// One warm-up run of each variant (pages touched, threads started), then
/// `rounds` rounds running every variant once in turn, so that a slow
/// moment of the machine falls on all of them; each variant's median.
pub fn medians<V: Variants>(variants: &mut V, rounds: usize) -> Vec<Duration> {
    for k in 0..V::NAMES.len() {
        variants.run(k);
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); V::NAMES.len()];
    for _ in 0..rounds {
        for (k, t) in times.iter_mut().enumerate() {
            t.push(variants.run(k));
        }
    }
    times.into_iter().map(median).collect()
}

/// Prints `title`, then each variant's median in µs and its ratio to
/// variant `reference`'s.
pub fn print_ratios<V: Variants>(title: &str, medians: &[Duration], reference: usize) {
    let width = V::NAMES.iter().map(|n| n.len()).max().unwrap_or(0);
    let base = medians[reference].as_secs_f64();
    println!("{title}");
    for (name, m) in V::NAMES.iter().zip(medians) {
        println!(
            "  {name:<width$} {:>9.1} µs  {:>5.2}x",
            m.as_secs_f64() * 1e6,
            m.as_secs_f64() / base
        );
    }
}
