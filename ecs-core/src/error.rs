//! Run-time errors and settings values.

use crate::handle::Entity;

/// How many entities a context can hold.
///
/// ```
/// use ecs::traits::ContextDecl;
/// use ecs::EntityLimit;
///
/// pub struct Position(pub f32);
///
/// ecs::declare_context! {
///     pub context World {
///         settings { entities: fixed(100) }
///         components { Position: contiguous; }
///         systems {}
///     }
/// }
///
/// let limit = <World as ContextDecl>::SETTINGS.entities;
/// assert_eq!(limit, EntityLimit::Fixed(100));
/// assert!(limit.is_fixed());
/// assert_eq!(limit.initial_capacity(), 100);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EntityLimit {
    /// At most this many entities alive or awaiting reclamation; storage for
    /// all of them is allocated when the context is created and never grows.
    Fixed(usize),
    /// Storage starts with room for `initial` entities and grows as needed.
    Dynamic {
        /// Room reserved when the context is created.
        initial: usize,
    },
}

impl EntityLimit {
    /// Room reserved when the context is created.
    ///
    /// # Examples
    /// ```
    /// use ecs::EntityLimit;
    ///
    /// assert_eq!(EntityLimit::Fixed(100).initial_capacity(), 100);
    /// assert_eq!(EntityLimit::Dynamic { initial: 16 }.initial_capacity(), 16);
    /// ```
    pub fn initial_capacity(self) -> usize {
        match self {
            EntityLimit::Fixed(n) => n,
            EntityLimit::Dynamic { initial } => initial,
        }
    }

    /// Whether storage is allocated once and never grows.
    ///
    /// # Examples
    /// ```
    /// use ecs::EntityLimit;
    ///
    /// assert!(EntityLimit::Fixed(100).is_fixed());
    /// assert!(!EntityLimit::Dynamic { initial: 16 }.is_fixed());
    /// ```
    pub fn is_fixed(self) -> bool {
        matches!(self, EntityLimit::Fixed(_))
    }
}

/// Creating an entity failed: the fixed-size context is full.
///
/// Nothing changed; entities killed and reclaimed by a refresh free room.
///
/// ```
/// use ecs::ContextFull;
///
/// pub struct Position(pub f32);
///
/// ecs::declare_context! {
///     pub context World {
///         settings { entities: fixed(1) }
///         components { Position: contiguous; }
///         systems {}
///     }
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     let first = p.spawn((Position(0.0),)).unwrap();
///     assert_eq!(p.spawn((Position(1.0),)), Err(ContextFull { limit: 1 }));
///     p.kill(first);
/// });
/// // The refresh reclaimed the first entity: there is room again.
/// assert!(world.step(|p| p.spawn((Position(1.0),))).is_ok());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ContextFull {
    /// The context's entity limit.
    pub limit: usize,
}

impl core::fmt::Display for ContextFull {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "the context is full: its fixed limit of {} entities is reached",
            self.limit
        )
    }
}

impl std::error::Error for ContextFull {}

/// An operation named an entity that is not alive.
///
/// The handle is stale (the entity was reclaimed, maybe its id reused) or the
/// entity was killed in this step.
///
/// ```
/// use ecs::NoSuchEntity;
///
/// #[derive(Debug, PartialEq)]
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
/// let e = world.step(|p| p.spawn((Position(0.0),)).unwrap());
/// world.step(|p| p.kill(e));
/// world.step(|p| assert_eq!(p.add(e, Position(1.0)), Err(NoSuchEntity(e))));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct NoSuchEntity(pub Entity);

impl core::fmt::Display for NoSuchEntity {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "entity {} (generation {}) is not alive",
            self.0.slot, self.0.generation
        )
    }
}

impl std::error::Error for NoSuchEntity {}

/// Restoring a snapshot failed; the context is unchanged.
#[cfg(feature = "serde")]
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestoreError {
    /// The snapshot has more entity slots than the context's fixed limit.
    TooManyEntities {
        /// Slots in the snapshot (live entities and free slots, which
        /// handles may name).
        slots: usize,
        /// The most slots the context can hold.
        limit: usize,
    },
    /// The snapshot is not one a context could have saved: a slot given
    /// two ids or out of range, a value for an id no entity has, runs of
    /// ids that are not pairs, overlap or are out of order, or a number of
    /// values other than the ids'.
    Malformed(String),
}

#[cfg(feature = "serde")]
impl core::fmt::Display for RestoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RestoreError::TooManyEntities { slots, limit } => write!(
                f,
                "the snapshot has {slots} entity slots, more than the context's limit of {limit}"
            ),
            RestoreError::Malformed(why) => write!(f, "malformed snapshot: {why}"),
        }
    }
}

#[cfg(feature = "serde")]
impl std::error::Error for RestoreError {}
