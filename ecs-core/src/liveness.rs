//! A handle that answers "is this entity alive?" from any thread, without
//! a lock, while the context runs steps.

use crate::generations::Generations;
use crate::handle::Entity;
use std::sync::Arc;

/// A handle to a context's liveness table: checks from any thread whether
/// an [`Entity`] is alive, without locks, while the context creates, kills
/// and reclaims entities on its own thread (an asset loader or a network
/// thread holding handles, seed 004's thread-safe `IsAlive`).
///
/// Get one with [`Context::liveness`](crate::Context::liveness) or
/// [`Defer::liveness`](crate::Defer::liveness) (on the step proxy too);
/// cloning it is cloning an `Arc`, and it is `Send + Sync`. A check is an
/// acquire load (finding the table's chunk) and a relaxed load of one word.
///
/// # What a check sees
/// The answer is a snapshot: the context may kill the entity right after.
/// An entity reads alive from its creation until it is killed (at once for
/// [`Defer::kill`](crate::Defer::kill), at the step's refresh for a
/// system's [`kill`](crate::View::kill)), then dead for ever, its slot's
/// reuse included, as [`Context::is_alive`](crate::Context::is_alive) says.
/// When the creation or the kill happens-before the check (the handle was
/// sent over a channel after `spawn` returned, the killing step returned
/// before a mutex was taken), the check sees it; a thread that saw an
/// entity dead never sees it alive again. After the context is dropped,
/// every entity reads dead.
///
/// # Memory
/// The table is separate from the context's own and exists from the first
/// `liveness()` call: until then creating, killing and reclaiming pay one
/// branch for it. In a `fixed(N)` context it is allocated whole then (4
/// bytes per entity) and never moves. In a `dynamic` one it grows in chunks
/// that double (the first holds the initial room, at least 1024 slots) and
/// never move either, so a check never waits for the context to grow:
/// at most 32 chunks, about 4 bytes per slot ever handed out, freed when
/// the last handle and the context are gone.
///
/// # Wrap-around
/// A slot's generation has 31 bits and wraps: after 2^31 reclamations of
/// the same slot a handle that old would read alive again, if the slot's
/// entity is alive. At a reclamation of that one slot every microsecond
/// that takes over half an hour; seed 004's byte-sized generation wraps
/// after 256. The context's own checks share this limit.
///
/// # Example
/// ```
/// # #[derive(Clone, Copy)] pub struct Asset(pub u32);
/// ecs::declare_context! {
///     pub context World {
///         settings { entities: fixed(64) }
///         components { Asset: contiguous; }
///         systems {}
///     }
/// }
/// let mut world = World::new();
/// let liveness = world.liveness();
/// let e = world.step(|p| p.spawn((Asset(7),)).unwrap());
/// // Another thread checks the handle while the context goes on.
/// let loader = {
///     let liveness = liveness.clone();
///     std::thread::spawn(move || liveness.is_alive(e))
/// };
/// assert!(loader.join().unwrap());
/// world.step(|p| p.kill(e));
/// assert!(!liveness.is_alive(e));
/// drop(world);
/// assert!(!liveness.is_alive(e));
/// ```
#[derive(Clone)]
pub struct Liveness {
    table: Arc<Generations>,
}

impl Liveness {
    pub(crate) fn new(table: Arc<Generations>) -> Self {
        Self { table }
    }

    /// Whether the handle's entity is alive (created and not killed), at
    /// some moment during the call.
    ///
    /// # Examples
    /// ```
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// let e = world.step(|p| p.spawn((Position(0.0),)).unwrap());
    /// let alive = world.liveness();
    /// assert!(alive.is_alive(e));
    /// world.step(|p| p.kill(e));
    /// assert!(!alive.is_alive(e)); // the same handle sees the kill
    /// ```
    #[inline]
    pub fn is_alive(&self, e: Entity) -> bool {
        self.table.is_alive(e.slot, e.generation)
    }
}

impl core::fmt::Debug for Liveness {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Liveness").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_is_send_and_sync_and_cheap_to_clone() {
        fn send_sync<T: Send + Sync + Clone>() {}
        send_sync::<Liveness>();
        assert_eq!(core::mem::size_of::<Liveness>(), core::mem::size_of::<usize>());
    }
}
