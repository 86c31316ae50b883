//! What a system's subtasks leave for the next refresh: deferred operations
//! and kills.

use crate::fn_queue::{Arg, FnQueue};
use crate::handle::EntityId;
use core::marker::PhantomData;

/// What deferred functions take: a [`Defer`](crate::Defer) proxy of any
/// lifetime (its [`Arg`] impl sits beside `Defer`, in `proxy/defer.rs`, so
/// that this file, which a system's slot holds, names no proxy).
pub(crate) struct DeferArg<Cx>(PhantomData<Cx>);

/// Deferred operations, run at refresh in the order recorded: each stored
/// inline in one buffer, so that deferring allocates nothing once the
/// buffer has grown (ECST's "deferred function queue without allocation").
pub(crate) type Deferred<Cx> = FnQueue<DeferArg<Cx>>;

/// What a system's subtasks left for the next refresh.
pub(crate) struct Pending<Cx> {
    pub(crate) deferred: Deferred<Cx>,
    pub(crate) kills: Vec<EntityId>,
}

impl<Cx> Default for Pending<Cx>
where
    DeferArg<Cx>: Arg,
{
    fn default() -> Self {
        Self {
            deferred: FnQueue::new(),
            kills: Vec::new(),
        }
    }
}

impl<Cx> Pending<Cx>
where
    DeferArg<Cx>: Arg,
{
    /// Moves `other`'s changes after this one's; `other` keeps its memory.
    pub(crate) fn append(&mut self, other: &mut Pending<Cx>) {
        self.deferred.append(&mut other.deferred);
        self.kills.append(&mut other.kills);
    }

    /// Drops every change, keeping the memory.
    pub(crate) fn clear(&mut self) {
        self.kills.clear();
        self.deferred.clear();
    }

    /// Whether nothing is pending.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.deferred.is_empty() && self.kills.is_empty()
    }
}
