//! `layout: archetypes`: at the end of each refresh, entity ids are sorted
//! by component set, so that the entities of one set are one run of ids
//! (see `layout.rs` for the design and its cost).

use crate::bitset::ComponentSet;
use crate::context::Context;
use crate::decl::ContextDecl;

impl<Cx: ContextDecl> Context<Cx> {
    /// Sorts the ids by the components systems name, if an entity was
    /// created, gained or lost one of them, or moved since the last time; moves the values of the entities
    /// that change ids and writes the systems' sets anew, in id order.
    ///
    /// Called at the end of a refresh, once every entity is matched and
    /// none is dying: handles keep naming their entities (the slots stay),
    /// ids given out before the refresh are stale, as after any refresh.
    pub(crate) fn arrange_archetypes(&mut self) {
        let storages = &mut self.storages;
        // Between moving one entity's values and the rest, a column may
        // hold values for ids whose sets say otherwise. Only a custom
        // storage's `swap` or `relocate` could panic there (the built-in
        // ones exchange in place and drop nothing); unwinding would leave
        // that state behind, so abort instead.
        // The components some system names decide the order first.
        let mut named = Cx::Bits::default();
        for signature in Cx::SIGNATURES {
            named.union_with(signature);
        }
        let guard = AbortOnUnwind;
        let swaps = self.entities.arrange(&named, |a, b, set_a, set_b| {
            let mut both = *set_a;
            both.union_with(set_b);
            both.for_each(|c| match (set_a.contains(c), set_b.contains(c)) {
                (true, true) => Cx::swap_component(storages, c, a, b),
                (true, false) => Cx::relocate_component(storages, c, a, b),
                (false, true) => Cx::relocate_component(storages, c, b, a),
                (false, false) => {}
            });
        });
        if swaps > 0 {
            self.subscriptions.rebuild(Cx::SIGNATURES, self.entities.runs());
        }
        core::mem::forget(guard);
    }
}

/// Aborts the process if dropped, which only unwinding does (the owner
/// forgets it once past the code it guards).
struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        eprintln!("ecs: a storage panicked while entities were being sorted by component set; aborting");
        std::process::abort();
    }
}
