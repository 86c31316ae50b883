//! Scheduling: inner parallelism strategies and the dependency-graph executor.

mod adapters;
mod counters;
mod doorbell;
mod ends;
mod executor;
mod parallelism;
mod roots;
mod team;

pub(crate) use adapters::Adapter;
pub use adapters::Adapters;
pub(crate) use executor::{execute, execute_on_team};
pub(crate) use parallelism::subtask_range;
pub use parallelism::Parallelism;
pub(crate) use team::{discard, keep_first, Payload, Team};
