//! The streamed run of a producer and its consumer (`stream: [producer]`):
//! both systems in one node of the graph, the consumer taking the items of
//! the producer's subtasks while they still run.
//!
//! Who runs what, on a team of `t` threads:
//! - the caller of the producer's node runs the consumer: it takes queued
//!   items, and when there are none, runs a producer subtask itself, with no
//!   sink (its items stay in its `Stream`), and consumes them right after;
//! - up to `t - 1` helpers (`for_each_mut`'s items `1..`) each claim
//!   producer subtasks one at a time, sending full batches to the queue as
//!   they go, waiting for room when it is full.
//!
//! Why this cannot deadlock: a helper waits only for room, which the
//! consumer makes; the consumer waits only while the queue is empty and
//! every subtask is claimed, so every subtask it waits for runs on a helper
//! that either makes progress or waits for room (there is none to wait for
//! while the queue is empty). The consumer's thread never runs a subtask
//! with a sink, so it never waits for itself. With no helper (one thread,
//! or threads the system refused), the consumer claims every subtask
//! itself. A panic on either side stops the run: the consumer leaves
//! (`Channel::close`, so producers waiting for room wake and drop their
//! batches), subtasks not started are skipped, and `for_each_mut` re-raises
//! the first panic once every item has returned.

use crate::context::Context;
use crate::decl::{ContextDecl, SystemOf};
use crate::pending::Pending;
use crate::proxy::data::DataProxy;
use crate::run::{gather, DropPendingOnUnwind};
use crate::sparse_set::SparseSet;
use crate::stream::{Channel, Consumes, Stream, Taken};
use crate::subtask_proxy::SubtaskProxy;
use crate::system::System;
use core::sync::atomic::{AtomicUsize, Ordering};
use parking_lot::Mutex;
use std::sync::Arc;

/// How long the consumer waits for a helper to claim the first producer
/// subtask before running subtasks itself: with one subtask, a helper
/// running it is the only way the two sides overlap. Bounded, so that a
/// helper busy elsewhere (with another stream's producer, whose consumer
/// may wait for this thread in turn) delays the run, never blocks it.
const FIRST_CLAIM_PATIENCE: std::time::Duration = std::time::Duration::from_millis(2);

