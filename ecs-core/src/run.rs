//! Running systems: the scheduler's entry (`run_selected`), one system's
//! run (`run_system`, `run_with`, both `run_body!`) and its subtasks
//! (`run_subtasks`).

use crate::bitset::ComponentSet;
use crate::context::Context;
use crate::decl::SlotCore;
use crate::decl::{ContextDecl, SystemOf};
use crate::event_sink::EventSink;
use crate::pending::Pending;
use crate::proxy::data::{Data, Part, View};
use crate::refresh_core::RefreshCore;
use crate::schedule::Parallelism;
use crate::sparse_set::SparseSet;
use crate::subtask_proxy::SubtaskProxy;
use crate::system::System;
use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::sync::atomic::Ordering;

/// Runs system `index` of the context with arguments `A`: the static dispatch
/// from a system index to its type, generated for every `A` that all systems
/// accept.
///
/// # Safety
/// `dispatch(cx, index, args)` runs system `index` with `args` through
/// [`Context::run_system`] (or `Context::run_column_system`, for a column
/// step; `Context::run_stream` for a producer another system streams, with
/// that consumer, and `Context::run_consumer` for the consumer, when the
/// declaration proves `run_stream`'s contract; or does nothing when `index`
/// is no system's),
/// and uses `cx` for nothing else. The scheduler calls it on several
/// threads at once while systems run, and [`Context::system`] and
/// [`Context::outputs`] rely on no code other than the scheduler's holding
/// `&Context` then: a hand-written `dispatch` that read a system's state
/// while that system runs would alias its `&mut`.
///
/// `declare_context!` implements it for every argument type `A` that all
/// systems take (`impl System<World, A>` for each); name it to run the
/// systems of any context:
///
/// ```
/// use ecs::traits::{ContextDecl, Dispatch};
/// use ecs::{Context, Data, System};
/// # pub struct Position(pub f32);
/// # pub struct Velocity(pub f32);
/// # #[derive(Default)]
/// # pub struct Move;
/// # #[derive(Default)]
/// # pub struct Draw;
/// #
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Position, Velocity: contiguous; }
/// #         systems {
/// #             movement: Move { read: [Velocity], write: [Position] }
/// #             draw: Draw { read: [Position], after: [movement] }
/// #         }
/// #     }
/// # }
/// #
/// impl System<World, f32> for Move {
///     fn process(&self, data: &mut Data<'_, World, Self>, dt: &f32) {
///         data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0 * dt);
///     }
/// }
/// impl System<World, f32> for Draw {
///     fn process(&self, _: &mut Data<'_, World, Self>, _: &f32) {}
/// }
///
/// /// Runs `n` steps of `dt` seconds, in any context whose systems take an `f32`.
/// fn simulate<Cx: ContextDecl + Dispatch<f32>>(cx: &mut Context<Cx>, n: usize, dt: f32) {
///     for _ in 0..n {
///         cx.step(|p| p.run_all(&dt));
///     }
/// }
///
/// let mut world = World::new();
/// let e = world.step(|p| p.spawn((Position(0.0), Velocity(1.0))).unwrap());
/// simulate(&mut world, 4, 0.25);
/// world.step(|p| assert_eq!(p.get::<Position>(e).map(|p| p.0), Some(1.0)));
/// ```
pub unsafe trait Dispatch<A: ?Sized>: ContextDecl {
    /// Runs system `index` (all its subtasks) with `args`.
    ///
    /// # Safety
    /// As [`Context::run_system`]: only the closure `run_selected` gives the
    /// scheduler (or `run_all`'s loop on one thread) may call it, which runs
    /// each system once, never beside a conflicting one, after matching.
    // Hidden: implemented by `declare_context!`, called only by the scheduler.
    #[doc(hidden)]
    unsafe fn dispatch(cx: &Context<Self>, index: usize, args: &A);
}

