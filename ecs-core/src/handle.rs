//! Entity handles and ids: the two numbers an entity has (see the entity
//! table in `entity.rs` for how they are kept).

/// The index of an entity in the context's tables, valid until the next
/// refresh.
///
/// Systems see entities as ids: inside a system every id it iterates is alive.
/// An entity killed through [`Step`](crate::Step) or [`Defer`](crate::Defer)
/// is out of every system's set by the time systems next run (the same
/// step's later `run_all` included); a system's own
/// [`data.kill(id)`](crate::View::kill) only asks for the kill, which happens
/// at the step's refresh, so until then the entity is alive and every system
/// run before it (in that step) still iterates it.
/// A refresh that reclaims entities moves others into the ids they leave, so
/// to keep an entity across steps, keep its [`Entity`] handle instead.
///
/// ```
/// use ecs::{Data, EntityId, System};
///
/// pub struct Position(pub f32);
/// #[derive(Default)]
/// pub struct Far;
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position: contiguous; }
///         systems { far: Far { read: [Position], output: Vec<EntityId> } }
///     }
/// }
///
/// impl System<World> for Far {
///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
///         let mut far = Vec::new();
///         data.for_each::<(EntityId, &Position)>(|(id, p)| {
///             if p.0 > 10.0 {
///                 far.push(id);
///             }
///         });
///         data.output().extend(far);
///     }
/// }
///
/// let mut world = World::new();
/// let (_near, far) = world.step(|p| (p.spawn((Position(1.0),)).unwrap(), p.spawn((Position(20.0),)).unwrap()));
/// world.step(|p| {
///     p.run_all(&());
///     // Ids hold until the step's refresh: turn them into handles to keep them.
///     let ids = p.outputs::<Far>().concat();
///     let handles: Vec<_> = ids.iter().map(|&id| p.handle(id).unwrap()).collect();
///     assert_eq!(handles, [far]);
/// });
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct EntityId(pub(crate) u32);

impl EntityId {
    /// The id as an index into per-entity tables.
    ///
    /// # Examples
    /// ```
    /// use ecs::EntityId;
    /// # pub struct Position(pub f32);
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Position: contiguous; }
    /// #         systems {}
    /// #     }
    /// # }
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let a = p.spawn((Position(0.0),)).unwrap();
    ///     let b = p.spawn((Position(1.0),)).unwrap();
    ///     let (ia, ib) = (p.id_of(a).unwrap(), p.id_of(b).unwrap());
    ///     // Ids are packed: two live entities take indices 0 and 1.
    ///     let mut indices = [ia.index(), ib.index()];
    ///     indices.sort();
    ///     assert_eq!(indices, [0, 1]);
    ///     // The raw value round-trips.
    ///     assert_eq!(ib.to_bits() as usize, ib.index());
    ///     assert_eq!(EntityId::from_bits(ib.to_bits()), ib);
    ///     assert_eq!(p.handle(EntityId::from_bits(ib.to_bits())), Some(b));
    ///     // An id no live entity has finds nothing.
    ///     assert_eq!(p.handle(EntityId::from_bits(7)), None);
    /// });
    /// ```
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The raw id.
    ///
    /// # Examples
    /// ```
    /// use ecs::EntityId;
    ///
    /// assert_eq!(EntityId::from_bits(42).to_bits(), 42);
    /// assert_eq!(EntityId::from_bits(42).index(), 42);
    /// ```
    #[inline]
    pub fn to_bits(self) -> u32 {
        self.0
    }

    /// The id with this raw value. Any value is safe: operations on an id
    /// that holds no live entity find nothing.
    ///
    /// # Examples
    /// ```
    /// use ecs::EntityId;
    ///
    /// let id = EntityId::from_bits(3);
    /// assert_eq!(id.index(), 3);
    /// assert_eq!(EntityId::from_bits(id.to_bits()), id);
    /// ```
    #[inline]
    pub fn from_bits(bits: u32) -> Self {
        EntityId(bits)
    }
}

/// A handle to an entity: its slot and the generation the slot had when the
/// handle was made. It stays valid while the entity lives, whichever id the
/// entity has; once the entity is reclaimed the handle reads as dead, even
/// after the slot is reused.
///
/// ```
/// use ecs::Entity;
///
/// pub struct Position(pub f32);
///
/// ecs::declare_context! {
///     pub context World {
///         components { Position: contiguous; }
///         systems {}
///     }
/// }
///
/// let mut world = World::new();
/// let e: Entity = world.step(|p| p.spawn((Position(1.0),)).unwrap());
/// world.step(|p| assert!(p.kill(e)));
/// // Reclaimed at the step's refresh: the handle reads as dead from then on,
/// // even once a new entity takes its slot.
/// let f = world.step(|p| p.spawn((Position(2.0),)).unwrap());
/// assert_ne!(e, f);
/// assert!(!world.is_alive(e));
/// world.step(|p| assert!(p.get::<Position>(e).is_none()));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Entity {
    pub(crate) slot: u32,
    pub(crate) generation: u32,
}

impl Entity {
    /// The entity's slot: no two live entities share one, and an entity keeps
    /// its slot all its life. A reclaimed entity's slot is given to a later
    /// entity, the lowest free slot first. (To reach the entity's values
    /// inside a step, ask the step proxy for its [`EntityId`].)
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
    /// world.step(|p| p.kill(e));
    /// // The new entity reuses the freed slot, one generation later.
    /// let f = world.step(|p| p.spawn((Position(1.0),)).unwrap());
    /// assert_eq!(f.slot(), e.slot());
    /// assert_ne!(f.generation(), e.generation());
    /// assert!(world.is_alive(f) && !world.is_alive(e));
    /// ```
    #[inline]
    pub fn slot(self) -> u32 {
        self.slot
    }

    /// The generation of the slot this handle refers to.
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
    /// world.step(|p| p.kill(e));
    /// let f = world.step(|p| p.spawn((Position(1.0),)).unwrap());
    /// // Same slot, a later generation: `e` stays dead.
    /// assert_eq!(f.slot(), e.slot());
    /// assert_ne!(f.generation(), e.generation());
    /// ```
    #[inline]
    pub fn generation(self) -> u32 {
        self.generation
    }
}
