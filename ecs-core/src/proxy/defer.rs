//! Entity and component operations with exclusive access: the defer proxy,
//! which the step proxy dereferences to.

use crate::bitset::ComponentSet;
use crate::context::Context;
use crate::decl::{Component, ContextDecl};
use crate::error::{ContextFull, NoSuchEntity};
use crate::fn_queue::Arg;
use crate::handle::{Entity, EntityId};
use crate::pending::DeferArg;
use crate::resource::Resource;
use crate::storage::Column;

/// Exclusive access to a context's entities and components: given to
/// deferred functions at refresh, and what a [`Step`](crate::Step) proxy
/// dereferences to.
///
/// Changes to an entity's components take effect at once; systems see them
/// from the next time they run (entities changed since the last matching
/// are matched to systems before systems run).
///
/// A system cannot add components (other systems may be reading them), so
/// it defers the change, which runs at the step's refresh:
///
/// ```
/// use ecs::{Data, Defer, EntityId, System};
///
/// pub struct Age(pub u32);
/// pub struct Elder;
/// #[derive(Default)]
/// pub struct Grow;
///
/// ecs::declare_context! {
///     pub context Village {
///         components { Age: contiguous; Elder: tag; }
///         systems { grow: Grow { read: [Age] } }
///     }
/// }
///
/// impl System<Village> for Grow {
///     fn process(&self, data: &mut Data<'_, Village, Self>, _: &()) {
///         let mut old = Vec::new();
///         data.for_each::<(EntityId, &Age)>(|(id, age)| {
///             if age.0 >= 3 {
///                 old.push(id);
///             }
///         });
///         for id in old {
///             let e = data.handle(id).unwrap();
///             data.defer(move |d: &mut Defer<'_, Village>| {
///                 d.add(e, Elder).unwrap();
///             });
///         }
///     }
/// }
///
/// let mut village = Village::new();
/// let (young, old) = village.step(|p| (p.spawn((Age(1),)).unwrap(), p.spawn((Age(5),)).unwrap()));
/// village.step(|p| p.run_all(&()));
/// village.step(|p| {
///     assert!(!p.has::<Elder>(young));
///     assert!(p.has::<Elder>(old));
/// });
/// ```
pub struct Defer<'a, Cx: ContextDecl> {
    pub(crate) cx: &'a mut Context<Cx>,
}

/// Deferred functions take a `Defer` of any lifetime.
impl<Cx: ContextDecl> Arg for DeferArg<Cx> {
    type Of<'a> = Defer<'a, Cx>;
}

impl<'a, Cx: ContextDecl> Defer<'a, Cx> {
    /// Resource `R`: every resource is at hand with exclusive access.
    ///
    /// # Examples
    /// ```
    /// # #[derive(Default)] pub struct Score(pub u32);
    /// # ecs::declare_context! {
    /// #     pub context World { components {} resources { Score } systems {} }
    /// # }
    /// # let mut world = World::new();
    /// world.resource_mut::<Score>().0 = 3;
    /// world.step(|p| assert_eq!(p.resource::<Score>().0, 3));
    /// ```
    pub fn resource<R: Resource<Cx>>(&self) -> &R {
        self.cx.resource::<R>()
    }

    /// Resource `R`, mutably.
    ///
    /// # Examples
    /// ```
    /// # #[derive(Default)] pub struct Score(pub u32);
    /// # ecs::declare_context! {
    /// #     pub context World { components {} resources { Score } systems {} }
    /// # }
    /// # let mut world = World::new();
    /// world.step(|p| p.resource_mut::<Score>().0 += 2);
    /// assert_eq!(world.resource::<Score>().0, 2);
    /// ```
    pub fn resource_mut<R: Resource<Cx>>(&mut self) -> &mut R {
        self.cx.resource_mut::<R>()
    }

    /// Creates an entity with no components.
    ///
    /// # Errors
    /// [`ContextFull`] when a fixed-size context holds its limit of entities
    /// (alive or killed but not yet reclaimed); nothing changes.
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
    ///     let e = p.create().unwrap();
    ///     assert!(p.is_alive(e));
    ///     assert!(!p.has::<Position>(e));
    ///     // Components can be added afterwards.
    ///     p.add(e, Position(1.0)).unwrap();
    ///     assert_eq!(p.get::<Position>(e), Some(&Position(1.0)));
    /// });
    /// ```
    pub fn create(&mut self) -> Result<Entity, ContextFull> {
        self.cx.create_entity()
    }