/// `&mut *$cell.get()` for `$cell`, an `UnsafeCell<$T>`, to be used inside
/// an `unsafe` block whose caller upholds that dereference's contract (the
/// value is not otherwise borrowed while the reference lives). The
/// pointer is made as `UnsafeCell::get` makes it (a cast: the cell is
/// `repr(transparent)`), and `get` itself, one more item per system for
/// rustc to collect and inline, is not called. A `transmute` of that
/// pointer (never null, and aligned for `$T`: it points into the cell)
/// rather than its dereference, which a debug build checks at run time
/// (alignment and null: a comparison, a branch and a panic's call each),
/// three per system's run compiled into the context's `dispatch`
/// (COMPILE_COST.md, eighteenth round). The same code in an optimised
/// build.
macro_rules! cell_mut {
    ($cell:expr, $T:ty) => {
        core::mem::transmute::<*mut $T, &mut $T>(&$cell as *const UnsafeCell<$T> as *mut $T)
    };
}

/// The body of a system's run ([`Context::run_with`] with the code as
/// closures, [`Context::run_system_with_data`] with the system's own
/// methods), with the code of the four steps as expressions of the names
/// given (`names`): the state (`before`), the state and the proxy
/// (`process`), the state and the outputs (`after`), the output (`reset`),
/// the proxy, from the system's set, the output and the queue's guard
/// (`queue.0`), and the subtask job of a run that may split, from the
/// state (`run_subtasks` gives it the set and the count of subtasks).
///
/// A macro rather than closures for an entity system's run: each closure
/// was one more function per system for rustc to collect, compile and
/// (always inlined) inline, four per system in `run_system_with_data`
/// (128 of the 4 663 items at 64/32, `-Zprint-mono-items`); the system's
/// methods called here directly are none.
///
/// The names are the caller's, each bound once, to the value itself: the
/// expressions took closure-like parameters before, bound again to each
/// value (`let set = set;` and the like), 17 variables in the run of a
/// system that never splits where 9 are now. In a debug build every
/// variable is a stack slot, a store and its description, in each
/// system's run inlined into the context's `dispatch` (rustc's
/// instructions for the 64/32 debug build: COMPILE_COST.md's sixteenth
/// round).
macro_rules! run_body {
    (
        $cx:ident, $S:ty,
        names: |$state:ident, $outputs:ident, $set:ident, $output:ident, $queue:ident, $proxy:ident|,
        proxy: $new:expr,
        before: $before:expr,
        process: $process:expr,
        after: $after:expr,
        reset: $reset:expr,
        subtask: $job:expr,
    ) => {{
        let slot = <$S as SystemOf<Cx>>::slot(&$cx.systems);
        // The slot's cells reached here, as `SystemSlot::run` does: that
        // always-inlined method was one more item per system for rustc to
        // collect, compile to IR and inline in a debug build.
        // Each cell's reference by `cell_mut!`, not `&mut *cell.get()`: a
        // debug build checked each of those dereferences (alignment, null:
        // 96 checks and their panics in the 64/32 declaration's `dispatch`).
        // One `let` each, not a tuple taken apart: a debug build stored the
        // tuple on the stack and loaded each reference back.
        // SAFETY: this is the run of `S` (`SystemSlot::run`'s contract):
        // `&self` here comes from `run_selected` (through `Dispatch` or an
        // adapter), whose scheduler runs `S` once and its descendants, the
        // only systems that read its cells, after this returns
        // (`system_cell.rs`'s documentation).
        let $state = unsafe { cell_mut!(slot.state, $S) };
        // SAFETY: as above.
        let $outputs = unsafe { cell_mut!(slot.outputs, Vec<<$S as SystemOf<Cx>>::Output>) };
        // SAFETY: as above.
        let scratch = unsafe { cell_mut!(slot.scratch, Vec<Pending<Cx>>) };
        $before;
        // Only what depends on `S` is generic over it: the subtask's code.
        // The rest of a split run (outputs, queues, threads) is
        // `run_subtasks`, one copy per output type, calling the subtask
        // behind a trait object, so that each system adds little code to
        // compile; a system that never splits (a constant: its strategy and
        // the context's `inner_parallelism`) compiles no split run at all,
        // neither `run_subtasks`' call nor the trait object's method.
        if const { Cx::SETTINGS.inner_parallelism && <$S as SystemOf<Cx>>::PARALLELISM.may_split() } {
            // A system that may split, split or not this time: through
            // `run_subtasks` and the same out-of-line `Subtask::run` for
            // each part, so that the proxy's construction and `process`
            // (inlined when small) are compiled once per system, and the
            // queue's hand-over and unwinding once per output type, not
            // again in the context's `dispatch` (into which LLVM inlines
            // every `run_with`). The system's set and count of subtasks are
            // found there, from its index and strategy: a debug build
            // compiled both calls, and the subtask's three more fields,
            // into each such system's run (COMPILE_COST.md, eighteenth
            // round).
            $cx.run_subtasks(
                <$S as SystemOf<Cx>>::INDEX,
                &<$S as SystemOf<Cx>>::PARALLELISM,
                &mut *$outputs,
                scratch,
                &$job,
            );
        } else {
            let $set = $cx.subscriptions.of(<$S as SystemOf<Cx>>::INDEX);
            // The run of a system that never splits: one subtask, on this
            // thread, run here: `run`, inlined, sees the constant subtask 0
            // of 1 (a system processing few entities spends as long around
            // its loop as in it; through the trait object, frag_iter's step
            // took 33 more instructions).
            // The output and queue the last run left, unless it was the
            // first or a split run (then resized, out of line).
            let ($output, pending) = one_subtask(&mut *$outputs, scratch);
            // A panicking run's changes are dropped, not applied later.
            let $queue = ClearOnUnwind(&mut *pending);
            // Here rather than in a method of `job`: in a debug build each
            // layer is one more function per system.
            $reset;
            {
                // The proxy of subtask 0 of 1, from `set`, the output and the
                // queue, as `$new` builds it (an `unsafe` construction: see
                // `SubtaskProxy::new`). Why it is sound: `set` holds the
                // system's subscribers (perhaps in the set it shares with
                // systems matching the same ids: `Subscriptions`' invariant),
                // distinct (a sparse set) and matched before any system ran
                // (`run_selected`, `run_all`), so each holds the system's
                // signature; nothing changes components while systems run
                // (that needs `&mut Context`). Subtask 0 of 1, run once, gets
                // the whole set. The scheduler runs only systems the
                // declaration proves compatible at the same time
                // (`ContextDecl`'s contract).
                #[allow(unused_mut)]
                let mut $proxy = $new;
                $process;
            }
            core::mem::forget($queue);
            $cx.hand_over_one(<$S as SystemOf<Cx>>::INDEX, pending);
        }
        $after;
    }};
}

