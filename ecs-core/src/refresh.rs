//! The body of a step (`Context::step` and `step_with` are declared in
//! `context.rs`): the closure given the step proxy, then the refresh that
//! ends it (deferred functions, kills, reclamation, matching, event
//! handlers).

use crate::bitset::ComponentSet;
use crate::context::Context;
use crate::decl::ContextDecl;
use crate::events::EventSink;
use crate::layout::Layout;
use crate::proxy::{Defer, Step};

impl<Cx: ContextDecl> Context<Cx> {
    /// A step whose handlers (`events`) are set when `collect` holds: known
    /// once here (the handlers cannot change while the step borrows them),
    /// so that neither the step nor its runs ask `events` again.
    #[inline(always)]
    pub(crate) fn step_inner<R>(
        &mut self,
        events: &mut dyn EventSink,
        collect: bool,
        f: impl FnOnce(&mut Step<'_, Cx>) -> R,
    ) -> R {
        if collect {
            // Earlier steps' changes are matched without events: the
            // handlers are this step's.
            self.match_dirty(&mut Vec::new(), false);
        }
        let r = f(&mut Step::new(Defer { cx: self }, events, collect));
        self.refresh_with(events, collect);
        r
    }

    /// Kills every entity and reclaims it (after applying what a panicking
    /// step left for the next refresh): the context holds no entity and no
    /// component value, and no system any entity. For `restore`.
    #[cfg(feature = "serde")]
    pub(crate) fn clear_all(&mut self) {
        self.refresh_with(&mut crate::events::NoEvents, false);
        for id in 0..self.entities.id_bound() {
            self.entities.kill_id(crate::handle::EntityId::from_bits(id as u32));
        }
        self.refresh_with(&mut crate::events::NoEvents, false);
    }

    /// Deferred functions, kills, reclamation, matching; then event
    /// handlers, when `collect` says that `events` has some. Most steps leave nothing to refresh (no deferred
    /// function, kill or hole, every set tidy): that is checked here, inlined
    /// into the step, and the refresh itself is called only otherwise.
    #[inline(always)]
    pub(crate) fn refresh_with(&mut self, events: &mut dyn EventSink, collect: bool) {
        let idle = !collect
            && Cx::SETTINGS.layout != Layout::Archetypes
            && !*self.gathered.get_mut()
            && !self.entities.has_dying()
            && !self.entities.has_holes()
            && self.subscriptions.all_tidy(Cx::SYSTEMS.len());
        if !idle {
            self.refresh_all(events, collect);
        }
    }

    /// The refresh, when there may be something to do.
    #[inline(never)]
    fn refresh_all(&mut self, events: &mut dyn EventSink, collect: bool) {
        let mut fired = Vec::new();
        // Every deferred function first (system, subtask, call order), then
        // the kills systems recorded: a deferred function still sees the
        // entities its system's step killed.
        // (Most steps leave nothing: then the flag alone is read.)
        // (`Relaxed`: the runs that set it have finished, and `&mut self`
        // orders their writes before this read.)
        if *self.gathered.get_mut() {
            self.apply_gathered();
        }
        // A panicking `drop` in reclamation waits until the context is in
        // order (every dying entity reclaimed, ids packed), then reaches the
        // caller without this refresh's events; the next refresh or run
        // compacts the sets, as after any refresh that matched nothing.
        let panicked = if self.entities.has_dying() {
            self.reclaim_dying(&mut fired, collect)
        } else {
            None
        };
        if self.entities.has_holes() {
            // The entities with the highest ids move into the ids the
            // reclaimed ones left: values and subscriptions follow, handles
            // stay valid, and the ids stay packed.
            let (storages, subscriptions) = (&mut self.storages, &mut self.subscriptions);
            // Between moving an entity's values and moving its subscriptions,
            // a system's set may name an id whose values are elsewhere. Only
            // a custom storage's `relocate` (or the `remove` and `insert` of
            // the default) could panic there (relocation drops no value, and
            // the built-in storages only fail to allocate, which aborts);
            // unwinding would leave that state behind, so abort instead.
            let guard = AbortOnUnwind;
            self.entities.pack(|from, to, bits| {
                bits.for_each(|c| Cx::relocate_component(storages, c, from, to));
                subscriptions.relocate(from, to);
            });
            core::mem::forget(guard);
        }
        if let Some(payload) = panicked {
            std::panic::resume_unwind(payload);
        }
        if collect {
            // The handlers are this step's: they see its subscriptions now.
            self.match_dirty(&mut fired, collect);
        } else if Cx::SETTINGS.layout == Layout::Archetypes {
            // Arranging rewrites each set from the entities' components,
            // which needs every entity matched (without events, as a run
            // would match them).
            self.match_dirty(&mut fired, false);
        } else {
            // Matching waits for the next run (see `Context`), but the holes
            // reclamation left are closed now, so that the sets' memory
            // stays bounded however many steps pass without a run.
            self.compact_subscribers();
        }
        if Cx::SETTINGS.layout == Layout::Archetypes {
            self.arrange_archetypes();
        }
        if !fired.is_empty() {
            for e in fired {
                events.fire(e);
            }
        }
    }

    /// Runs the deferred functions and applies the kills the runs handed to
    /// the systems' slots: every deferred function first (system, subtask,
    /// call order), then the kills, so that a deferred function still sees
    /// the entities its system's step killed. Clears `gathered` once every
    /// slot is empty; a panicking deferred function leaves it set, so the
    /// next refresh applies what the others queued.
    #[inline(never)]
    fn apply_gathered(&mut self) {
        for i in 0..Cx::SYSTEMS.len() {
            let pending = Cx::slot_core_mut(&mut self.systems, i).pending.get_mut();
            if pending.deferred.is_empty() {
                continue;
            }
            // Run from outside the slot (a deferred function has the whole
            // context), then put back, empty, to keep its memory; a panic
            // drops the functions not yet run and the buffer.
            let mut deferred = core::mem::take(&mut pending.deferred);
            deferred.run(&mut Defer { cx: self });
            Cx::slot_core_mut(&mut self.systems, i).pending.get_mut().deferred = deferred;
        }
        for i in 0..Cx::SYSTEMS.len() {
            let pending = Cx::slot_core_mut(&mut self.systems, i).pending.get_mut();
            if pending.kills.is_empty() {
                continue;
            }
            for id in core::mem::take(&mut pending.kills) {
                self.entities.kill_id(id);
            }
        }
        *self.gathered.get_mut() = false;
    }
}

/// Aborts the process if dropped, which only unwinding does (the owner
/// forgets it once past the code it guards).
struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        eprintln!("ecs: a storage panicked while entity ids were being packed; aborting");
        std::process::abort();
    }
}
