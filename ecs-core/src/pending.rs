//! What a system's subtasks leave for the next refresh: deferred operations
//! and kills.

use crate::decl::ContextDecl;
use crate::fn_queue::{Arg, FnQueue};
use crate::handle::EntityId;
use crate::proxy::Defer;
use core::marker::PhantomData;

/// What deferred functions take: a [`Defer`] proxy of any lifetime.
pub(crate) struct DeferArg<Cx>(PhantomData<Cx>);

impl<Cx: ContextDecl> Arg for DeferArg<Cx> {
    type Of<'a> = Defer<'a, Cx>;
}

/// Deferred operations, run at refresh in the order recorded: each stored
/// inline in one buffer, so that deferring allocates nothing once the
/// buffer has grown (ECST's "deferred function queue without allocation").
pub(crate) type Deferred<Cx> = FnQueue<DeferArg<Cx>>;

/// What a system's subtasks left for the next refresh.
pub(crate) struct Pending<Cx: ContextDecl> {
    pub(crate) deferred: Deferred<Cx>,
    pub(crate) kills: Vec<EntityId>,
}

impl<Cx: ContextDecl> Default for Pending<Cx> {
    fn default() -> Self {
        Self {
            deferred: FnQueue::new(),
            kills: Vec::new(),
        }
    }
}

impl<Cx: ContextDecl> Pending<Cx> {
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