impl<Cx: ContextDecl> Context<Cx> {
    /// [`Context::run_system`]'s body (the method itself is declared in
    /// `context.rs`, so that errors name it `Context::run_system`: rustc
    /// names an inherent method by its type's path only when the `impl`
    /// sits in the type's module).
    ///
    /// The generated `Dispatch::dispatch` calls this rather than
    /// `run_system`: that one-call shell, always inlined, was one more item
    /// per system for rustc to collect, compile to IR and inline in every
    /// build (32 at 64 components / 32 systems; COMPILE_COST.md, fifteenth
    /// round). An error about a system's arguments is reported at the
    /// `Dispatch` impl's bounds, before either is reached.
    ///
    /// # Safety
    /// As [`Context::run_system`].
    #[doc(hidden)]
    #[inline(always)]
    #[allow(
        clippy::transmute_ptr_to_ref,
        reason = "no run-time check of the slot's cells in a debug build (`cell_mut!`)"
    )]
    pub unsafe fn run_system_with_data<S: System<Cx, A>, A: ?Sized + Sync>(&self, args: &A) {
        // The system's methods called directly, not through closures
        // (`run_body`).
        run_body!(
            self, S,
            names: |state, outputs, set, output, queue, proxy|,
            // The proxy built here, not by `SubtaskProxy::new`: that
            // always-inlined constructor was one more item per system for
            // rustc to collect, compile to IR and inline in a debug build
            // (32 at 64 components / 32 systems; COMPILE_COST.md, fifteenth
            // round).
            proxy: Data {
                view: View {
                    // SAFETY: the run of one subtask's guarantees (`run_body!`).
                    part: unsafe { Part::new::<false>(self, set, 0, 1, &mut *queue.0) },
                    output,
                },
            },
            before: state.before(args),
            process: state.process(&mut proxy, args),
            after: state.after(outputs, args),
            reset: S::reset_output(&mut *output),
            subtask: ArgsSubtask::<S, A> {
                shared: &*state,
                args,
            },
        );
    }

    /// Runs every system ([`Step::run_all`](crate::Step::run_all)), with
    /// `collect` telling whether `events` has handlers.
    ///
    /// Without a team (one thread), after matching pending entities, each
    /// system runs in topological order, dispatched directly: no selection,
    /// no closure between the step and the system (a step of one small
    /// system spends as long in the calls around it as in its loop). With a
    /// team, the scheduler gets no selection either (`None`: every system)
    /// and calls the one closure that dispatches: `run_selected` took a
    /// slice of `true`s, which the counters scanned and indexed at each
    /// decrement, and wrapped this closure in one of its own, a second
    /// indirect call per system (callgrind `schedule_team`, 83 184 -> 83 104
    /// instructions a step: benches/peers/gaps.md, round `cc24a`).
    #[inline(always)]
    pub(crate) fn run_all<A: ?Sized + Sync>(&mut self, events: &mut dyn EventSink, collect: bool, args: &A)
    where
        Cx: Dispatch<A>,
    {
        self.prepare_run(events, collect);
        let cx = &*self;
        let Some(team) = &*cx.team else {
            for &i in Cx::TOPOLOGICAL {
                // SAFETY: this is the scheduler without a team (`execute`'s
                // `None` arm, every system selected), inlined: each system
                // runs once, in topological order, one at a time, after
                // matching, while `&mut self` keeps anything else from
                // touching the context.
                unsafe { Cx::dispatch(cx, i, args) };
            }
            return;
        };
        // SAFETY: `dispatch` is called by the scheduler, as `run_selected`'s
        // is: each system once, never beside a conflicting one, after
        // matching (just above), while `&mut self` keeps anything else from
        // touching the context.
        crate::schedule::execute_on_team::<Cx>(team, None, &|i| unsafe { Cx::dispatch(cx, i, args) });
        self.check_started();
    }

    /// Matches the entities created or changed since the last matching to
    /// systems and fires the events that causes (when `collect`), as every
    /// run must first. Nothing to match (the common step) is checked here,
    /// inlined; the matching itself is called only otherwise.
    #[inline(always)]
    pub(crate) fn prepare_run(&mut self, events: &mut dyn EventSink, collect: bool) {
        let idle = !collect
            && !self.entities.has_dirty()
            && self.entities.bulk().is_empty()
            && self.subscriptions.all_tidy(Cx::SYSTEMS.len());
        if !idle {
            self.match_and_fire(events, collect);
        }
    }

    #[inline]
    fn match_and_fire(&mut self, events: &mut dyn EventSink, collect: bool) {
        <Cx::Bits as RefreshCore>::match_and_fire(self.parts(), events, collect);
    }

    /// Runs the selected systems after matching pending entities, calling
    /// `run(cx, i)` for each system `i`; `collect` tells whether `events`
    /// has handlers.
    pub(crate) fn run_selected(
        &mut self,
        selected: &[bool],
        events: &mut dyn EventSink,
        collect: bool,
        run: &(dyn Fn(&Self, usize) + Sync),
    ) {
        self.prepare_run(events, collect);
        let cx = &*self;
        crate::schedule::execute::<Cx>(cx.team.as_ref(), Some(selected), &|i| run(cx, i));
        self.check_started();
    }

    /// Panics if the team's helpers failed to start during the step
    /// ([`Team::check_started`](crate::schedule::Team::check_started)).
    #[inline]
    fn check_started(&mut self) {
        if let Some(team) = &mut *self.team {
            team.check_started(Cx::NAME);
        }
    }

    /// Runs system `S` with the given code: `before` once, `process` per
    /// subtask (in parallel where split) on the proxy `P` builds for it and
    /// an output `reset` prepared from the last run's, `after` once with
    /// the outputs. One body for entity systems ([`DataProxy`]) and column
    /// steps (`ColumnsProxy`).
    ///
    /// Called only from the closure `run_selected` gives the scheduler:
    /// through `Dispatch` (`run_system`, `run_column_system`) or an adapter.
    ///
    /// The closures are `Copy` (every caller's are: references, or closures
    /// of references): then the compiler knows that none needs dropping,
    /// and a debug build compiles no drop flags and no landing pads for
    /// them into every system's run.
    #[allow(
        clippy::transmute_ptr_to_ref,
        reason = "no run-time check of the slot's cells in a debug build (`cell_mut!`)"
    )]
    pub(crate) fn run_with<S: SystemOf<Cx>, P: SubtaskProxy<Cx, S>>(
        &self,
        before: impl FnOnce(&mut S) + Copy,
        process: impl Fn(&S, &mut P::Proxy<'_>) + Sync + Copy,
        after: impl FnOnce(&mut S, &mut [S::Output]) + Copy,
        reset: impl Fn(&mut S::Output) + Sync + Copy,
    ) {
        run_body!(
            self, S,
            names: |state, outputs, set, output, queue, proxy|,
            // SAFETY: the run of one subtask's guarantees (`run_body!`).
            proxy: unsafe { <P as SubtaskProxy<Cx, S>>::new::<false>(self, set, 0, 1, output, &mut *queue.0) },
            before: before(&mut *state),
            process: process(&*state, &mut proxy),
            after: after(&mut *state, &mut outputs[..]),
            reset: reset(&mut *output),
            subtask: SystemSubtask::<S, P, _, _> {
                shared: &*state,
                process: &process,
                reset: &reset,
                proxy: PhantomData,
            },
        );
    }

    /// The part of the run of system `index` (of strategy `parallelism`,
    /// which may split) that does not depend on the system: finds the
    /// system's set and its count of subtasks, calls
    /// `subtask.run(self, set, i, subtasks, output, pending)` once for each
    /// `i < subtasks` (in parallel on the team when there are several), on
    /// the outputs of the last run (one per subtask) and the subtasks'
    /// queues, then hands what they queued to system `index`'s slot for the
    /// next refresh. `subtask` is that system's.
    #[inline(never)]
    pub(crate) fn run_subtasks<O: Default + Send>(
        &self,
        index: usize,
        parallelism: &Parallelism,
        outputs: &mut Vec<O>,
        scratch: &mut Vec<Pending<Cx>>,
        subtask: &dyn Subtask<Cx, O>,
    ) {
        let set = self.subscriptions.of(index);
        let subtasks = parallelism.subtasks(set.len(), self.threads);
        // Runs of systems that may split come here, split or not (`run_with`
        // runs those that never split itself).
        // Last run's outputs, one per subtask, so that `reset` may keep
        // their memory.
        fit(outputs, subtasks);
        // Each subtask records changes for the refresh in a queue of its
        // own, kept from run to run (empty, with its memory) so that
        // deferring allocates nothing once the queues have grown.
        fit(scratch, subtasks);
        // A panicking run's changes are dropped, not applied later.
        let scratch = DropPendingOnUnwind(scratch);
        match &*self.team {
            Some(team) if subtasks > 1 => {
                // Each subtask works on its output and pending changes on its
                // own stack and puts them back at the end: those of a
                // system's subtasks sit side by side, so pushing to them in
                // place would make the threads fight over the cache lines
                // that hold their lengths (false sharing: it made `render`
                // and `spatial_partition` of the particle simulation 2-3x
                // slower on two threads).
                team.for_each_pair_mut(outputs, scratch.0, &|i, output_slot, pending_slot| {
                    let mut output = core::mem::take(output_slot);
                    let mut pending = core::mem::take(pending_slot);
                    // SAFETY: `for_each_pair_mut` calls this once per index
                    // `i < subtasks` (both slices hold `subtasks`, `fit`
                    // above), each with its own slots; `set` and
                    // `subtasks` are system `index`'s, found above, and
                    // `subtask` that system's, in its run (`run_body!`, the
                    // only caller).
                    unsafe { subtask.run(self, set, i, subtasks, &mut output, &mut pending) };
                    *output_slot = output;
                    *pending_slot = pending;
                });
            }
            _ => {
                // In place, on this thread: a run allocates nothing once the
                // outputs and queues have grown.
                // (By index: `enumerate` and `zip` compiled their adapters
                // for each output type of each context.)
                #[allow(clippy::needless_range_loop)]
                for i in 0..subtasks {
                    // SAFETY: once per index `i < subtasks`, one at a time;
                    // `set`, `subtasks` and `subtask` as above.
                    unsafe { subtask.run(self, set, i, subtasks, &mut outputs[i], &mut scratch.0[i]) };
                }
            }
        }
        // Hands the kills and deferred functions the run recorded to the
        // system's slot, for the next refresh, in subtask order.
        if any_queued(scratch.0) {
            self.hand_over(index, scratch.0);
        }
        core::mem::forget(scratch);
    }

    /// Hands what the one subtask of a run recorded in `pending` (if
    /// anything) to system `index`'s slot: inlined in an optimised build, a
    /// call in a debug build (one copy per context, not one per system).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn hand_over_one(&self, index: usize, pending: &mut Pending<Cx>) {
        if !pending.is_empty() {
            self.hand_over(index, core::slice::from_mut(pending));
        }
    }

    /// Hands the kills and deferred functions the subtasks recorded in
    /// `pending` to system `index`'s slot for the next refresh, and says so
    /// to the refresh (`gathered`).
    #[cold]
    #[inline(never)]
    fn hand_over(&self, index: usize, pending: &mut [Pending<Cx>]) {
        gather(Cx::slot_core(&self.systems, index), pending);
        self.gathered.store(true, Ordering::Relaxed);
    }
}

