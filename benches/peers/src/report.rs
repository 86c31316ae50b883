//! The report: the table of medians and ratios, ecs's targets, the machine
//! and versions, and how to reproduce; as markdown for stdout and
//! BENCHMARKS.md.

use crate::harness::{Plan, Stats};
use crate::libs;
use crate::machine::Machine;
use crate::workload::{Lib, Workload};
use std::collections::BTreeMap;
use std::fmt::Write;

/// How much faster ecs must be than a peer to count as faster: closer than
/// this, two implementations tie (`shared/workloads.md`).
const TIE: f64 = 1.2;

/// Where ecs stands against the fastest peer of a workload.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Standing {
    /// Faster than every peer by at least [`TIE`] (or no peer ran).
    Ahead,
    /// Within [`TIE`] of the fastest peer, either way.
    Tie,
    /// Slower than a peer by more than [`TIE`].
    Behind,
}

/// Every measurement of a run.
pub struct Results {
    pub workloads: Vec<Workload>,
    pub cells: BTreeMap<(Workload, Lib), Stats>,
    /// Other ways to write ecs's implementation: workload, how, stats.
    pub variants: Vec<(Workload, &'static str, Stats)>,
}

impl Results {
    /// Median seconds per iteration of one cell.
    pub fn median(&self, w: Workload, lib: Lib) -> Option<f64> {
        self.cells.get(&(w, lib)).map(Stats::median)
    }

    /// The cell's median over the baseline's.
    pub fn ratio(&self, w: Workload, lib: Lib) -> Option<f64> {
        Some(self.median(w, lib)? / self.median(w, Lib::Baseline)?)
    }

    /// The table of medians and ratios: a row per workload, a column per
    /// implementation.
    pub fn table(&self) -> String {
        let mut s = String::from("| workload |");
        for lib in Lib::ALL {
            let _ = write!(s, " {} |", lib.name());
        }
        s.push_str("\n| --- |");
        s.push_str(&" ---: |".repeat(Lib::ALL.len()));
        s.push('\n');
        for &w in &self.workloads {
            let _ = write!(s, "| {} |", w.name());
            for lib in Lib::ALL {
                match (self.median(w, lib), self.ratio(w, lib)) {
                    (Some(m), Some(r)) => {
                        let cell = format!("{} ({})", time(m), ratio(r));
                        if lib == Lib::Ecs {
                            let _ = write!(s, " **{cell}** |");
                        } else {
                            let _ = write!(s, " {cell} |");
                        }
                    }
                    _ => s.push_str(" — |"),
                }
            }
            s.push('\n');
        }
        s
    }

