//! ECST's particle simulation (Vittorio Romeo's thesis, part III), written
//! with `declare_context!`, and the same simulation written by hand.
//!
//! ```sh
//! cargo run --release --example particles                       # one 50 000 wave
//! cargo run --release --example particles -- --entities 50000,100000,200000 --inner-parallelism off
//! cargo run --release --example particles -- --impl handwritten --json
//! cargo run --release --example particles -- --entities 20000 --frames frames --every 25
//! ```
//!
//! The simulation is specified in `shared/particles.md`: `sim.rs` holds its
//! components, physics and the one declaration of its systems, instantiated
//! for every combination of settings in `contexts.rs`; `handwritten.rs` is
//! the reference without the library.

mod cli;
mod contexts;
mod frames;
mod handwritten;
mod run;
mod sim;

use std::error::Error;
use std::process::ExitCode;

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use cli::{Args, Impl, OnOff, StorageArg};
use contexts::Storage;
use sim::Simulation;

fn main() -> ExitCode {
    let args = Args::parse();
    match simulate(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn simulate(args: &Args) -> Result<(), Box<dyn Error>> {
    let inner = args.inner_parallelism == OnOff::On;
    let storage = match args.storage {
        StorageArg::Fixed => Storage::Fixed,
        StorageArg::Dynamic => Storage::Dynamic,
    };
    let threads = args.threads.unwrap_or_else(default_threads);
    let mut sim: Box<dyn Simulation> = match args.implementation {
        Impl::Ecs => contexts::ecs(storage, inner, threads),
        Impl::Handwritten => Box::new(handwritten::Handwritten::new(threads, inner)),
    };
    if let Some(dir) = &args.frames {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    if !args.json {
        let storage = match args.implementation {
            Impl::Ecs => format!("{} storage, ", storage.name()),
            Impl::Handwritten => String::new(),
        };
        println!(
            "particles: {}, {storage}inner parallelism {}, {} thread(s), seed {}",
            args.implementation.name(),
            if inner { "on" } else { "off" },
            sim.threads(),
            args.seed
        );
    }
    for (index, &entities) in args.entities.iter().enumerate() {
        let bar = progress_bar(args, index, entities);
        let mut frame_error = None;
        let mut observe = |sim: &mut dyn Simulation, step: usize| {
            bar.set_position(step as u64);
            bar.set_message(format!("{} alive, {} contacts", sim.alive(), sim.contacts()));
            if let Some(dir) = &args.frames
                && (step as u64).is_multiple_of(args.every)
                && frame_error.is_none()
            {
                let path = dir.join(format!("wave{index}_step{step:04}.png"));
                frame_error = frames::write(&path, &sim.particles()).err();
            }
        };
        let report = run::run_wave(sim.as_mut(), entities, args.seed, args.steps, &mut observe)?;
        bar.finish_and_clear();
        if let Some(e) = frame_error {
            return Err(format!("cannot write a frame: {e}").into());
        }
        if args.json {
            let line = serde_json::json!({
                "impl": args.implementation.name(),
                "storage": (args.implementation == Impl::Ecs).then_some(storage.name()),
                "inner_parallelism": inner,
                "threads": sim.threads(),
                "seed": args.seed,
                "wave": index,
                "entities": report.entities,
                "steps": report.steps,
                "wave_ms": report.wave_ms,
                "step_mean_ms": report.step_mean_ms,
                "step_median_ms": report.step_median_ms,
                "alive": report.alive,
            });
            println!("{line}");
        } else {
            println!(
                "wave {index}: {} entities, {} steps, {:.0} ms, step mean {:.2} ms, median {:.2} ms, {} alive at the end",
                report.entities, report.steps, report.wave_ms, report.step_mean_ms, report.step_median_ms, report.alive
            );
        }
    }
    Ok(())
}

/// One thread per core.
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A bar over the steps of a wave, on standard error; hidden with `--json`
/// or when standard error is not a terminal.
fn progress_bar(args: &Args, index: usize, entities: usize) -> ProgressBar {
    let steps = args.steps.unwrap_or(sim::MAX_STEPS).min(sim::MAX_STEPS);
    let target = if args.json {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    };
    let bar = ProgressBar::with_draw_target(Some(steps as u64), target);
    let style = ProgressStyle::with_template("{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} steps, {msg}")
        .expect("a valid template");
    bar.set_style(style);
    bar.set_prefix(format!("wave {index}: {entities} particles"));
    bar
}