/// The output and queue the last run left, unless it was the first or a
/// split run (then resized by `one_each`, out of line). Inlined in an
/// optimised build; a debug build calls it, one copy per output type
/// rather than one in every system's run.
#[cfg_attr(not(debug_assertions), inline(always))]
fn one_subtask<'v, O: Default, Cx: ContextDecl>(
    outputs: &'v mut Vec<O>,
    scratch: &'v mut Vec<Pending<Cx>>,
) -> (&'v mut O, &'v mut Pending<Cx>) {
    if outputs.len() == 1 && scratch.len() == 1 {
        (&mut outputs[0], &mut scratch[0])
    } else {
        one_each(outputs, scratch)
    }
}

/// Leaves one output and one queue for a run of one subtask, and returns
/// them: those of the last run's first subtask (the others are dropped, as
/// `run_subtasks` does), or new ones. Out of line: only the first run and
/// the first after a split one come here.
#[cold]
#[inline(never)]
fn one_each<'v, O: Default, Cx: ContextDecl>(
    outputs: &'v mut Vec<O>,
    scratch: &'v mut Vec<Pending<Cx>>,
) -> (&'v mut O, &'v mut Pending<Cx>) {
    fit(outputs, 1);
    fit(scratch, 1);
    (&mut outputs[0], &mut scratch[0])
}

