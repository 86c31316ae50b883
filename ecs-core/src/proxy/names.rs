//! Named entities on the proxies: naming and looking up on the step proxy
//! (and in deferred functions), looking up read-only in systems.

use crate::decl::{ContextDecl, SystemOf};
use crate::handle::{Entity, EntityId};
use crate::liveness::Liveness;
use crate::names::{NameError, Names};
use crate::proxy::{Defer, View};

impl<Cx: ContextDecl> Defer<'_, Cx> {
    /// Gives the live entity `e` the name `name`, which no other entity may
    /// hold while it lives: [`named`](Self::named) then finds it in O(1)
    /// (one hash of the name). An entity holds at most one name: naming it
    /// again releases its old name. The name is released when the entity
    /// is reclaimed (at the refresh after its kill) or by
    /// [`unname`](Self::unname).
    ///
    /// Names cost nothing until the first entity is named: their maps are
    /// allocated then.
    ///
    /// # Errors
    /// Nothing changes and:
    /// - [`NameError::Taken`] with the holder when another entity holds
    ///   `name`, also when that entity is killed but not yet reclaimed (the
    ///   name is free after the step's refresh);
    /// - [`NameError::NoSuchEntity`] when `e` is not alive.
    ///
    /// # Example
    /// ```
    /// # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Health(pub u32);
    /// use ecs::NameError;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Health: contiguous; }
    ///         systems {}
    ///     }
    /// }
    /// let mut world = World::new();
    /// let player = world.step(|p| {
    ///     let player = p.spawn((Health(10),)).unwrap();
    ///     p.set_name(player, "player").unwrap();
    ///     let other = p.spawn((Health(3),)).unwrap();
    ///     assert_eq!(p.set_name(other, "player"), Err(NameError::Taken(player)));
    ///     player
    /// });
    /// world.step(|p| {
    ///     let e = p.named("player").unwrap();
    ///     assert_eq!(p.get::<Health>(e), Some(&Health(10)));
    ///     assert_eq!(p.name_of(e), Some("player"));
    ///     p.kill(e);
    ///     assert_eq!(p.named("player"), None, "a killed entity is not found");
    /// });
    /// // Reclaimed at that step's refresh: the name is free again.
    /// world.step(|p| {
    ///     let e = p.spawn((Health(1),)).unwrap();
    ///     assert_eq!(p.set_name(e, "player"), Ok(()));
    ///     assert_ne!(e, player);
    /// });
    /// ```
    pub fn set_name(&mut self, e: Entity, name: &str) -> Result<(), NameError> {
        if !self.cx.entities.is_alive(e) {
            return Err(NameError::NoSuchEntity(e));
        }
        self.cx.names.get_or_insert_with(Box::<Names>::default).set(e, name)
    }

    /// Releases the name of the live entity `e`, returning it (`None` when
    /// `e` is dead or holds no name).
    ///
    /// # Examples
    /// ```
    /// # ecs::declare_context! {
    /// #     pub context World { components {} systems {} }
    /// # }
    /// # let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.create().unwrap();
    ///     p.set_name(e, "player").unwrap();
    ///     assert_eq!(p.unname(e).as_deref(), Some("player"));
    ///     assert_eq!(p.named("player"), None);
    /// });
    /// ```
    pub fn unname(&mut self, e: Entity) -> Option<Box<str>> {
        if !self.cx.entities.is_alive(e) {
            return None;
        }
        self.cx.names.as_mut()?.release(e.slot)
    }

    /// The live entity named `name`: `None` when no entity holds it or its
    /// holder is killed.
    ///
    /// # Examples
    /// ```
    /// # ecs::declare_context! {
    /// #     pub context World { components {} systems {} }
    /// # }
    /// # let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.create().unwrap();
    ///     p.set_name(e, "player").unwrap();
    ///     assert_eq!(p.named("player"), Some(e));
    ///     assert_eq!(p.named("camera"), None);
    /// });
    /// ```
    #[inline]
    pub fn named(&self, name: &str) -> Option<Entity> {
        self.cx.named(name)
    }

    /// The name of the live entity `e`, if it holds one.
    ///
    /// # Examples
    /// ```
    /// # ecs::declare_context! {
    /// #     pub context World { components {} systems {} }
    /// # }
    /// # let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.create().unwrap();
    ///     assert_eq!(p.name_of(e), None);
    ///     p.set_name(e, "player").unwrap();
    ///     assert_eq!(p.name_of(e), Some("player"));
    /// });
    /// ```
    #[inline]
    pub fn name_of(&self, e: Entity) -> Option<&str> {
        if !self.cx.entities.is_alive(e) {
            return None;
        }
        self.cx.names.as_ref()?.name_of(e.slot)
    }

    /// A handle that checks from any thread, without locks, whether an
    /// entity is alive: see [`Liveness`] and
    /// [`Context::liveness`](crate::Context::liveness).
    ///
    /// # Examples
    /// ```
    /// # ecs::declare_context! {
    /// #     pub context World { components {} systems {} }
    /// # }
    /// # let mut world = World::new();
    /// let (e, alive) = world.step(|p| {
    ///     let e = p.create().unwrap();
    ///     (e, p.liveness())
    /// });
    /// assert!(alive.is_alive(e));
    /// world.step(|p| p.kill(e));
    /// assert!(!alive.is_alive(e));
    /// ```
    pub fn liveness(&mut self) -> Liveness {
        self.cx.liveness()
    }
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> View<'a, Cx, S> {
    /// The id of the live entity named `name` (see
    /// [`Defer::set_name`]), whichever components it holds: read-only, in
    /// O(1). Systems may run in parallel: names change only outside
    /// systems, so every system of a step sees the same names.
    ///
    /// # Example
    /// ```
    /// # #[derive(Clone, Copy, Debug, PartialEq)] pub struct Position(pub f32);
    /// use ecs::{Data, System};
    /// #[derive(Default)]
    /// pub struct Follow;
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Position: contiguous; }
    ///         systems { follow: Follow { write: [Position] } }
    ///     }
    /// }
    /// impl System<World> for Follow {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         let Some(target) = data.named("player") else { return };
    ///         let goal = data.read::<Position>(target).unwrap().0;
    ///         data.for_each::<&mut Position>(|p| p.0 += (goal - p.0) / 2.0);
    ///     }
    /// }
    /// let mut world = World::new();
    /// let follower = world.step(|p| {
    ///     let player = p.spawn((Position(8.0),)).unwrap();
    ///     p.set_name(player, "player").unwrap();
    ///     p.spawn((Position(0.0),)).unwrap()
    /// });
    /// world.step(|p| p.run_all(&()));
    /// assert_eq!(world.step(|p| *p.get::<Position>(follower).unwrap()), Position(4.0));
    /// ```
    #[inline]
    pub fn named(&self, name: &str) -> Option<EntityId> {
        let e = self.part.cx.names.as_ref()?.get(name)?;
        self.part.cx.entities().id_of(e)
    }

    /// The name of the live entity with id `id`, if it holds one.
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, System};
    /// # pub struct Position(pub f32);
    /// # #[derive(Default)]
    /// # pub struct Roll;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems { roll: Roll { read: [Position], output: Vec<String> } }
    /// #     }
    /// # }
    /// impl System<World> for Roll {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         for &id in data.entities() {
    ///             let name = data.name_of(id).unwrap_or("?").to_string();
    ///             data.output().push(name);
    ///         }
    ///     }
    /// }
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.spawn((Position(0.0),)).unwrap();
    ///     p.set_name(e, "player").unwrap();
    ///     p.spawn((Position(1.0),)).unwrap();
    ///     p.run_all(&());
    ///     assert_eq!(p.outputs::<Roll>()[0], ["player", "?"]);
    /// });
    /// ```
    #[inline]
    pub fn name_of(&self, id: EntityId) -> Option<&'a str> {
        let cx = self.part.cx;
        let e = cx.entities().handle(id)?;
        cx.names.as_ref()?.name_of(e.slot)
    }
}
