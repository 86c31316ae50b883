//! What a refresh reports ([`Event`]) and where ([`EventSink`]), apart from
//! the user's handlers (`events.rs`), which name the context: the runtime
//! code compiled once per component set type (`match_core.rs`) reports
//! events without depending on any context.

use crate::handle::Entity;

/// One event of a refresh.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    Subscribe(usize, Entity),
    Unsubscribe(usize, Entity),
    Reclaim(Entity),
}

/// Where the runtime reports events: [`RefreshEvents`](crate::RefreshEvents), or nothing.
pub(crate) trait EventSink {
    /// Whether any handler is set (events are collected only then).
    fn wants(&self) -> bool;
    /// Calls the handler of one event.
    fn fire(&mut self, event: Event);
}

/// No handlers.
pub(crate) struct NoEvents;

impl EventSink for NoEvents {
    fn wants(&self) -> bool {
        false
    }
    fn fire(&mut self, _: Event) {}
}

/// Calls `events`' handler of each event of `fired`, in order.
pub(crate) fn fire_all(events: &mut dyn EventSink, fired: Vec<Event>) {
    for e in fired {
        events.fire(e);
    }
}