/// Whether any of the subtasks' queues holds something: generic over the
/// context only (`any` with a closure was compiled for each output type).
fn any_queued<Cx: ContextDecl>(queues: &[Pending<Cx>]) -> bool {
    for pending in queues {
        if !pending.is_empty() {
            return true;
        }
    }
    false
}

/// Leaves `v` with `n` elements: the first `n` it held, then new ones.
///
/// A loop of `push`, not `Vec::resize_with`: its adapters (`RepeatWith`,
/// `Take`, `extend_trusted` and their closures) were compiled for each
/// output type and for each context's queues: about 330 lines of
/// unoptimised IR and 355 debug instructions each (the sum of those
/// functions in `SIZES="2/1" LLVM_LINES=1 DEBUG_IR=1 scripts/compile-cost`),
/// where `push` adds about 100.
fn fit<T: Default>(v: &mut Vec<T>, n: usize) {
    v.truncate(n);
    while v.len() < n {
        v.push(T::default());
    }
}

/// One subtask of a system's run, as [`Context::run_subtasks`] calls it: a
/// trait object of one method. (A `dyn Fn` would be three: its vtable
/// also holds `call_mut` and `call_once`, compiled for every system, the
/// `call_once` shim with the whole subtask, `process` and all, inlined
/// again.)
pub(crate) trait Subtask<Cx: ContextDecl, O>: Sync {
    /// Runs subtask `i` of `subtasks` over the system's set `set` of
    /// context `cx`, with its output (reset first) and queue.
    ///
    /// # Safety
    /// The caller is the run of the subtask's system in `cx` (as
    /// `run_body!`'s, whose guarantees it keeps), `set` is that system's
    /// set in `cx`'s subscriptions and `subtasks` the run's count; `i` is
    /// below it, and each `i` runs once per run (its part of the set is its
    /// own).
    unsafe fn run(
        &self,
        cx: &Context<Cx>,
        set: &SparseSet,
        i: usize,
        subtasks: usize,
        output: &mut O,
        pending: &mut Pending<Cx>,
    );
}