    /// Kills the entity: it reads dead at once, and systems stop seeing it:
    /// no system run after this call iterates it (a later
    /// [`run_all`](crate::Step::run_all) of the same step included, also
    /// split systems' subtasks; [`Context::subscribers`](crate::Context::subscribers)
    /// no longer lists it). Its components are dropped at the next refresh.
    /// Returns whether it was alive; killing a dead entity is harmless.
    ///
    /// A system's [`data.kill(id)`](crate::View::kill) is a request instead: it
    /// takes effect at the step's refresh, so the systems that run before
    /// then (later in the same `run_all`, or in another `run_all` of that
    /// step) still see the entity alive.
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
    ///     let e = p.spawn((Position(0.0),)).unwrap();
    ///     assert!(p.kill(e));
    ///     assert!(!p.is_alive(e));
    ///     assert_eq!(p.get::<Position>(e), None);
    ///     assert!(!p.kill(e)); // already dead: harmless
    /// });
    /// assert!(world.is_empty());
    /// ```
    #[inline]
    pub fn kill(&mut self, e: Entity) -> bool {
        self.cx.entities.kill(e)
    }

    /// Whether the entity is alive.
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
    /// let e = world.step(|p| p.spawn((Position(0.0),)).unwrap());
    /// world.step(|p| {
    ///     assert!(p.is_alive(e));
    ///     p.kill(e);
    ///     assert!(!p.is_alive(e));
    /// });
    /// // Reclaimed: the handle stays dead, even once its slot is reused.
    /// world.step(|p| {
    ///     let f = p.spawn((Position(1.0),)).unwrap();
    ///     assert!(p.is_alive(f) && !p.is_alive(e));
    /// });
    /// ```
    #[inline]
    pub fn is_alive(&self, e: Entity) -> bool {
        self.cx.entities.is_alive(e)
    }

    /// The handle of the live entity with this id.
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
    ///     let a = p.spawn((Position(0.0),)).unwrap();
    ///     let b = p.spawn((Position(1.0),)).unwrap();
    ///     let id = p.id_of(b).unwrap();
    ///     assert_eq!(p.handle(id), Some(b));
    ///     p.kill(a);
    ///     assert_eq!(p.id_of(a), None);
    /// });
    /// // The refresh packed ids: `b` now has `a`'s old id.
    /// world.step(|p| {
    ///     let b = p.handle(ecs::EntityId::from_bits(0)).unwrap();
    ///     assert_eq!(p.get::<Position>(b), Some(&Position(1.0)));
    /// });
    /// ```
    #[inline]
    pub fn handle(&self, id: EntityId) -> Option<Entity> {
        self.cx.entities.handle(id)
    }

    /// The id of a live entity, valid until the next refresh (the id systems
    /// and [`Context::subscribers`] see).
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
    /// let (a, b) = world.step(|p| (p.spawn((Position(0.0),)).unwrap(), p.spawn((Position(1.0),)).unwrap()));
    /// world.step(|p| {
    ///     assert_eq!(p.id_of(a).map(|id| id.index()), Some(0));
    ///     assert_eq!(p.id_of(b).map(|id| id.index()), Some(1));
    ///     p.kill(a);
    ///     assert_eq!(p.id_of(a), None);
    /// });
    /// // The refresh moved `b` into the id `a` left: ids are for one step only.
    /// world.step(|p| assert_eq!(p.id_of(b).map(|id| id.index()), Some(0)));
    /// ```
    #[inline]
    pub fn id_of(&self, e: Entity) -> Option<EntityId> {
        self.cx.entities.id_of(e)
    }

    /// Number of live entities.
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
    ///     assert!(p.is_empty());
    ///     let e = p.spawn((Position(0.0),)).unwrap();
    ///     p.create().unwrap();
    ///     assert_eq!(p.len(), 2);
    ///     p.kill(e);
    ///     assert_eq!(p.len(), 1);
    /// });
    /// ```
    pub fn len(&self) -> usize {
        self.cx.entities.alive_count()
    }

