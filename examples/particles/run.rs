//! Running a wave as the thesis measures it, for the example and the
//! benchmark.

use std::time::{Duration, Instant};

use crate::sim::{wave, Simulation};

/// What one wave measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaveReport {
    /// Particles created.
    pub entities: usize,
    /// Steps run.
    pub steps: usize,
    /// From the start of entity creation until no particle is left (or the
    /// step limit), in milliseconds.
    pub wave_ms: f64,
    /// Mean step time, in milliseconds.
    pub step_mean_ms: f64,
    /// Median step time, in milliseconds.
    pub step_median_ms: f64,
    /// Particles alive at the end.
    pub alive: usize,
}

/// Runs a wave of `entities` particles drawn with `seed` until none is left,
/// or for at most `max_steps` steps.
///
/// `observe` is called after creation (step 0) and after every step; the time
/// it takes is not counted.
///
/// # Errors
/// When a fixed-size context cannot hold the wave.
pub fn run_wave(
    sim: &mut dyn Simulation,
    entities: usize,
    seed: u64,
    max_steps: Option<usize>,
    observe: &mut dyn FnMut(&mut dyn Simulation, usize),
) -> Result<WaveReport, ecs::ContextFull> {
    let start = Instant::now();
    let mut paused = Duration::ZERO;
    let mut pause = |sim: &mut dyn Simulation, step: usize| {
        let t = Instant::now();
        observe(sim, step);
        paused += t.elapsed();
    };
    sim.spawn(&wave(entities, seed))?;
    pause(sim, 0);
    let mut step_ms = Vec::with_capacity(crate::sim::MAX_STEPS);
    while sim.alive() > 0 && max_steps.is_none_or(|m| step_ms.len() < m) {
        let t = Instant::now();
        sim.step();
        step_ms.push(t.elapsed().as_secs_f64() * 1e3);
        pause(sim, step_ms.len());
    }
    let wave_ms = (start.elapsed() - paused).as_secs_f64() * 1e3;
    Ok(WaveReport {
        entities,
        steps: step_ms.len(),
        wave_ms,
        step_mean_ms: mean(&step_ms),
        step_median_ms: median(&step_ms),
        alive: sim.alive(),
    })
}

/// Mean of `xs`; 0 when empty.
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// Median of `xs` (mean of the middle two for an even count); 0 when empty.
pub fn median(xs: &[f64]) -> f64 {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Median of the ratios `xs[i] / ys[i]`: the ratio of two subjects measured
/// in pairs, each pair close together in time (the benchmark runs every
/// configuration of a wave size before the next size). A machine whose load
/// changes between pairs (a second core taken for a minute by another
/// process) moves both times of a pair, so the ratio of each pair survives
/// it where the ratio of the two medians may pair a fast run of one subject
/// with a slow run of the other. Pairs beyond the shorter slice are ignored;
/// 0 when there is none.
#[allow(dead_code, reason = "the benchmark compares subjects; the example runs one")]
pub fn median_of_ratios(xs: &[f64], ys: &[f64]) -> f64 {
    let ratios: Vec<f64> = xs.iter().zip(ys).map(|(x, y)| x / y).collect();
    median(&ratios)
}
