//! Peer benchmark: `ecs` against a hand-written baseline, bevy_ecs, hecs,
//! legion, specs, shipyard and gecs on the workloads of ecs_bench_suite
//! (`shared/workloads.md`), in one binary and one run.
//!
//! Each workload's implementations are checked for correctness first (each
//! against what the workload must do, and against what ecs computed), then
//! measured with interleaved samples (see `harness`); the table goes to
//! stdout and, on a full run, to BENCHMARKS.md with a bar chart.

mod chart;
mod components;
mod expect;
mod harness;
mod libs;
mod machine;
mod math;
mod report;
mod workload;

use clap::Parser;
use harness::{Bench, Plan};
use machine::Machine;
use report::Results;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use workload::{Lib, Workload};

/// Compares ecs with a hand-written baseline and six ECS crates.
///
/// A full run writes BENCHMARKS.md and the chart; with --quick, --only or --lib,
/// files are written only where --out or --chart name them.
#[derive(Parser)]
#[command(version, about)]
struct Args {
    /// Few and short samples: a smoke run.
    #[arg(long)]
    quick: bool,
    /// Only these workloads (comma-separated or repeated).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "WORKLOAD")]
    only: Vec<Workload>,
    /// Only these implementations (comma-separated or repeated; the
    /// baseline and the best-effort version always run, for the ratios).
    #[arg(long, value_delimiter = ',', value_name = "LIB")]
    lib: Vec<String>,
    /// Print every sample of every implementation to stderr.
    #[arg(long)]
    samples: bool,
    /// Run the correctness checks only.
    #[arg(long)]
    check: bool,
    /// Where to write the markdown report [default: BENCHMARKS.md at the
    /// repository root].
    #[arg(long, value_name = "BENCHMARKS_PATH")]
    out: Option<PathBuf>,
    /// Where to write the bar chart [default: benches/results/peers.png].
    #[arg(long, value_name = "PATH")]
    chart: Option<PathBuf>,
    /// Independent runs, each setting every implementation up again and
    /// measuring every workload [default: 5, 1 with --quick]. The table
    /// pools their samples; ecs is faster than a peer closer than 1.2x
    /// only if it is faster in every run (and there are at least 3).
    #[arg(long, value_name = "N")]
    runs: Option<usize>,
}