/// The subtasks of one run of system `S`: each resets its output, builds
/// the proxy `P` over its part of `set`, and calls `process` on it.
struct SystemSubtask<'r, S, P, F, R> {
    shared: &'r S,
    process: &'r F,
    reset: &'r R,
    proxy: PhantomData<fn() -> P>,
}

impl<Cx, S, P, F, R> Subtask<Cx, S::Output> for SystemSubtask<'_, S, P, F, R>
where
    Cx: ContextDecl,
    S: SystemOf<Cx>,
    P: SubtaskProxy<Cx, S>,
    F: Fn(&S, &mut P::Proxy<'_>) + Sync,
    R: Fn(&mut S::Output) + Sync,
{
    /// A subtask of a run of a system that may split (`run_subtasks` calls
    /// it through the trait object, for each of several parts or for the
    /// whole set): not specialised for one subtask.
    unsafe fn run(
        &self,
        cx: &Context<Cx>,
        set: &SparseSet,
        i: usize,
        subtasks: usize,
        output: &mut S::Output,
        pending: &mut Pending<Cx>,
    ) {
        (self.reset)(output);
        // SAFETY: as in `run_body`'s run of one subtask (`set` the system's,
        // `i` below the run's `subtasks` and run once: the caller's
        // contract).
        let mut proxy = unsafe { P::new::<true>(cx, set, i, subtasks, output, pending) };
        (self.process)(self.shared, &mut proxy);
    }
}

/// The subtasks of one run of entity system `S` with arguments `A`: as
/// [`SystemSubtask`], with the system's own methods rather than closures.
struct ArgsSubtask<'r, S, A: ?Sized> {
    shared: &'r S,
    args: &'r A,
}

