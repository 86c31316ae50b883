//! One live entity, its handle resolved once, for several component
//! changes in a row: [`Defer::entity_mut`].

use crate::bitset::ComponentSet;
use crate::decl::{Component, ContextDecl};
use crate::handle::{Entity, EntityId};
use crate::proxy::Defer;

/// A live entity with exclusive access to its components, from
/// [`Defer::entity_mut`] (or a [`Step`](crate::Step), which dereferences to
/// a `Defer`).
///
/// The handle was resolved once, when this was made: each change through it
/// skips the lookup of the handle's slot that [`Defer::add`] and
/// [`Defer::remove`] make, so "remove `C`, and if the entity had none, add
/// one" reads the entity's record once. The entity stays alive, at the same
/// id, while this exists: it borrows the proxy, so nothing can kill it or
/// refresh the context meanwhile.
///
/// # Examples
/// ```
/// # #[derive(Debug, PartialEq)]
/// # pub struct Position(pub f32);
/// # pub struct Frozen;
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Position: contiguous; Frozen: tag; }
/// #         systems {}
/// #     }
/// # }
/// let mut world = World::new();
/// world.step(|p| {
///     let e = p.spawn((Position(1.0),)).unwrap();
///     // Toggle `Frozen`: one resolution of `e` for the removal and the addition.
///     let mut m = p.entity_mut(e).unwrap();
///     if m.remove::<Frozen>().is_none() {
///         m.add(Frozen);
///     }
///     assert_eq!(m.add(Position(2.0)), Some(Position(1.0)));
///     assert!(m.has::<Frozen>() && m.has::<Position>());
///     assert_eq!(m.entity(), e);
///     p.kill(e);
///     assert!(p.entity_mut(e).is_none());
/// });
/// ```
pub struct EntityMut<'p, 'a, Cx: ContextDecl> {
    defer: &'p mut Defer<'a, Cx>,
    /// The entity's slot and id, resolved from `e` when this was made; valid
    /// while `defer` is borrowed (no kill, no refresh).
    at: (u32, EntityId),
    e: Entity,
}

impl<'a, Cx: ContextDecl> Defer<'a, Cx> {
    /// The live entity `e`, to change several of its components with one
    /// resolution of the handle (see [`EntityMut`]); `None` when it is dead.
    ///
    /// # Examples
    /// ```
    /// # #[derive(Debug, PartialEq)]
    /// # pub struct Health(pub u32);
    /// # ecs::declare_context! {
    /// #     pub context World { components { Health: contiguous; } systems {} }
    /// # }
    /// let mut world = World::new();
    /// let e = world.step(|p| p.spawn((Health(3),)).unwrap());
    /// world.step(|p| {
    ///     let mut m = p.entity_mut(e).unwrap();
    ///     let Health(h) = m.remove::<Health>().unwrap();
    ///     m.add(Health(h - 1));
    ///     assert_eq!(p.get::<Health>(e), Some(&Health(2)));
    ///     p.kill(e);
    ///     assert!(p.entity_mut(e).is_none());
    /// });
    /// ```
    #[inline]
    pub fn entity_mut(&mut self, e: Entity) -> Option<EntityMut<'_, 'a, Cx>> {
        let at = self.cx.entities().resolve(e)?;
        Some(EntityMut { defer: self, at, e })
    }
}

impl<Cx: ContextDecl> EntityMut<'_, '_, Cx> {
    /// The entity's handle.
    #[inline]
    pub fn entity(&self) -> Entity {
        self.e
    }

    /// The entity's id, valid until the next refresh.
    #[inline]
    pub fn id(&self) -> EntityId {
        self.at.1
    }

    /// Adds component `value`, returning the value it replaces (as
    /// [`Defer::add`], for an entity known to be alive).
    #[inline(always)]
    pub fn add<C: Component<Cx>>(&mut self, value: C) -> Option<C> {
        self.defer.cx.insert_component(self.at, value)
    }

    /// Removes component `C` and returns it; `None` when the entity does not
    /// hold `C` (as [`Defer::remove`]).
    #[inline]
    pub fn remove<C: Component<Cx>>(&mut self) -> Option<C> {
        self.defer.cx.remove_component::<C>(self.at)
    }

    /// Whether the entity holds component `C`.
    #[inline]
    pub fn has<C: Component<Cx>>(&self) -> bool {
        self.defer.cx.entities().bits(self.at.1).contains(C::INDEX)
    }
}
