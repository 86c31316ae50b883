//! The proxy a system's run builds for each of its subtasks: `Data` for
//! entity systems (`DataProxy`, in `proxy/data.rs`), `Columns` for column
//! steps (`ColumnsProxy`, in `column_system.rs`).
//!
//! Its own file so that each proxy's implementation sits beside the proxy,
//! where it builds it from its fields in one function: in a debug build
//! every layer of construction was one more function per system (a
//! system's `Data` went through four).

use crate::context::Context;
use crate::decl::{ContextDecl, SystemOf};
use crate::pending::Pending;
use crate::sparse_set::SparseSet;

/// The proxy a run (`run_body!`: `Context::run_with` or
/// `Context::run_system_with_data`) hands each subtask of system `S`.
pub(crate) trait SubtaskProxy<Cx: ContextDecl, S: SystemOf<Cx>> {
    /// The proxy, borrowing the context for `'a`.
    type Proxy<'a>;

    /// The proxy of subtask `subtask` of `subtasks` over the ids of `set`.
    ///
    /// `MAY_SPLIT` is false for the run of a system that never splits
    /// (subtask 0 of 1), whose part (the whole set) is found inline, so
    /// that the constant subtask folds into the walk; a run that may split
    /// (`Subtask::run`, whatever its count of subtasks) finds its part out
    /// of line, by code compiled once rather than in each system's copy. A
    /// constant, so that a debug build (which folds nothing) generates only
    /// the way taken.
    ///
    /// # Safety
    /// - every id in `set` is distinct and holds every component of `S`'s
    ///   signature for `'a`, during which nothing adds or removes components;
    /// - for `'a`, the only code touching components `S` writes, for the
    ///   ids of this subtask's part of `set`
    ///   ([`subtask_range`](crate::schedule::subtask_range)), is this proxy;
    ///   other subtasks of `S` get the other parts of the same `set`, split
    ///   into the same `subtasks`;
    /// - systems running at the same time as `S` are compatible with it.
    unsafe fn new<'a, const MAY_SPLIT: bool>(
        cx: &'a Context<Cx>,
        set: &'a SparseSet,
        subtask: usize,
        subtasks: usize,
        output: &'a mut S::Output,
        pending: &'a mut Pending<Cx>,
    ) -> Self::Proxy<'a>;
}
