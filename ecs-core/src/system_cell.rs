//! A system's state and the outputs of its last run, shared with worker
//! threads without a lock: the accessors of [`SystemSlot`]'s cells.
//!
//! A lock here would never be contended, yet it cost four atomic
//! read-modify-writes per system run (lock and unlock of the state and of
//! the outputs): about 25 ns, a quarter of the step of a small system. The
//! scheduler's order already keeps every access apart, so the slot relies on
//! it instead; its two `unsafe` accessors state what their callers promise.
//!
//! Who touches the cells of system `S`'s slot, and when:
//! - The run of `S` (`run_body!` in `run.rs`) alone borrows them mutably
//!   ([`run`](SystemSlot::run)), for the length of one run. A run happens
//!   only inside `Context::run_selected` or `Context::run_all` (whose loop,
//!   with no team, is the scheduler on one thread), which hold the context
//!   borrowed mutably and start each system at most once, so two runs of
//!   the same system never overlap.
//! - Systems that read them while systems run ([`read`](SystemSlot::read),
//!   through `Data::system` and `Data::outputs`) are descendants of `S`
//!   (`DependsOn`'s contract): the scheduler starts them only after `S`'s
//!   run has returned, ordered by the acquire-release decrements of its
//!   counters (or by program order on one thread).
//! - Outside a run, `&Context` gives shared access and `&mut Context`
//!   exclusive access ([`get_mut`](SystemSlot::get_mut)), as the borrow
//!   checker sees them.

use crate::decl::{ContextDecl, SystemOf, SystemSlot};
use crate::pending::Pending;
use core::cell::UnsafeCell;

// SAFETY: shared across threads, the slot hands out `&mut S` /
// `&mut S::Output` / `&mut Pending<Cx>` to one thread at a time (`run`'s
// contract), which needs `Send`, and `&S` / `&S::Output` to several at once
// (`read`'s), which needs `Sync`; no `&Pending<Cx>` is ever shared. `S` is
// `Send + Sync` (`SystemOf`'s supertraits), and so is `S::Output` (its
// bounds); `Pending<Cx>` is `Send` for every context (its queue's `Send`
// impl, for `DeferArg<Cx>: Arg`).
unsafe impl<Cx: ContextDecl, S: SystemOf<Cx>> Sync for SystemSlot<Cx, S> {}

impl<Cx: ContextDecl, S: SystemOf<Cx>> SystemSlot<Cx, S> {
    /// A slot holding `state`, with no outputs.
    // Inlined (into the context's `new_systems`) in a debug build: one
    // function fewer per system there (32 at 64/32), for 96 debug
    // instructions fewer. An optimised build inlines it when it pays:
    // always inlining it there made the release IR bigger (COMPILE_COST.md,
    // twelfth round, part 2).
    #[cfg_attr(debug_assertions, inline(always))]
    pub fn new(state: S) -> Self {
        Self {
            // Empty vectors as constants: `Vec::new()` called was two calls
            // per system in a debug build (`new_systems`, into which this is
            // inlined: 1 901 -> 941 debug instructions at 64/32).
            state: UnsafeCell::new(state),
            outputs: const { UnsafeCell::new(Vec::new()) },
            scratch: const { UnsafeCell::new(Vec::new()) },
        }
    }

    /// The state and outputs, through exclusive access to the slot.
    #[inline]
    pub(crate) fn get_mut(&mut self) -> (&mut S, &mut Vec<S::Output>) {
        (self.state.get_mut(), self.outputs.get_mut())
    }

    /// The state, outputs and scratch, mutably, for the run of the slot's
    /// system.
    ///
    /// # Safety
    /// While the returned references live, no other reference into the slot's
    /// cells exists or is made: the caller is the system's run, which the
    /// scheduler never overlaps with another run of the same system or with
    /// a descendant's run (see the module's documentation).
    // Always inlined: its callers are system runs (`run_body!`), and as a
    // call it was one more function per system in a debug build.
    #[inline(always)]
    #[expect(
        clippy::mut_from_ref,
        reason = "the slot hands out its contents mutably through `&self`; the caller promises exclusive access (`# Safety`)"
    )]
    pub(crate) unsafe fn run(&self) -> (&mut S, &mut Vec<S::Output>, &mut Vec<Pending<Cx>>) {
        // SAFETY: the caller promises exclusive access for the references'
        // lifetime.
        unsafe {
            (
                &mut *self.state.get(),
                &mut *self.outputs.get(),
                &mut *self.scratch.get(),
            )
        }
    }

    /// The state and outputs, shared.
    ///
    /// # Safety
    /// No reference from [`run`](Self::run) is alive, or made, while the
    /// returned references live: the caller is not inside a run of the
    /// slot's system, and that system cannot start until the caller is done
    /// (the caller holds the context borrowed, or is a descendant system).
    #[inline]
    #[allow(
        clippy::transmute_ptr_to_ref,
        reason = "no run-time check of the cells' pointers in a debug build"
    )]
    pub(crate) unsafe fn read(&self) -> (&S, &[S::Output]) {
        // Transmuted rather than dereferenced (`&*self.state.get()`): a
        // debug build checks each dereference of a raw pointer (alignment
        // and null), in this function compiled once per system another
        // system reads; the pointers cast as `UnsafeCell::get` makes them,
        // without its item per cell type (as `run.rs`'s `cell_mut!` does
        // for the run).
        // SAFETY: the caller promises that no mutable reference exists; the
        // pointers are a cell's, never null and aligned.
        unsafe {
            (
                core::mem::transmute::<*const S, &S>(&self.state as *const UnsafeCell<S> as *const S),
                core::mem::transmute::<*const Vec<S::Output>, &Vec<S::Output>>(
                    &self.outputs as *const UnsafeCell<Vec<S::Output>> as *const Vec<S::Output>,
                ),
            )
        }
    }
}
