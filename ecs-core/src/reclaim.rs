//! Reclaiming killed entities at a refresh: their subscriptions and values
//! go and their slots are freed, even when a value's `drop` panics.

use crate::bitset::ComponentSet;
use crate::context::Context;
use crate::decl::ContextDecl;
use crate::events::Event;
use crate::schedule::{discard, keep_first, Payload};
use std::panic::{catch_unwind, AssertUnwindSafe};

impl<Cx: ContextDecl> Context<Cx> {
    /// Reclaims every dying entity: removes it from the systems' sets, drops
    /// its values and frees its slot, pushing the events when `collect`.
    ///
    /// A value whose `drop` panics stops nothing: the rest of the entity's
    /// values and the rest of the dying entities are reclaimed all the same,
    /// and the first panic is returned for the caller to resume once the
    /// refresh has put the context in order. The payloads of the others are
    /// dropped where their own panics cannot escape ([`discard`]): nothing
    /// unwinds out of here before the dying buffer is restored.
    pub(crate) fn reclaim_dying(&mut self, fired: &mut Vec<Event>, collect: bool) -> Option<Payload> {
        let dying = self.entities.take_dying();
        let mut done = 0;
        let mut first_panic = None;
        while done < dying.len() {
            // Unwind safety: `reclaim` leaves the context consistent at every
            // `drop` it calls (the value's bit is already clear), and calling
            // it again on the same slot finishes what a panic interrupted.
            let interrupted = catch_unwind(AssertUnwindSafe(|| {
                while let Some(&slot) = dying.get(done) {
                    self.reclaim(slot, |e| {
                        if collect {
                            fired.push(e);
                        }
                    });
                    done += 1;
                }
            }));
            if let Err(payload) = interrupted {
                // Each panic consumed a value, so this loop ends.
                if let Some(unkept) = keep_first(&mut first_panic, payload) {
                    discard(unkept);
                }
            }
        }
        self.entities.restore_dying_buffer(dying);
        first_panic
    }

    /// Reclaims the dying entity of `slot`; calls `fire` with its events.
    /// Each value's bit is cleared before the value is dropped, so calling it
    /// again after a panicking `drop` drops only the values left.
    fn reclaim(&mut self, slot: u32, mut fire: impl FnMut(Event)) {
        let (handle, id) = self.entities.entity_at(slot);
        // A set that no longer holds the id reports nothing: removing twice
        // is removing once.
        self.subscriptions.remove(id, |i| fire(Event::Unsubscribe(i, handle)));
        let bits = *self.entities.bits(id);
        bits.for_each(|c| {
            self.entities.clear_dying_bit(id, c);
            Cx::remove_component(&mut self.storages, c, id);
        });
        self.entities.free_slot(slot);
        if let Some(names) = &mut self.names {
            names.release(slot);
        }
        fire(Event::Reclaim(handle));
    }
}