impl<Cx: ContextDecl> Context<Cx> {
    /// Runs producer `P` and its consumer `C` (declared `stream: [P]`) with
    /// `args`: `P::before`, `C::before`, `P`'s subtasks while `C` consumes
    /// their items, `C::process`, `P::after`, `C::after`.
    ///
    /// # Safety
    /// As [`run_system`](Self::run_system) for `P`, and: `C` streams `P` in
    /// the declaration, which `declare_context!` checked: `C`'s accesses are
    /// compatible with `P`'s (they run at the same time), every ancestor of
    /// `C` but `P` is an ancestor of `P`, `C` has no `DependsOn<P>` (it
    /// cannot read `P`'s outputs or state), and `C`'s own node only calls
    /// [`run_consumer`](Self::run_consumer). So `C` runs beside nothing
    /// `P` does not run beside, and nothing reads `C`'s cell during this
    /// run (`C`'s descendants wait for `C`'s node, which waits for this one).
    #[doc(hidden)]
    pub unsafe fn run_stream<P, C, A>(&self, args: &A)
    where
        P: System<Cx, A>,
        C: Consumes<Cx, P::Output, A>,
        A: ?Sized + Sync,
    {
        let p_slot = P::slot(&self.systems);
        let c_slot = C::slot(&self.systems);
        // SAFETY: this is the run of `P` (the caller's contract, as
        // `run_system_with`'s).
        let (p_state, p_outputs, p_scratch) = unsafe { p_slot.run() };
        // SAFETY: and of `C`: `C`'s node does not touch the cell after this
        // run (`run_consumer` sees the flag set below and returns), and
        // nothing else reads it before `C`'s node finished.
        let (c_state, c_outputs, c_scratch) = unsafe { c_slot.run() };
        p_state.before(args);
        c_state.before(args);
        let p_set = self.subscriptions.of(P::INDEX);
        let c_set = self.subscriptions.of(C::INDEX);
        let subtasks = if Cx::SETTINGS.inner_parallelism {
            P::PARALLELISM.subtasks(p_set.len(), self.threads)
        } else {
            1
        };
        p_outputs.truncate(subtasks);
        p_outputs.resize_with(subtasks, Default::default);
        p_scratch.truncate(subtasks);
        p_scratch.resize_with(subtasks, Pending::default);
        c_outputs.truncate(1);
        c_outputs.resize_with(1, Default::default);
        c_scratch.truncate(1);
        c_scratch.resize_with(1, Pending::default);
        // A panicking run's changes are dropped, not applied later.
        let p_scratch = DropPendingOnUnwind(p_scratch);
        let c_scratch = DropPendingOnUnwind(c_scratch);
        let slots: Vec<_> = p_outputs
            .iter_mut()
            .zip(p_scratch.0.iter_mut())
            .map(Mutex::new)
            .collect();
        let run = StreamRun::<'_, Cx, P, C::Item, A> {
            cx: self,
            state: p_state,
            set: p_set,
            args,
            subtasks,
            next: AtomicUsize::new(0),
            channel: Arc::new(Channel::new(C::BATCH, C::CAPACITY)),
            slots,
            as_stream: C::stream,
        };
        let consumer = (&mut *c_state, &mut c_outputs[0], &mut c_scratch.0[0]);
        match &*self.team {
            Some(team) => {
                let helpers = subtasks.min(self.threads.saturating_sub(1)).max(1);
                let mut roles: Vec<_> = (0..helpers)
                    .map(|_| None)
                    .chain(core::iter::once(Some(consumer)))
                    .collect();
                // `for_each_mut` queues the helpers' items (starting the pool)
                // before it runs the consumer's, the last, here (the caller
                // takes the last index first).
                team.for_each_mut(&mut roles, &|_, role| match role.take() {
                    // With one subtask, a helper running it is the only way
                    // the two sides overlap: the consumer waits for one a
                    // moment. With more, it starts on one at once.
                    Some((state, output, pending)) => {
                        run.consume(c_set, state, output, pending, subtasks == 1 && team.has_helpers())
                    }
                    None => run.help(),
                });
            }
            None => {
                let (state, output, pending) = consumer;
                run.consume(c_set, state, output, pending, false);
            }
        }
        drop(run);
        // Hands the kills and deferred functions both recorded to their
        // slots, for the next refresh, in subtask order.
        gather(Cx::slot_core(&self.systems, P::INDEX), p_scratch.0);
        gather(Cx::slot_core(&self.systems, C::INDEX), c_scratch.0);
        core::mem::forget(p_scratch);
        core::mem::forget(c_scratch);
        p_state.after(p_outputs, args);
        c_state.after(c_outputs, args);
        Cx::slot_core(&self.systems, C::INDEX)
            .streamed
            .store(true, Ordering::Relaxed);
    }

    /// The node of a consumer `C`: nothing if `C` ran in its producer's node
    /// since its last node ([`run_stream`](Self::run_stream)); otherwise
    /// (its producer did not run, as with `run_from::<C>`) `C` runs alone,
    /// with no item: `before`, `process`, `after`.
    ///
    /// # Safety
    /// As [`run_system`](Self::run_system).
    #[doc(hidden)]
    pub unsafe fn run_consumer<C: System<Cx, A>, A: ?Sized + Sync>(&self, args: &A) {
        if Cx::slot_core(&self.systems, C::INDEX)
            .streamed
            .swap(false, Ordering::Relaxed)
        {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe { self.run_system::<C, A>(args) }
    }
}

/// What the consumer and the helpers share during one streamed run.
struct StreamRun<'r, Cx: ContextDecl, P: SystemOf<Cx>, T, A: ?Sized> {
    cx: &'r Context<Cx>,
    state: &'r P,
    set: &'r SparseSet,
    args: &'r A,
    subtasks: usize,
    /// The next producer subtask to claim (claims past `subtasks` find none).
    next: AtomicUsize,
    channel: Arc<Channel<T>>,
    /// Each producer subtask's output and pending changes; locked by the one
    /// thread that claimed the subtask, then by the consumer for its items.
    slots: Vec<Mutex<(&'r mut P::Output, &'r mut Pending<Cx>)>>,
    /// The `Stream<T>` the producer's output is.
    as_stream: fn(&mut P::Output) -> &mut Stream<T>,
}

