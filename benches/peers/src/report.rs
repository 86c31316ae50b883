//! The report: the table of medians and ratios, ecs's targets, the machine
//! and versions, and how to reproduce; as markdown for stdout and
//! BENCHMARKS.md.

use crate::harness::{Plan, Stats};
use crate::libs;
use crate::machine::Machine;
use crate::workload::{Lib, Workload};
use std::collections::BTreeMap;
use std::fmt::Write;

/// How much faster ecs must be than a peer to count as faster at once:
/// closer than this, two implementations tie unless repeated runs agree
/// (`shared/workloads.md`).
const TIE: f64 = 1.2;

/// How many runs must agree that ecs is faster, when closer than [`TIE`].
const AGREEING_RUNS: usize = 3;

/// Where ecs stands against the peers of a workload.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Standing {
    /// Faster than every peer by at least [`TIE`] (or no peer ran).
    Ahead,
    /// Faster than every peer, some by less than [`TIE`] but in every one
    /// of at least [`AGREEING_RUNS`] runs.
    AheadInEveryRun,
    /// Within [`TIE`] of a peer, and not faster than it in every run.
    Tie,
    /// Slower than a peer by more than [`TIE`].
    Behind,
}

/// Every measurement of the runs of one invocation.
pub struct Results {
    pub workloads: Vec<Workload>,
    /// How many runs were made.
    pub runs: usize,
    /// Per cell, the samples of every run together.
    pub cells: BTreeMap<(Workload, Lib), Stats>,
    /// Per cell, each run's median, in run order.
    pub run_medians: BTreeMap<(Workload, Lib), Vec<f64>>,
    /// Other ways to write ecs's implementation: workload, how, stats (every
    /// run's samples together).
    pub variants: Vec<(Workload, &'static str, Stats)>,
}

/// Where ecs's gaps to the best-effort versions come from, as measured
/// with callgrind and read in the generated code: hand-written, kept in
/// `benches/peers/gaps.md` and copied into every BENCHMARKS.md.
const GAPS: &str = include_str!("../gaps.md");

impl Results {
    /// No measurement yet, of `runs` runs over `workloads`.
    pub fn new(workloads: Vec<Workload>, runs: usize) -> Self {
        Results {
            workloads,
            runs,
            cells: BTreeMap::new(),
            run_medians: BTreeMap::new(),
            variants: Vec::new(),
        }
    }

    /// One run's measurement of one cell.
    pub fn add(&mut self, w: Workload, lib: Lib, stats: Stats) {
        self.run_medians.entry((w, lib)).or_default().push(stats.median());
        match self.cells.get_mut(&(w, lib)) {
            Some(cell) => cell.merge(stats),
            None => {
                self.cells.insert((w, lib), stats);
            }
        }
    }

    /// One run's measurement of a variant of ecs's implementation.
    pub fn add_variant(&mut self, w: Workload, how: &'static str, stats: Stats) {
        match self.variants.iter_mut().find(|(vw, vhow, _)| *vw == w && *vhow == how) {
            Some((_, _, cell)) => cell.merge(stats),
            None => self.variants.push((w, how, stats)),
        }
    }

    /// Median seconds per iteration of one cell.
    pub fn median(&self, w: Workload, lib: Lib) -> Option<f64> {
        self.cells.get(&(w, lib)).map(Stats::median)
    }

    /// The cell's median over the best-effort hand-written version's: the
    /// headline ratio, which the targets are set on.
    pub fn ratio(&self, w: Workload, lib: Lib) -> Option<f64> {
        self.ratio_to(w, lib, Lib::Best)
    }

    /// The cell's median over `reference`'s.
    pub fn ratio_to(&self, w: Workload, lib: Lib, reference: Lib) -> Option<f64> {
        Some(self.median(w, lib)? / self.median(w, reference)?)
    }

