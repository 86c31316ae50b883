//! The body of a step (`Context::step` and `step_with` are declared in
//! `context.rs`, so that errors name them `Context::step`): the closure
//! given the step proxy, then the refresh that ends it (deferred functions,
//! kills, reclamation, matching, event handlers).

use crate::context::Context;
use crate::decl::ContextDecl;
use crate::entity::Table;
use crate::event_sink::{fire_all, EventSink};
use crate::handle::EntityId;
use crate::layout::Layout;
use crate::proxy::{Defer, Step};
use crate::refresh_core::{Columns, Parts, RefreshCore};

impl<Cx: ContextDecl> Context<Cx> {
    /// Whether the context is declared with `layout: archetypes`: a
    /// constant, so that a context declared otherwise compiles no call to
    /// `arrange_archetypes` (code behind a constant `false` is not
    /// instantiated).
    const ARCHETYPES: bool = matches!(Cx::SETTINGS.layout, Layout::Archetypes);

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
        self.refresh_with(&mut crate::event_sink::NoEvents, false);
        for id in 0..self.entities.id_bound() {
            self.entities.kill_id(crate::handle::EntityId::from_bits(id as u32));
        }
        self.refresh_with(&mut crate::event_sink::NoEvents, false);
    }

    /// Deferred functions, kills, reclamation, matching; then event
    /// handlers, when `collect` says that `events` has some. Most steps leave nothing to refresh (no deferred
    /// function, kill or hole, every set tidy): that is checked here, inlined
    /// into the step, and the refresh itself is called only otherwise.
    #[inline(always)]
    pub(crate) fn refresh_with(&mut self, events: &mut dyn EventSink, collect: bool) {
        let idle = !collect
            && !Self::ARCHETYPES
            && !*self.gathered.get_mut()
            && !self.entities.has_dying()
            && !self.entities.has_holes()
            && self.subscriptions.all_tidy(Cx::SYSTEMS.len());
        if !idle {
            self.refresh_all(events, collect);
        }
    }

    /// The refresh, when there may be something to do: the deferred
    /// functions and kills of the systems' slots, then the rest
    /// ([`RefreshCore::reclaim`]: reclamation, packing, matching), then,
    /// with `layout: archetypes`, the entities arranged, then the events.
    #[inline(never)]
    fn refresh_all(&mut self, events: &mut dyn EventSink, collect: bool) {
        // Every deferred function first (system, subtask, call order), then
        // the kills systems recorded: a deferred function still sees the
        // entities its system's step killed.
        // (Most steps leave nothing: then the flag alone is read.)
        // (`Relaxed`: the runs that set it have finished, and `&mut self`
        // orders their writes before this read.)
        if *self.gathered.get_mut() {
            self.apply_gathered();
        }
        let archetypes = Self::ARCHETYPES;
        let mut fired = Vec::new();
        // With handlers, matching happens now, so that they see this step's
        // subscriptions; with `layout: archetypes` too (without events, as
        // a run would match them), because arranging rewrites each set from
        // the entities' components, which needs every entity matched.
        <Cx::Bits as RefreshCore>::reclaim(
            Parts {
                entities: &mut self.entities,
                subscriptions: &mut self.subscriptions,
                signatures: Cx::SIGNATURES,
            },
            &mut self.names,
            &mut ColumnsOf::<Cx>(&mut self.storages),
            &mut fired,
            collect,
            collect || archetypes,
        );
        if Self::ARCHETYPES {
            self.arrange_archetypes();
        }
        if !fired.is_empty() {
            fire_all(events, fired);
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
            <Cx::Bits as Table>::kill_ids(&mut self.entities, &mut pending.kills);
        }
        *self.gathered.get_mut() = false;
    }
}

/// A context's columns, as [`RefreshCore::reclaim`] changes them.
struct ColumnsOf<'a, Cx: ContextDecl>(&'a mut Cx::Storages);

impl<Cx: ContextDecl> Columns for ColumnsOf<'_, Cx> {
    fn remove(&mut self, index: usize, id: EntityId) {
        Cx::remove_component(self.0, index, id);
    }

    fn relocate(&mut self, index: usize, from: EntityId, to: EntityId) {
        Cx::relocate_component(self.0, index, from, to);
    }
}