impl<Cx, S, A> Subtask<Cx, S::Output> for ArgsSubtask<'_, S, A>
where
    Cx: ContextDecl,
    S: System<Cx, A>,
    A: ?Sized + Sync,
{
    /// As `SystemSubtask::run`.
    unsafe fn run(
        &self,
        cx: &Context<Cx>,
        set: &SparseSet,
        i: usize,
        subtasks: usize,
        output: &mut S::Output,
        pending: &mut Pending<Cx>,
    ) {
        S::reset_output(output);
        // Built here, not by `DataProxy::new` (one more item per system, as
        // in `run_system_with_data`).
        let mut proxy = Data {
            view: View {
                // SAFETY: as in `run_body`'s run of one subtask (`set` the
                // system's, `i` below the run's `subtasks` and run once: the
                // caller's contract).
                part: unsafe { Part::new::<true>(cx, set, i, subtasks, pending) },
                output,
            },
        };
        self.shared.process(&mut proxy, self.args);
    }
}

/// Appends the subtasks' queues to the system's, in subtask order.
///
/// The lock is taken and released by `locked`, compiled once: a guard of
/// `Mutex<Pending<Cx>>` would compile the lock's and unlock's atomics (two
/// `compare_exchange`s, ~350 IR lines) into every context's crate.
#[cold]
pub(crate) fn gather<Cx: ContextDecl>(core: &SlotCore<Cx>, pending: &mut [Pending<Cx>]) {
    // SAFETY: the raw mutex is only locked and unlocked by `locked` below,
    // in pairs; no guard of `core.pending` exists (this is its only
    // locker; refresh reaches it through `get_mut`, with `&mut`).
    let raw = unsafe { core.pending.raw() };
    locked(raw, &mut || {
        // SAFETY: `locked` holds the lock for this call: no other thread
        // touches the queue until it returns, and this reference does not
        // outlive the call.
        let gathered = unsafe { &mut *core.pending.data_ptr() };
        for p in pending.iter_mut() {
            gathered.append(p);
        }
    });
}

