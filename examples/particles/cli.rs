//! The command line.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// ECST's particle simulation: waves of particles that fall, bounce off the
/// walls, collide and fade out, timed as the thesis timed them.
#[derive(Parser, Debug)]
#[command(version)]
pub struct Args {
    /// Wave sizes, run one after another in the same context, the generator
    /// re-seeded before each.
    #[arg(long, value_name = "N[,N...]", value_delimiter = ',', default_value = "50000")]
    pub entities: Vec<usize>,

    /// Steps per wave [default: until no particle is left].
    #[arg(long, value_name = "S")]
    pub steps: Option<usize>,

    /// Split systems into one subtask per thread.
    #[arg(long, value_enum, value_name = "on|off", default_value_t = OnOff::On)]
    pub inner_parallelism: OnOff,

    /// Entity storage: fixed room for 400 000, or 50 000 growing as needed.
    #[arg(long, value_enum, default_value_t = StorageArg::Fixed)]
    pub storage: StorageArg,

    /// Worker threads [default: one per core].
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,

    /// The library's contexts, or the hand-written reference.
    #[arg(long = "impl", value_enum, value_name = "IMPL", default_value_t = Impl::Ecs)]
    pub implementation: Impl,

    /// Seed of the particle generator.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// Print one JSON object per wave instead of a summary line, and no
    /// progress bar.
    #[arg(long)]
    pub json: bool,

    /// Write a PNG image of the simulation every `--every` steps into DIR.
    #[arg(long, value_name = "DIR")]
    pub frames: Option<PathBuf>,

    /// Steps between two frames.
    #[arg(
        long,
        value_name = "K",
        default_value_t = 25,
        requires = "frames",
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub every: u64,
}

/// A switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

/// Entity storage of the library's contexts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StorageArg {
    /// Room for 400 000 entities, allocated once.
    Fixed,
    /// Room for 50 000 entities, growing as needed.
    Dynamic,
}

/// Which implementation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Impl {
    /// The library: a context declared with `declare_context!`.
    Ecs,
    /// Plain `Vec`s and rayon.
    Handwritten,
}

impl Impl {
    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Impl::Ecs => "ecs",
            Impl::Handwritten => "handwritten",
        }
    }
}