impl<Cx: ContextDecl, P: System<Cx, A>, T, A: ?Sized + Sync> StreamRun<'_, Cx, P, T, A> {
    /// The next subtask nobody claimed; subtasks claimed once the run stops
    /// are counted finished without running.
    fn claim(&self) -> Option<usize> {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.subtasks {
                return None;
            }
            if !self.channel.stopped() {
                return Some(i);
            }
            self.channel.finish_subtask(false);
        }
    }

    /// A helper: claims and runs subtasks, sending their items to the queue.
    fn help(&self) {
        while let Some(i) = self.claim() {
            self.produce(i, true);
        }
    }

    /// Runs producer subtask `i`, sending full batches to the queue as they
    /// fill when `send` (a helper), keeping every item in its `Stream`
    /// otherwise (the consumer's thread). Counts the subtask finished
    /// however it ends, after its last batch.
    fn produce(&self, i: usize, send: bool) {
        let _finished = Finished(&self.channel);
        let mut slot = self.slots[i].lock();
        let (output_slot, pending_slot) = &mut *slot;
        // Worked on from this stack, as `run_subtasks` does (subtasks'
        // outputs sit side by side: pushing to them in place shares cache
        // lines between threads).
        let mut output = core::mem::take(&mut **output_slot);
        let mut pending = core::mem::take(&mut **pending_slot);
        P::reset_output(&mut output);
        if send {
            (self.as_stream)(&mut output).attach(self.channel.clone());
        }
        {
            // SAFETY: as in `run_system_with`: `set` holds `P`'s
            // subscribers, matched before any system ran; subtask `i` of
            // `subtasks` is claimed once (`next`), so its range is its own;
            // systems running at the same time as `P` are compatible with it
            // (the consumer too: `run_stream`'s contract).
            let mut data = unsafe {
                <DataProxy as SubtaskProxy<Cx, P>>::new::<false>(
                    self.cx,
                    self.set,
                    i,
                    self.subtasks,
                    &mut output,
                    &mut pending,
                )
            };
            self.state.process(&mut data, self.args);
        }
        (self.as_stream)(&mut output).finish();
        **output_slot = output;
        **pending_slot = pending;
    }

    /// The consumer: takes items until every subtask finished and every
    /// item was taken, running subtasks itself when there are none (with
    /// `patient`, only after giving helpers a moment to claim the first);
    /// then `process` once. Skips `process` if the run stopped (a producer
    /// subtask panicked).
    fn consume<C: Consumes<Cx, P::Output, A, Item = T>>(
        &self,
        set: &SparseSet,
        state: &mut C,
        output: &mut C::Output,
        pending: &mut Pending<Cx>,
        patient: bool,
    ) {
        // The consumer leaves however this ends: producers waiting for room
        // wake (and, on a panic, drop their batches and skip the rest).
        let _leave = Leave(&self.channel);
        C::reset_output(output);
        // SAFETY: `set` holds `C`'s subscribers, matched before any system
        // ran; `C` runs as one subtask of one; systems running at the same
        // time are compatible with `C` (`run_stream`'s contract).
        let mut data = unsafe { <DataProxy as SubtaskProxy<Cx, C>>::new::<false>(self.cx, set, 0, 1, output, pending) };
        let mut items = Vec::new();
        let mut patient = patient;
        loop {
            match self.channel.take(&mut items, self.subtasks, false) {
                Taken::Items => {
                    for item in items.drain(..) {
                        state.consume_item(&mut data, item, self.args);
                    }
                    continue;
                }
                Taken::Done => break,
                Taken::Empty => {}
            }
            // Nothing queued: give a helper the first subtask for a moment
            // (it wakes this thread with its first batch), then run
            // subtasks here.
            if patient && self.next.load(Ordering::Relaxed) == 0 {
                patient = false;
                let deadline = std::time::Instant::now() + FIRST_CLAIM_PATIENCE;
                match self.channel.take_until(&mut items, self.subtasks, true, Some(deadline)) {
                    Taken::Items => {
                        for item in items.drain(..) {
                            state.consume_item(&mut data, item, self.args);
                        }
                    }
                    Taken::Done => break,
                    Taken::Empty => {}
                }
                continue;
            }
            if let Some(i) = self.claim() {
                self.produce(i, false);
                // The subtask's items, in the order it pushed them; the
                // `Stream` gets this vector's memory back.
                core::mem::swap((self.as_stream)(self.slots[i].lock().0).items_mut(), &mut items);
                for item in items.drain(..) {
                    state.consume_item(&mut data, item, self.args);
                }
                continue;
            }
            // Every subtask is claimed: wait for items or the last one.
            match self.channel.take(&mut items, self.subtasks, true) {
                Taken::Items => {
                    for item in items.drain(..) {
                        state.consume_item(&mut data, item, self.args);
                    }
                }
                Taken::Done | Taken::Empty => break,
            }
        }
        if !self.channel.stopped() {
            state.process(&mut data, self.args);
        }
    }
}

/// Counts a producer subtask finished when dropped, stopping the run if
/// the subtask is unwinding.
struct Finished<'c, T>(&'c Channel<T>);

impl<T> Drop for Finished<'_, T> {
    fn drop(&mut self) {
        self.0.finish_subtask(std::thread::panicking());
    }
}

/// Closes the queue when the consumer leaves, stopping the run if it is
/// unwinding.
struct Leave<'c, T>(&'c Channel<T>);

impl<T> Drop for Leave<'_, T> {
    fn drop(&mut self) {
        self.0.close(std::thread::panicking());
    }
}