/// Calls `f` with `mutex` locked, and unlocks it after, even if `f` panics.
/// Not generic: every context's [`gather`] shares it.
#[inline(never)]
fn locked(mutex: &parking_lot::RawMutex, f: &mut dyn FnMut()) {
    use parking_lot::lock_api::RawMutex as _;
    /// Unlocks the mutex when dropped, unwinding included.
    struct Unlock<'m>(&'m parking_lot::RawMutex);
    impl Drop for Unlock<'_> {
        fn drop(&mut self) {
            // SAFETY: locked by this thread (just below), and unlocked once,
            // here.
            unsafe { self.0.unlock() };
        }
    }
    mutex.lock();
    let _unlock = Unlock(mutex);
    f();
}

/// The subtasks' queues of a run, cleared if dropped, which only unwinding
/// does (the run forgets it once it has gathered them).
pub(crate) struct DropPendingOnUnwind<'a, Cx: ContextDecl>(pub(crate) &'a mut Vec<Pending<Cx>>);

impl<Cx: ContextDecl> Drop for DropPendingOnUnwind<'_, Cx> {
    fn drop(&mut self) {
        for pending in self.0.iter_mut() {
            pending.clear();
        }
    }
}

/// The queue of the only subtask of a run, cleared if dropped, which only
/// unwinding does (the run forgets it once the subtask has returned).
struct ClearOnUnwind<'a, Cx: ContextDecl>(&'a mut Pending<Cx>);

impl<Cx: ContextDecl> Drop for ClearOnUnwind<'_, Cx> {
    // Out of line: generic over the context alone, so one copy, rather than
    // the queue's clearing inlined into the landing pad of every system's
    // run.
    #[cold]
    #[inline(never)]
    fn drop(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn fit_keeps_the_first_elements_then_adds_defaults() {
        let mut v = vec![1u32, 2, 3];
        fit(&mut v, 2);
        assert_eq!(v, [1, 2]);
        fit(&mut v, 4);
        assert_eq!(v, [1, 2, 0, 0]);
        fit(&mut v, 4);
        assert_eq!(v, [1, 2, 0, 0]);
        fit(&mut v, 0);
        assert!(v.is_empty());
    }
}