    /// The fastest peer of a workload and its median.
    fn fastest_peer(&self, w: Workload) -> Option<(Lib, f64)> {
        Lib::ALL
            .into_iter()
            .filter(|l| l.is_peer())
            .filter_map(|l| Some((l, self.median(w, l)?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Whether `ecs` met its ratio target on `w`, and where it stands
    /// against the fastest peer. `None` when not measured.
    pub fn verdict(&self, w: Workload) -> Option<(bool, Standing)> {
        let r = self.ratio(w, Lib::Ecs)?;
        let ecs = self.median(w, Lib::Ecs)?;
        // workloads.md: under ~1.2x apart, two implementations tie unless
        // repeated runs agree; only a clear lead counts as faster.
        let standing = match self.fastest_peer(w) {
            None => Standing::Ahead,
            Some((_, m)) if ecs * TIE <= m => Standing::Ahead,
            Some((_, m)) if ecs <= m * TIE => Standing::Tie,
            Some(_) => Standing::Behind,
        };
        Some((r <= w.target(), standing))
    }

    /// The targets table: one row per workload.
    pub fn targets(&self) -> String {
        let mut s = String::from(
            "| workload | target (ratio to baseline) | ecs | fastest peer | ratio target | faster than every peer \
             | verdict |\n| --- | ---: | ---: | --- | --- | --- | --- |\n",
        );
        for &w in &self.workloads {
            let (Some(r), Some((ratio_ok, standing))) = (self.ratio(w, Lib::Ecs), self.verdict(w)) else {
                continue;
            };
            let fastest = self.fastest_peer(w);
            let peer = fastest
                .and_then(|(l, _)| Some(format!("{} ({})", l.name(), ratio(self.ratio(w, l)?))))
                .unwrap_or_else(|| "—".into());
            let yes = |b: bool| if b { "yes" } else { "no" };
            let beats_text = match standing {
                Standing::Ahead => "yes",
                Standing::Tie => "no (within 1.2×: a tie on this machine)",
                Standing::Behind => "no",
            };
            let beats = standing == Standing::Ahead;
            let verdict = if ratio_ok && beats { "**met**" } else { "**missed**" };
            let _ = writeln!(
                s,
                "| {} | ≤ {:.2}× | {} | {} | {} | {} | {} |",
                w.name(),
                w.target(),
                ratio(r),
                peer,
                yes(ratio_ok),
                beats_text,
                verdict
            );
        }
        s
    }

    /// The variants of ecs's implementations: their medians, ratios to the
    /// baseline and to the table's ecs, from the same run.
    pub fn variants(&self) -> String {
        if self.variants.is_empty() {
            return String::new();
        }
        let mut s = String::from(
            "| workload | ecs written as | median | ratio to baseline | ratio to the table's ecs |\n\
             | --- | --- | ---: | ---: | ---: |\n",
        );
        for (w, how, stats) in &self.variants {
            let m = stats.median();
            let of = |lib| self.median(*w, lib).map_or_else(|| "—".into(), |base| ratio(m / base));
            let _ = writeln!(
                s,
                "| {} | {how} | {} | {} | {} |",
                w.name(),
                time(m),
                of(Lib::Baseline),
                of(Lib::Ecs)
            );
        }
        s
    }

    /// Per cell: the spread of the samples (interquartile range over the
    /// median) and samples × iterations.
    pub fn spread(&self) -> String {
        let mut s = String::from("| workload |");
        for lib in Lib::ALL {
            let _ = write!(s, " {} |", lib.name());
        }
        s.push_str("\n| --- |");
        s.push_str(&" ---: |".repeat(Lib::ALL.len()));
        s.push('\n');
        for &w in &self.workloads {
            let _ = write!(s, "| {} |", w.name());
            for lib in Lib::ALL {
                match self.cells.get(&(w, lib)) {
                    Some(st) => {
                        let _ = write!(s, " ±{:.1}% ({}×{}) |", st.spread() * 50.0, st.samples.len(), st.iters);
                    }
                    None => s.push_str(" — |"),
                }
            }
            s.push('\n');
        }
        s
    }

    /// The whole of BENCHMARKS.md; `chart` is the chart's path relative to
    /// the file, if one was drawn.
    pub fn markdown(&self, machine: &Machine, plan: &Plan, quick: bool, chart: Option<&str>) -> String {
        let mut s = String::new();
        s.push_str("# Peer benchmarks\n\n");
        s.push_str(
            "`ecs` against a hand-written baseline and six other ECS crates, on the workloads of the \
             community's ecs_bench_suite (`shared/workloads.md`): every implementation in one binary \
             and one run (`benches/peers`). Each cell is the median time per iteration, then the ratio to \
             the baseline of the same run. This machine is noisy (±20-30% between runs): read a ratio \
             rather than a time, and a difference under ~1.2× between two implementations as a tie \
             unless repeated runs agree.\n\n",
        );
        if quick {
            s.push_str("**Smoke run (`--quick`): few and short samples; do not quote these numbers.**\n\n");
        }
        let _ = writeln!(s, "Run of {}.\n", machine.date);
        s.push_str(&self.table());
        s.push('\n');
        if let Some(chart) = chart {
            let _ = writeln!(s, "![ratio to the baseline per workload]({chart})\n");
        }
        s.push_str("## Targets for ecs\n\n");
        s.push_str(
            "Ratio to the baseline at most the target, and a median at least 1.2× below every peer's \
             (closer is a tie, which is not met). `schedule`'s baseline is sequential, ecs runs on all \
             cores; `heavy_compute`'s baseline is rayon's `par_iter`.\n\n",
        );
        s.push_str(&self.targets());
        if !self.variants.is_empty() {
            s.push_str("\n## Other ways to write ecs's implementations\n\n");
            s.push_str(
                "Measured beside the table's implementations, in the same run: what `add_to_all` and \
                 `remove_from_all` gain over `add` and `remove` per handle, and what the change costs once \
                 systems run and match it.\n\n",
            );
            s.push_str(&self.variants());
        }
        s.push_str("\n## Reading the baseline\n\n");
        s.push_str(BASELINE_NOTES);
        s.push_str("\n## How each implementation is used\n\n");
        for lib in Lib::ALL {
            let _ = writeln!(s, "- **{}**: {}", lib.name(), libs::notes(lib));
        }
        s.push_str("\n## Machine and versions\n\n");
        let _ = writeln!(s, "- cores (`nproc`): {}", machine.cores);
        let _ = writeln!(s, "- CPU: {}", machine.cpu);
        let _ = writeln!(s, "- compiler: {}", machine.rustc);
        let _ = writeln!(
            s,
            "- release profile: Cargo's defaults (`opt-level = 3`, no LTO), line tables only, the same for every crate"
        );
        let _ = writeln!(
            s,
            "- ecs {} (this repository, {})",
            machine.version("ecs"),
            machine.ecs_revision
        );
        for lib in Lib::ALL.into_iter().filter(|l| l.is_peer()) {
            let krate = lib.krate().unwrap_or_default();
            let _ = writeln!(s, "- {krate} {} (crates.io)", machine.version(krate));
        }
        let _ = writeln!(s, "- rayon {} (baseline's `par_iter`)", machine.version("rayon"));
        s.push_str("\nVersions are read from `benches/peers/Cargo.lock` when the binary is built.\n");
        s.push_str("\n## Method\n\n");
        let _ = writeln!(
            s,
            "Per workload, every implementation is set up (not timed) and checked once: it runs one \
             iteration from a fresh set-up and its data is read back and compared with what the \
             workload must do (a failed check stops the run). glibc's malloc thresholds are pinned high \
             at start-up, so that no implementation gets fresh, page-faulting memory on each iteration \
             depending on what ran before (`src/alloc.rs`). Then each warms up for {} ms, which also \
             sizes its samples to last at least {} ms; samples of all implementations are taken in \
             turn, in a new (shuffled) order each round, each after {} ms idle and one untimed iteration \
             (so that another implementation's thread pool winding down is not charged to it), up to {} \
             samples or {} ms per implementation (at least {} samples). The median over samples of the \
             time per iteration is reported. Spread of the samples (half the interquartile range over \
             the median) and samples × iterations per sample:\n",
            plan.warmup.as_millis(),
            plan.sample_time.as_millis(),
            plan.pause.as_millis(),
            plan.samples,
            plan.budget.as_millis(),
            plan.min_samples
        );
        s.push_str(&self.spread());
        s.push_str("\n## Reproduce\n\n");
        s.push_str(
            "```sh\n\
             scripts/peer-bench                       # full run: prints the table, writes this file and the chart\n\
             scripts/peer-bench --quick               # smoke run (files written only with --out/--chart)\n\
             scripts/peer-bench --only simple_iter    # one workload\n\
             scripts/peer-bench --check               # only the correctness checks\n\
             scripts/peer-bench --lib ecs,hecs --samples  # some implementations, every sample printed\n\
             ```\n\n\
             `scripts/peer-bench` is `cargo run --release --manifest-path benches/peers/Cargo.toml -- \"$@\"`; \
             the peers crate is its own workspace with its own Cargo.lock, so the root's `cargo test` never \
             builds the peer crates.\n",
        );
        s
    }
}

/// What the table's baseline is, and why some crates beat it.
const BASELINE_NOTES: &str = "The baseline is the plain code workloads.md describes, not the fastest code \
possible, so crates can beat it: in simple_iter its `zip` over 12-byte `Position`/`Velocity` compiles to scalar \
code, while the loops of some crates come out vectorised in pairs; in frag_iter the baseline is 26 separate \
`Vec`s of 20, which is what the workload fragments, while crates that keep every `Data` in one array (shipyard's \
sparse set, ecs's id-indexed column, gecs's archetypes) loop once; in simple_insert gecs writes into storage \
allocated for exactly its entities, without the capacity checks of `Vec::push`. `heavy_compute` is bound by the \
arithmetic, so every implementation that splits it over both cores ties with the baseline. `schedule`'s \
baseline is the sequential sum of three loops of ~6 µs in all: a second thread pays only if it costs less \
than the work it takes over, which is why ecs's caller runs systems itself instead of waiting for workers.\n";

/// A duration in seconds with three significant digits and a unit.
pub fn time(secs: f64) -> String {
    let (value, unit) = if secs < 1e-6 {
        (secs * 1e9, "ns")
    } else if secs < 1e-3 {
        (secs * 1e6, "µs")
    } else if secs < 1.0 {
        (secs * 1e3, "ms")
    } else {
        (secs, "s")
    };
    let decimals = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.decimals$} {unit}")
}

/// A ratio to the baseline, `1.05×`.
pub fn ratio(r: f64) -> String {
    let decimals = if r < 10.0 {
        2
    } else if r < 100.0 {
        1
    } else {
        0
    };
    format!("{r:.decimals$}×")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(ecs: f64, peer: f64) -> Results {
        let cell = |secs: f64| Stats {
            samples: vec![secs],
            iters: 1,
        };
        let w = Workload::HeavyCompute;
        let cells = [(Lib::Baseline, 1.0), (Lib::Ecs, ecs), (Lib::Hecs, peer)]
            .into_iter()
            .map(|(lib, secs)| ((w, lib), cell(secs)))
            .collect();
        Results {
            workloads: vec![w],
            cells,
            variants: Vec::new(),
        }
    }

    #[test]
    fn only_a_lead_of_the_tie_margin_counts_as_faster() {
        let standing = |ecs, peer| results(ecs, peer).verdict(Workload::HeavyCompute).unwrap().1;
        assert_eq!(standing(1.0, 1.25), Standing::Ahead);
        assert_eq!(standing(1.0, 1.1), Standing::Tie);
        assert_eq!(standing(1.1, 1.0), Standing::Tie);
        assert_eq!(standing(1.3, 1.0), Standing::Behind);
        assert!(results(1.0, 1.1).targets().contains("**missed**"), "a tie is not met");
        assert!(results(1.0, 1.25).targets().contains("**met**"));
    }
}
