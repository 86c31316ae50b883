//! A driver for load-independent counts of the `save` and `load` workloads
//! (issue 26): the workload's own implementations (`src/libs/save_load`),
//! one set up, then `ITERATIONS` iterations, for `valgrind
//! --tool=callgrind` or `--tool=cachegrind`, `perf stat` or `strace -c`.
//!
//! ```sh
//! cargo build --release --manifest-path benches/peers/Cargo.toml --example save_load
//! valgrind --tool=callgrind benches/peers/target/release/examples/save_load ecs load 3
//! ```
//!
//! Implementations: `ecs`, `inplace` (ecs restoring into the context it
//! holds), `hecs`, `best`, `baseline`; workloads `save`, `load`. A figure
//! per iteration is the count of a long run minus that of a short one,
//! divided by the iterations between them.

// The workload's module, as the benchmark compiles it, with the few items
// of the benchmark crate it names.
#[path = "../src/libs/save_load/mod.rs"]
mod save_load;

mod expect {
    use crate::save_load::{initial, Position, Velocity, ENTITIES};

    pub type Check = Result<(), String>;

    /// Every entity loaded back, each with its values.
    pub fn save_load(entities: usize, values: Vec<Option<(Position, Velocity)>>) -> Check {
        if entities != ENTITIES {
            return Err(format!("{entities} entities, not {ENTITIES}"));
        }
        match values.iter().enumerate().find(|&(i, v)| *v != Some(initial(i))) {
            Some((i, v)) => Err(format!("entity {i}: {v:?}")),
            None => Ok(()),
        }
    }
}

mod harness {
    pub trait Bench {
        fn run(&mut self);
        fn check(&mut self) -> crate::expect::Check;
    }
}

#[expect(
    dead_code,
    reason = "the module mirrors the benchmark crate's `workload` types, not all of which the driver names"
)]
mod workload {
    #[derive(Clone, Copy)]
    pub enum Workload {
        Save,
        Load,
    }

    #[derive(Clone, Copy)]
    pub enum Lib {
        Baseline,
        Best,
        Ecs,
        Bevy,
        Hecs,
        Legion,
        Specs,
        Shipyard,
        Gecs,
    }
}

use harness::Bench;
use workload::{Lib, Workload};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: save_load ecs|inplace|hecs|best|baseline save|load ITERATIONS";
    let (which, mode, iterations) = match &args[1..] {
        [w, m, n] => (w.as_str(), m.as_str(), n.parse::<usize>().expect(usage)),
        _ => panic!("{usage}"),
    };
    let w = match mode {
        "save" => Workload::Save,
        "load" => Workload::Load,
        _ => panic!("{usage}"),
    };
    let mut bench: Box<dyn Bench> = match which {
        "inplace" => save_load::variants(w).pop().expect("a variant").1,
        "ecs" => save_load::make(w, Lib::Ecs).expect("ecs"),
        "hecs" => save_load::make(w, Lib::Hecs).expect("hecs"),
        "best" => save_load::make(w, Lib::Best).expect("best"),
        "baseline" => save_load::make(w, Lib::Baseline).expect("baseline"),
        _ => panic!("{usage}"),
    };
    if iterations == 0 {
        bench.check().expect("the same results as ecs's");
        return;
    }
    for _ in 0..iterations {
        bench.run();
    }
}
