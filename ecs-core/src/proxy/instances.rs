//! Adding and removing single instances of `many` components, on the step
//! proxy (through [`Defer`]) and deferred from systems (through [`View`]).

use crate::decl::{Component, ContextDecl, SystemOf};
use crate::error::NoSuchEntity;
use crate::handle::{Entity, EntityId};
use crate::many::{InstanceKey, Many};
use crate::proxy::{Defer, View};

impl<Cx: ContextDecl> Defer<'_, Cx> {
    /// Adds an instance of the `many` component `T` to the entity and
    /// returns its key. The entity's first instance gives it the component
    /// (systems over `T` process it from their next run); later ones join
    /// its set.
    ///
    /// ```
    /// # #[derive(Debug, PartialEq)] pub struct Emitter(pub &'static str);
    /// ecs::declare_context! {
    ///     pub context World {
    ///         settings { entities: fixed(16), threads: 1 }
    ///         components { Emitter: many; }
    ///         systems {}
    ///     }
    /// }
    /// use ecs::Many;
    ///
    /// let mut world = World::new();
    /// world.step(|p| {
    ///     let explosion = p.create().unwrap();
    ///     assert!(!p.has::<Many<Emitter>>(explosion));
    ///     let smoke = p.add_instance(explosion, Emitter("smoke")).unwrap();
    ///     let sparks = p.add_instance(explosion, Emitter("sparks")).unwrap();
    ///     assert_eq!(p.instances::<Emitter>(explosion), [Emitter("smoke"), Emitter("sparks")]);
    ///
    ///     assert_eq!(p.remove_instance(explosion, smoke), Some(Emitter("smoke")));
    ///     assert_eq!(p.instance::<Emitter>(explosion, sparks), Some(&Emitter("sparks")));
    ///     // The last instance takes the component with it.
    ///     assert_eq!(p.remove_instance(explosion, sparks), Some(Emitter("sparks")));
    ///     assert!(!p.has::<Many<Emitter>>(explosion));
    /// });
    /// ```
    ///
    /// # Errors
    /// [`NoSuchEntity`] when the entity is dead; `value` is dropped.
    pub fn add_instance<T>(&mut self, e: Entity, value: T) -> Result<InstanceKey, NoSuchEntity>
    where
        Many<T>: Component<Cx>,
    {
        if let Some(set) = self.get_mut::<Many<T>>(e) {
            return Ok(set.push(value));
        }
        let set = Many::new(value);
        let key = set.keys()[0];
        // The entity held no set (or is dead): `add` gives it this one; what
        // it returns is a set no entity claimed (see `Defer::add`).
        drop(self.add(e, set)?);
        Ok(key)
    }

    /// Removes the instance named `key` from the entity and returns it;
    /// `None` when the entity is dead or does not hold that instance.
    /// Removing the entity's last instance removes the component: systems
    /// over `T` stop processing the entity from their next run.
    pub fn remove_instance<T>(&mut self, e: Entity, key: InstanceKey) -> Option<T>
    where
        Many<T>: Component<Cx>,
    {
        let set = self.get_mut::<Many<T>>(e)?;
        if set.len() > 1 {
            return set.remove(key);
        }
        if set.keys()[0] != key {
            return None;
        }
        let mut last = self.remove::<Many<T>>(e)?.into_vec();
        last.pop()
    }

    /// The entity's instances of `T`: empty when it is dead or holds none.
    pub fn instances<T>(&self, e: Entity) -> &[T]
    where
        Many<T>: Component<Cx>,
    {
        self.get::<Many<T>>(e).map_or(&[], Many::as_slice)
    }

    /// The instance named `key` of the entity, if it is alive and holds it.
    pub fn instance<T>(&self, e: Entity, key: InstanceKey) -> Option<&T>
    where
        Many<T>: Component<Cx>,
    {
        self.get::<Many<T>>(e)?.get_by_key(key)
    }

    /// The instance named `key` of the entity, mutably, if it is alive and
    /// holds it.
    pub fn instance_mut<T>(&mut self, e: Entity, key: InstanceKey) -> Option<&mut T>
    where
        Many<T>: Component<Cx>,
    {
        self.get_mut::<Many<T>>(e)?.get_by_key_mut(key)
    }
}

impl<Cx: ContextDecl, S: SystemOf<Cx>> View<'_, Cx, S> {
    /// Adds an instance of the `many` component `T` to the entity at the
    /// next refresh, as [`Defer::add_instance`] does (nothing happens if it
    /// is dead by then). A system that writes `T` may instead
    /// [`push`](Many::push) onto the set of one of its own entities at once.
    pub fn add_instance_later<T: Send + 'static>(&mut self, id: EntityId, value: T)
    where
        Many<T>: Component<Cx>,
    {
        if let Some(e) = self.handle(id) {
            // A dead entity (killed meanwhile) takes no instance.
            self.defer(move |p| {
                let _ = p.add_instance(e, value);
            });
        }
    }

    /// Removes the instance named `key` from the entity at the next refresh,
    /// as [`Defer::remove_instance`] does: its last instance takes the
    /// component with it. The removed value is dropped.
    pub fn remove_instance_later<T: Send + 'static>(&mut self, id: EntityId, key: InstanceKey)
    where
        Many<T>: Component<Cx>,
    {
        if let Some(e) = self.handle(id) {
            self.defer(move |p| drop(p.remove_instance::<T>(e, key)));
        }
    }
}