    /// Whether no entity is alive.
    ///
    /// # Examples
    /// ```
    /// # ecs::declare_context! {
    /// #     pub context World { components {} systems {} }
    /// # }
    /// # let mut world = World::new();
    /// world.step(|p| {
    ///     assert!(p.is_empty());
    ///     p.create().unwrap();
    ///     assert!(!p.is_empty());
    /// });
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds component `value` to the entity, returning the value it replaces.
    ///
    /// # Errors
    /// [`NoSuchEntity`] when the entity is dead; `value` is dropped.
    ///
    /// # Examples
    /// ```
    /// use ecs::NoSuchEntity;
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
    ///     let e = p.create().unwrap();
    ///     assert_eq!(p.add(e, Position(1.0)), Ok(None));
    ///     assert_eq!(p.add(e, Position(2.0)), Ok(Some(Position(1.0))));
    ///     assert_eq!(p.add(e, Frozen).map(|old| old.is_some()), Ok(false));
    ///     assert!(p.has::<Frozen>(e));
    ///     p.kill(e);
    ///     assert_eq!(p.add(e, Position(3.0)), Err(NoSuchEntity(e)));
    /// });
    /// ```
    // Always inlined: out of line, the value travels through the stack,
    // and a caller that builds it field by field stalls on the callee's
    // wide load (store forwarding fails); `fragmented_churn` spent a third
    // of its time in the call (perf), 15 instructions per add (callgrind).
    #[inline(always)]
    pub fn add<C: Component<Cx>>(&mut self, e: Entity, value: C) -> Result<Option<C>, NoSuchEntity> {
        #[cfg(not(debug_assertions))]
        match self.cx.entities.resolve(e) {
            Some(at) => Ok(self.cx.insert_component(at, value)),
            None => Err(NoSuchEntity(e)),
        }
        // A debug build gives the value up to `Context::add_raw`, compiled
        // once per context; per component type, this shell and
        // `insert_at` (see `add_raw`).
        #[cfg(debug_assertions)]
        {
            let mut value = core::mem::ManuallyDrop::new(value);
            let mut old: Option<C> = None;
            // SAFETY: `value` is an initialised `C` (`ManuallyDrop` is
            // `repr(transparent)`), never used again here: `add_raw` moves
            // it out or drops it (`Drops::<C>::RUN` is `C`'s); `old` is an
            // `Option<C>` holding nothing to drop, and `insert_at::<Cx, C>`
            // stores a `C` in `C`'s column, the column of `C::INDEX`.
            let held = unsafe {
                self.cx.add_raw(
                    e,
                    C::INDEX,
                    &raw mut value as *mut u8,
                    &raw mut old as *mut u8,
                    crate::context::insert_at::<Cx, C>,
                    crate::storage::drops::Drops::<C>::RUN,
                )
            };
            match held {
                Some(true) => Ok(old),
                // A value the entity did not hold is one a panicking storage
                // or drop left unclaimed: not the entity's to return; `old`
                // is dropped on return, after its bit is set.
                Some(false) => Ok(None),
                None => Err(NoSuchEntity(e)),
            }
        }
    }

    /// Removes component `C` from the entity and returns it; `None` when the
    /// entity is dead or does not hold `C`.
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
    ///     let e = p.spawn((Position(1.0), Frozen)).unwrap();
    ///     assert_eq!(p.remove::<Position>(e), Some(Position(1.0)));
    ///     assert_eq!(p.remove::<Position>(e), None);
    ///     assert!(!p.has::<Position>(e) && p.has::<Frozen>(e));
    ///     p.kill(e);
    ///     assert!(p.remove::<Frozen>(e).is_none());
    /// });
    /// ```
    #[inline]
    pub fn remove<C: Component<Cx>>(&mut self, e: Entity) -> Option<C> {
        let at = self.cx.entities.resolve(e)?;
        self.cx.remove_component::<C>(at)
    }

    /// The id of the live entity `e` if it holds `C` by its bitset, which
    /// is what systems are matched by (a column may hold a value no entity
    /// claims, left by a spawn that panicked: that is not the entity's).
    #[inline]
    pub(super) fn holder<C: Component<Cx>>(&self, e: Entity) -> Option<EntityId> {
        let id = self.cx.entities.id_of(e)?;
        self.cx.entities.bits(id).contains(C::INDEX).then_some(id)
    }

