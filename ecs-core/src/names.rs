//! Named entities (seed 002's tags: "player", "camera"): a name is held by
//! at most one entity, and released when that entity is reclaimed.
//!
//! Names are strings chosen at run time (from a level file, a script, the
//! network), so they live in a hash map from name to handle, beside a map
//! from slot to name that releases a reclaimed entity's name in O(1). Both
//! are allocated the first time an entity is named: a context that never
//! names one holds a null pointer for them and checks it once per
//! reclaimed entity. No system iteration touches them; a lookup is an
//! explicit call, one hash of the name.

use crate::handle::Entity;
use core::mem::ManuallyDrop;
use std::collections::HashMap;

/// Naming an entity failed; nothing changed.
///
/// ```
/// use ecs::NameError;
/// # ecs::declare_context! {
/// #     pub context World { components {} systems {} }
/// # }
/// let mut world = World::new();
/// world.step(|p| {
///     let [a, b] = [p.create().unwrap(), p.create().unwrap()];
///     p.set_name(a, "player").unwrap();
///     assert_eq!(p.set_name(b, "player"), Err(NameError::Taken(a)));
///     p.kill(b);
///     assert_eq!(p.set_name(b, "camera"), Err(NameError::NoSuchEntity(b)));
/// });
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum NameError {
    /// Another entity holds the name: this one (alive, or killed and not
    /// yet reclaimed: the name is free again after the step's refresh).
    Taken(Entity),
    /// The entity to name is not alive (a stale handle, or killed).
    NoSuchEntity(Entity),
}

impl core::fmt::Display for NameError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NameError::Taken(holder) => write!(
                f,
                "the name is taken by entity {} (generation {}) until it is reclaimed",
                holder.slot, holder.generation
            ),
            NameError::NoSuchEntity(e) => write!(
                f,
                "entity {} (generation {}) is not alive: it cannot be named",
                e.slot, e.generation
            ),
        }
    }
}

impl std::error::Error for NameError {}

/// The names of a context's entities.
///
/// Invariant: `by_name` and `by_slot` hold the same pairs, each name and
/// each slot at most once, and every handle in `by_name` is the current
/// (alive or dying, not reclaimed) entity of its slot.
///
/// The maps are dropped by `Names`' own `drop`, compiled here: left to the
/// drop glue, every crate that declares a context would compile the maps'
/// drop (hashbrown's walk over their buckets) again, named or not.
#[derive(Default)]
pub(crate) struct Names {
    by_name: ManuallyDrop<HashMap<Box<str>, Entity>>,
    by_slot: ManuallyDrop<HashMap<u32, Box<str>>>,
}

impl Drop for Names {
    #[inline(never)]
    fn drop(&mut self) {
        // Each map is taken out, leaving an empty one that holds no memory
        // (what `ManuallyDrop` then forgets), and dropped here.
        drop(core::mem::take(&mut *self.by_name));
        drop(core::mem::take(&mut *self.by_slot));
    }
}

/// Not generic and not inlined: a context's generic code (reclamation,
/// `Step::entity_named`) calls these, and their hashing and probing is
/// compiled once here, not in every crate that declares a context.
impl Names {
    /// The entity holding `name` (perhaps killed, not yet reclaimed).
    pub(crate) fn get(&self, name: &str) -> Option<Entity> {
        self.by_name.get(name).copied()
    }

    /// The name of the entity of `slot`, if it holds one.
    pub(crate) fn name_of(&self, slot: u32) -> Option<&str> {
        self.by_slot.get(&slot).map(|n| &**n)
    }

    /// Gives `name` to the live entity `e`, releasing the name `e` held
    /// before; `Err(Taken)` when another entity holds it.
    pub(crate) fn set(&mut self, e: Entity, name: &str) -> Result<(), NameError> {
        match self.by_name.get(name) {
            Some(&holder) if holder == e => return Ok(()),
            Some(&holder) => return Err(NameError::Taken(holder)),
            None => {}
        }
        self.release(e.slot);
        let name: Box<str> = name.into();
        self.by_name.insert(name.clone(), e);
        self.by_slot.insert(e.slot, name);
        Ok(())
    }

    /// Releases the name of the entity of `slot`, returning it.
    pub(crate) fn release(&mut self, slot: u32) -> Option<Box<str>> {
        let name = self.by_slot.remove(&slot)?;
        self.by_name.remove(&name);
        Some(name)
    }

    /// How many entities hold a name.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_name.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(slot: u32, generation: u32) -> Entity {
        Entity { slot, generation }
    }

    #[test]
    fn a_name_is_held_once_and_released_by_slot() {
        let mut n = Names::default();
        assert_eq!(n.set(e(0, 0), "player"), Ok(()));
        assert_eq!(n.set(e(0, 0), "player"), Ok(()), "naming again is harmless");
        assert_eq!(n.set(e(1, 0), "player"), Err(NameError::Taken(e(0, 0))));
        assert_eq!(n.get("player"), Some(e(0, 0)));
        assert_eq!(n.set(e(0, 0), "hero"), Ok(()), "renaming releases the old name");
        assert_eq!(n.get("player"), None);
        assert_eq!(n.name_of(0), Some("hero"));
        assert_eq!(n.set(e(1, 0), "player"), Ok(()));
        assert_eq!(n.release(0).as_deref(), Some("hero"));
        assert_eq!((n.get("hero"), n.name_of(0), n.len()), (None, None, 1));
        assert_eq!(n.release(0), None);
        assert_eq!(n.set(e(0, 1), "hero"), Ok(()), "the slot's next entity may take it");
    }
}