/// What a measured row is: an implementation of the table, or another way
/// to write ecs's.
#[derive(Clone, Copy)]
enum Row {
    Lib(Lib),
    Variant(&'static str),
}

/// The repository root: two levels above this crate.
fn repo_root() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir.ancestors().nth(2).unwrap_or(crate_dir).to_path_buf()
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), Box<dyn Error>> {
    let workloads = if args.only.is_empty() {
        Workload::ALL.to_vec()
    } else {
        Workload::ALL.into_iter().filter(|w| args.only.contains(w)).collect()
    };
    let machine = Machine::detect();
    eprintln!("{} cores, {}, {}", machine.cores, machine.cpu, machine.rustc);

    check(&workloads)?;
    if args.check {
        return Ok(());
    }

    let plan = if args.quick { Plan::quick() } else { Plan::full() };
    let runs = args.runs.unwrap_or(if args.quick { 1 } else { 5 }).max(1);
    let mut results = Results::new(workloads.clone(), runs);
    let selected = |lib: Lib| {
        lib.is_reference() || args.lib.is_empty() || args.lib.iter().any(|l| lib.name().starts_with(l.as_str()))
    };
    // Each run sets every implementation up again and measures every
    // workload, so that whatever the machine does during one run weighs on
    // one run's figures only.
    for run in 0..runs {
        for &w in &workloads {
            let mut benches: Vec<(Row, Box<dyn Bench>)> = Lib::ALL
                .into_iter()
                .filter(|&lib| selected(lib))
                .filter_map(|lib| Some((Row::Lib(lib), libs::make(w, lib)?)))
                .collect();
            if selected(Lib::Ecs) {
                benches.extend(
                    libs::ecs_variants(w)
                        .into_iter()
                        .map(|(name, bench)| (Row::Variant(name), bench)),
                );
            }
            eprintln!(
                "run {}/{runs}: measuring {} ({} implementations and variants)",
                run + 1,
                w.name(),
                benches.len()
            );
            for (row, stats) in harness::measure(&mut benches, &plan) {
                let name = match row {
                    Row::Lib(lib) => lib.name(),
                    Row::Variant(_) => "ecs, variant",
                };
                eprintln!("  {:<12} {}", name, report::time(stats.median()));
                if args.samples {
                    let all: Vec<String> = stats.samples.iter().map(|&s| report::time(s)).collect();
                    eprintln!("    samples (per iteration, sorted): {}", all.join(", "));
                }
                match row {
                    Row::Lib(lib) => results.add(w, lib, stats),
                    Row::Variant(how) => results.add_variant(w, how, stats),
                }
            }
        }
    }
    println!("{}", results.table());
    println!("{}", results.targets());
    println!("{}", results.variants());

    let partial = args.quick || !args.only.is_empty() || !args.lib.is_empty();
    let out = args
        .out
        .or_else(|| (!partial).then(|| repo_root().join("BENCHMARKS.md")));
    let chart = args
        .chart
        .or_else(|| (!partial).then(|| repo_root().join("benches/results/peers.png")));
    let mut chart_link = None;
    if let Some(chart) = &chart {
        if let Some(dir) = chart.parent() {
            std::fs::create_dir_all(dir)?;
        }
        if chart::draw(&results, chart)? {
            eprintln!("wrote {}", chart.display());
            chart_link = Some(relative_link(chart, out.as_deref()));
        }
    }
    if let Some(out) = &out {
        let md = results.markdown(&machine, &plan, args.quick, chart_link.as_deref());
        std::fs::write(out, md)?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

/// Runs every implementation's check on a fresh set-up; fails listing each
/// implementation whose result is wrong, or differs from ecs's: every value
/// a check reads back must have the same bits as ecs's (`expect::take_digest`).
fn check(workloads: &[Workload]) -> Result<(), Box<dyn Error>> {
    let mut failures = Vec::new();
    for &w in workloads {
        let mut ecs_digest = None;
        let mut digests = Vec::new();
        for lib in Lib::ALL {
            let Some(mut bench) = libs::make(w, lib) else { continue };
            if let Err(e) = bench.check() {
                failures.push(format!("{} / {}: {e}", w.name(), lib.name()));
            }
            let digest = expect::take_digest();
            if lib == Lib::Ecs {
                ecs_digest = Some(digest.clone());
            }
            digests.push((lib.name().to_string(), digest));
        }
        for (how, mut bench) in libs::ecs_variants(w) {
            if let Err(e) = bench.check() {
                failures.push(format!("{} / ecs, {how}: {e}", w.name()));
            }
            digests.push((format!("ecs, {how}"), expect::take_digest()));
        }
        let Some(ecs_digest) = ecs_digest else { continue };
        for (name, digest) in digests {
            if digest != ecs_digest {
                let at = digest.iter().zip(&ecs_digest).position(|(a, b)| a != b);
                failures.push(format!(
                    "{} / {name}: read back other values than ecs ({} values against {}, first difference at {at:?})",
                    w.name(),
                    digest.len(),
                    ecs_digest.len()
                ));
            }
        }
    }
    if failures.is_empty() {
        eprintln!(
            "checks passed: {}",
            workloads.iter().map(|w| w.name()).collect::<Vec<_>>().join(", ")
        );
        Ok(())
    } else {
        Err(format!("checks failed:\n  {}", failures.join("\n  ")).into())
    }
}

/// `target` as a link from the directory of `from`: relative when it lies
/// below that directory, absolute otherwise.
fn relative_link(target: &Path, from: Option<&Path>) -> String {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let target = canon(target);
    let base = from
        .and_then(Path::parent)
        .map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d })
        .map(canon);
    match base.and_then(|b| target.strip_prefix(b).ok().map(Path::to_path_buf)) {
        Some(rel) => rel.display().to_string(),
        None => target.display().to_string(),
    }
}