    /// The table of medians and ratios to the best-effort version: a row
    /// per workload, a column per implementation, then ecs's ratios to
    /// both hand-written versions.
    pub fn table(&self) -> String {
        let mut s = String::from("| workload |");
        for lib in Lib::ALL {
            let _ = write!(s, " {} |", lib.name());
        }
        s.push_str(" ecs / baseline | ecs / best effort |");
        s.push_str("\n| --- |");
        s.push_str(&" ---: |".repeat(Lib::ALL.len() + 2));
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
            for reference in [Lib::Baseline, Lib::Best] {
                match self.ratio_to(w, Lib::Ecs, reference) {
                    Some(r) => {
                        let _ = write!(s, " **{}** |", ratio(r));
                    }
                    None => s.push_str(" — |"),
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

    /// Where ecs stands against one peer on `w`.
    fn standing(&self, w: Workload, peer: Lib) -> Option<Standing> {
        let (ecs, theirs) = (self.median(w, Lib::Ecs)?, self.median(w, peer)?);
        // workloads.md: under ~1.2x apart, two implementations tie unless
        // repeated runs agree.
        if ecs * TIE <= theirs {
            return Some(Standing::Ahead);
        }
        if theirs * TIE < ecs {
            return Some(Standing::Behind);
        }
        let (ours, peers) = (self.run_medians.get(&(w, Lib::Ecs))?, self.run_medians.get(&(w, peer))?);
        let agree =
            ours.len() >= AGREEING_RUNS && ours.len() == peers.len() && ours.iter().zip(peers).all(|(a, b)| a < b);
        Some(if agree {
            Standing::AheadInEveryRun
        } else {
            Standing::Tie
        })
    }

    /// Whether `ecs` met its ratio target on `w`, and where it stands
    /// against the peers: its worst standing against any. `None` when not
    /// measured.
    pub fn verdict(&self, w: Workload) -> Option<(bool, Standing)> {
        let r = self.ratio(w, Lib::Ecs)?;
        let rank = |s: &Standing| match s {
            Standing::Ahead => 0,
            Standing::AheadInEveryRun => 1,
            Standing::Tie => 2,
            Standing::Behind => 3,
        };
        let standing = Lib::ALL
            .into_iter()
            .filter(|l| l.is_peer())
            .filter_map(|peer| self.standing(w, peer))
            .max_by_key(rank)
            .unwrap_or(Standing::Ahead);
        Some((r <= w.target(), standing))
    }

    /// The targets table: one row per workload.
    pub fn targets(&self) -> String {
        let mut s = String::from(
            "| workload | target (ecs / best effort) | ecs / best effort | ecs / baseline | fastest peer (/ best \
             effort) | ratio target | faster than every peer | verdict |\n| --- | ---: | ---: | ---: | --- | --- | --- \
             | --- |\n",
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
            let every_run = format!(
                "yes (less than 1.2× ahead of a peer, but ahead in each of the {} runs)",
                self.runs
            );
            let beats_text = match standing {
                Standing::Ahead => "yes (by 1.2× or more)",
                Standing::AheadInEveryRun => every_run.as_str(),
                Standing::Tie => "no (within 1.2× of a peer, and not ahead in every run: a tie)",
                Standing::Behind => "no",
            };
            let beats = matches!(standing, Standing::Ahead | Standing::AheadInEveryRun);
            let verdict = if ratio_ok && beats { "**met**" } else { "**missed**" };
            let to_baseline = self
                .ratio_to(w, Lib::Ecs, Lib::Baseline)
                .map_or_else(|| "—".into(), ratio);
            let _ = writeln!(
                s,
                "| {} | ≤ {:.2}× | {} | {} | {} | {} | {} | {} |",
                w.name(),
                w.target(),
                ratio(r),
                to_baseline,
                peer,
                yes(ratio_ok),
                beats_text,
                verdict
            );
        }
        s
    }

    /// The variants of ecs's implementations: their medians, ratios to the
    /// baseline, the best-effort version and the table's ecs, from the same
    /// run.
    pub fn variants(&self) -> String {
        if self.variants.is_empty() {
            return String::new();
        }
        let mut s = String::from(
            "| workload | ecs written as | median | / baseline | / best effort | / the table's ecs |\n\
             | --- | --- | ---: | ---: | ---: | ---: |\n",
        );
        for (w, how, stats) in &self.variants {
            let m = stats.median();
            let of = |lib| self.median(*w, lib).map_or_else(|| "—".into(), |base| ratio(m / base));
            let _ = writeln!(
                s,
                "| {} | {how} | {} | {} | {} | {} |",
                w.name(),
                time(m),
                of(Lib::Baseline),
                of(Lib::Best),
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
            "`ecs` against two hand-written versions and six other ECS crates, on the workloads of the \
             community's ecs_bench_suite (`shared/workloads.md`): every implementation in one binary \
             and the same runs (`benches/peers`), on the system allocator's default settings. The plain \
             baseline is the code workloads.md describes; the best-effort version is the fastest plain safe \
             Rust we could write for the same data and results (both checked against ecs's results before \
             timing). Each cell is the median time per iteration, then the ratio to the best-effort version \
             over the same runs; the last two columns are ecs's ratios to the baseline and to the best-effort \
             version. This machine is noisy (±20-30% between runs): read a ratio rather than a time, and a \
             difference under ~1.2× between two implementations as a tie unless repeated runs agree.\n\n",
        );
        if quick {
            s.push_str("**Smoke run (`--quick`): few and short samples; do not quote these numbers.**\n\n");
        }
        let _ = writeln!(
            s,
            "{} run{} of {}, each setting every implementation up again; medians over all their samples.\n",
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            machine.date
        );
        s.push_str(&self.table());
        s.push('\n');
        if let Some(chart) = chart {
            let _ = writeln!(s, "![ratio to the best-effort version per workload]({chart})\n");
        }
        s.push_str("## Targets for ecs\n\n");
        s.push_str(
            "Issue 23's targets: ecs's ratio to the best-effort hand-written version at most the target, \
             and faster than every peer: by 1.2× or more over all runs' samples, or, closer than that, in \
             every one of the runs (at least 3) as workloads.md's \"a tie unless repeated runs agree\" asks; \
             otherwise a tie, which is not met. `schedule`'s best-effort version runs on two threads (the \
             plain baseline is sequential); `heavy_compute`'s on all cores, as its baseline (rayon's \
             `par_iter`). add_remove counts the change made visible: a system reading `A` and `B` runs \
             after the adds and after the removes, in every implementation.\n\n",
        );
        s.push_str(&self.targets());
        if !self.variants.is_empty() {
            s.push_str("\n## Other ways to write ecs's implementations\n\n");
            s.push_str(
                "Measured beside the table's implementations, in the same runs: `add` and `remove` per \
                 handle instead of `add_to_all` and `remove_from_all`, and the bulk calls with no system run \
                 (the change is then not yet matched to the system: not comparable with the others, shown \
                 for what matching and running the system cost); simple_iter's and frag_iter's query in a \
                 system run by `run_all` instead of the table's `PreparedQuery` (the peers run those workloads \
                 as prepared queries with no scheduler, which is what the table compares); `heavy_compute` split into subtasks of 10 \
                 entities instead of 50; and `load` restoring into the context kept from the previous iteration \
                 instead of a new one.\n\n",
            );
            s.push_str(&self.variants());
        }
        s.push('\n');
        s.push_str(GAPS);
        s.push_str("\n## Reading the figures\n\n");
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
        let _ = writeln!(
            s,
            "- rayon {} (the baseline's `par_iter`, the best-effort version's helpers)",
            machine.version("rayon")
        );
        s.push_str("\nVersions are read from `benches/peers/Cargo.lock` when the binary is built.\n");
        s.push_str("\n## Method\n\n");
        let _ = writeln!(
            s,
            "Before the runs, every implementation of every workload is set up (not timed) and checked once: it runs one \
             iteration from a fresh set-up and its data is read back and compared with what the \
             workload must do, and the values it read back are compared, bit for bit, with those ecs's \
             check read (a failed check or a difference stops the run). The system allocator runs with its \
             default settings, as users run it. Then each warms up for {} ms, which also \
             sizes its samples to last at least {} ms; samples of all implementations are taken in \
             turn, in a new (shuffled) order each round, each after {} ms idle and one untimed iteration \
             (so that another implementation's thread pool winding down is not charged to it), up to {} \
             samples or {} ms per implementation (at least {} samples). A run does that for every workload \
             in turn, with fresh set-ups; the runs' samples are pooled, and the median over them of the \
             time per iteration is reported. Spread of the samples (half the interquartile range over \
             the median) and samples × iterations per sample (of the first run):\n",
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

/// What the two hand-written versions are, and what separates them; only
/// what the compiler's output or a measurement showed.
const BASELINE_NOTES: &str = "The plain baseline is the code workloads.md describes, not the fastest code \
possible, so crates can beat it; the best-effort version is what we could do best by hand, and the headline \
ratio. In simple_iter the baseline's `zip` over the 12-byte `Position` and `Velocity` columns stays scalar \
because LLVM's loop vectoriser declines it on cost: `-Cremark=loop-vectorize` reports \"the cost-model indicates \
that vectorization is not beneficial\" for it, and reports the same for the same loop over two slices \
(`&mut [Position]`, `&[Velocity]`), which cannot alias, so aliasing is not the reason; over slices the SLP \
vectoriser then pairs each entity's x and y adds and leaves z scalar, and over the `Vec`s all three stay scalar. \
Staging the positions of 8 entities in a local array (the best-effort version, and what ecs's blocks do) gives \
the SLP vectoriser 24 adds in a row, which it turns into 4-wide loads, adds and stores. In frag_iter the \
baseline is 26 separate `Vec`s of 20, which is what the workload fragments; the best-effort version keeps every \
`Data` in one array of 520, as ecs's id-indexed column does, so what separates ecs from it there is the cost of \
a step and of reaching the matched entities (a prepared query's version check; in the system variant, running \
one system), not the loop. In add_remove the best-effort version fills the `B` column and \
a presence byte per entity, and its system tests the bytes; ecs's `add_to_all` and `remove_from_all` write the \
same kind of data (the `B` values and each entity's component set), and `run_all` then matches the changed \
entities to the system reading `B` before running it, work the hand-written code does not need. \
`heavy_compute` is bound by the arithmetic, the same code in every implementation, and the implementations \
that split it over both cores differ by what handing work to the second core costs. `schedule`'s three loops \
take a few µs in all, so a second thread pays only if reaching it costs less than the work it takes over: the \
best-effort version keeps a helper thread spinning between steps, and runs the helper's share on the caller \
when the helper is late, as ecs's caller does.\n";

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

/// A ratio, `1.05×`.
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

    /// Runs in which ecs and one peer took these times.
    fn runs(ecs: &[f64], peer: &[f64]) -> Results {
        let w = Workload::HeavyCompute;
        let mut r = Results::new(vec![w], ecs.len());
        for (&e, &p) in ecs.iter().zip(peer) {
            for (lib, secs) in [(Lib::Baseline, 1.0), (Lib::Best, 1.0), (Lib::Ecs, e), (Lib::Hecs, p)] {
                r.add(
                    w,
                    lib,
                    Stats {
                        samples: vec![secs],
                        iters: 1,
                    },
                );
            }
        }
        r
    }

    fn results(ecs: f64, peer: f64) -> Results {
        runs(&[ecs], &[peer])
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

    #[test]
    fn a_smaller_lead_counts_only_when_every_run_of_three_or_more_agrees() {
        let standing = |ecs: &[f64], peer: &[f64]| runs(ecs, peer).verdict(Workload::HeavyCompute).unwrap().1;
        let agreed = [1.0, 1.0, 1.0];
        assert_eq!(standing(&agreed, &[1.1, 1.05, 1.12]), Standing::AheadInEveryRun);
        assert_eq!(
            standing(&agreed, &[1.1, 0.99, 1.12]),
            Standing::Tie,
            "one run disagrees"
        );
        assert_eq!(
            standing(&[1.0, 1.0], &[1.1, 1.1]),
            Standing::Tie,
            "two runs are too few"
        );
        assert_eq!(
            standing(&[1.1, 1.1, 1.1], &agreed),
            Standing::Tie,
            "the peer ahead in every run"
        );
        assert!(runs(&agreed, &[1.1, 1.05, 1.12]).targets().contains("**met**"));
        assert!(runs(&agreed, &[1.1, 0.99, 1.12]).targets().contains("**missed**"));
    }
}