    /// Whether the live entity holds component `C`.
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
    ///     let e = p.spawn((Frozen,)).unwrap();
    ///     assert!(p.has::<Frozen>(e));
    ///     assert!(!p.has::<Position>(e));
    ///     p.kill(e);
    ///     assert!(!p.has::<Frozen>(e));
    /// });
    /// ```
    #[inline]
    pub fn has<C: Component<Cx>>(&self, e: Entity) -> bool {
        self.holder::<C>(e).is_some()
    }

    /// Component `C` of the entity; `None` when it is dead or lacks `C`.
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
    ///     p.get_mut::<Position>(e).unwrap().0 += 1.0;
    ///     assert_eq!(p.get::<Position>(e), Some(&Position(2.0)));
    ///     assert!(p.get::<Frozen>(e).is_none());
    ///     p.kill(e);
    ///     assert!(p.get_mut::<Position>(e).is_none());
    /// });
    /// ```
    #[inline]
    pub fn get<C: Component<Cx>>(&self, e: Entity) -> Option<&C> {
        let id = self.holder::<C>(e)?;
        C::column(&self.cx.storages).get(id)
    }

    /// Component `C` of the entity, mutably; `None` when it is dead or lacks
    /// `C`.
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
    /// let e = world.step(|p| p.spawn((Position(1.0),)).unwrap());
    /// world.step(|p| {
    ///     if let Some(pos) = p.get_mut::<Position>(e) {
    ///         pos.0 = -pos.0;
    ///     }
    ///     assert_eq!(p.get::<Position>(e), Some(&Position(-1.0)));
    ///     assert!(p.get_mut::<Frozen>(e).is_none());
    /// });
    /// world.step(|p| p.kill(e));
    /// world.step(|p| assert!(p.get_mut::<Position>(e).is_none()));
    /// ```
    #[inline]
    pub fn get_mut<C: Component<Cx>>(&mut self, e: Entity) -> Option<&mut C> {
        let id = self.holder::<C>(e)?;
        C::column_mut(&mut self.cx.storages).get_mut(id)
    }

    /// Component `C` of an entity known to hold it.
    ///
    /// # Panics
    /// When the entity is dead or does not hold `C`; the message names both.
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
    ///     p.component_mut::<Position>(e).0 *= 3.0;
    ///     assert_eq!(p.component::<Position>(e), &Position(3.0));
    /// });
    /// ```
    ///
    /// Asking for a component the entity lacks panics:
    ///
    /// ```should_panic
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
    ///     p.component::<Frozen>(e);
    /// });
    /// ```
    #[track_caller]
    pub fn component<C: Component<Cx>>(&self, e: Entity) -> &C {
        match self.get::<C>(e) {
            Some(c) => c,
            None => missing::<Cx, C>(self.cx, e),
        }
    }

    /// Component `C` of an entity known to hold it, mutably.
    ///
    /// # Panics
    /// When the entity is dead or does not hold `C`; the message names both.
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
    /// let e = world.step(|p| p.spawn((Position(2.0),)).unwrap());
    /// world.step(|p| {
    ///     let pos = p.component_mut::<Position>(e);
    ///     pos.0 += 0.5;
    ///     assert_eq!(p.get::<Position>(e), Some(&Position(2.5)));
    /// });
    /// ```
    ///
    /// A dead entity panics:
    ///
    /// ```should_panic
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
    /// let e = world.step(|p| p.spawn((Position(2.0),)).unwrap());
    /// world.step(|p| {
    ///     p.kill(e);
    ///     p.component_mut::<Position>(e);
    /// });
    /// ```
    #[track_caller]
    pub fn component_mut<C: Component<Cx>>(&mut self, e: Entity) -> &mut C {
        if self.get::<C>(e).is_none() {
            missing::<Cx, C>(self.cx, e)
        }
        self.get_mut::<C>(e).expect("checked above")
    }
}

#[cold]
#[track_caller]
fn missing<Cx: ContextDecl, C: Component<Cx>>(cx: &Context<Cx>, e: Entity) -> ! {
    if cx.entities.is_alive(e) {
        panic!(
            "entity {} (generation {}) of `{}` has no component `{}`",
            e.slot,
            e.generation,
            Cx::NAME,
            C::NAME
        )
    } else {
        panic!(
            "entity {} (generation {}) of `{}` is not alive (asked for component `{}`)",
            e.slot,
            e.generation,
            Cx::NAME,
            C::NAME
        )
    }
}
