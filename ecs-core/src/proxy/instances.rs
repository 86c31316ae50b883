//! Instances of `many` components: adding, removing and reading them on the
//! step proxy (through [`Defer`]), deferred from systems (through
//! [`View`]), and walked one by one in systems ([`Data::for_each_instance`]).

use crate::decl::{Component, ContextDecl, SystemOf};
use crate::error::NoSuchEntity;
use crate::handle::{Entity, EntityId};
use crate::many::{InstanceKey, Many};
use crate::many_query::{DeclaredMany, InstanceQuery};
use crate::proxy::data::{ValidQuery, View};
use crate::proxy::{Data, Defer};
use crate::query::{Query, QueryCode};
use crate::storage::{Column, ManyColumn, ManyMut, ManyRef, Storage};

/// A component declared `many` in context `Cx`: the instance type `T` of
/// `T: many;` (whose component is `Many<T>`). Implemented for every such
/// type; the step proxy's instance methods ask for it.
///
/// ```
/// use ecs::traits::{ContextDecl, ManyComponent};
/// use ecs::{Defer, Entity};
/// # #[derive(Clone)] pub struct Emitter(pub u32);
/// # ecs::declare_context! {
/// #     pub context World {
/// #         components { Emitter: many; }
/// #         systems {}
/// #     }
/// # }
///
/// /// How many instances of `T` the entity holds, in any context.
/// fn count<Cx: ContextDecl, T: ManyComponent<Cx>>(p: &Defer<'_, Cx>, e: Entity) -> usize {
///     p.instances::<T>(e).map_or(0, |all| all.len())
/// }
///
/// let mut world = World::new();
/// world.step(|p| {
///     let e = p.create().unwrap();
///     assert_eq!(count::<_, Emitter>(p, e), 0);
///     p.add_instance(e, Emitter(1)).unwrap();
///     assert_eq!(count::<_, Emitter>(p, e), 1);
/// });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component declared `many` in context `{Cx}`",
    note = "declare `{Self}: many;` in the `components` block of `{Cx}`'s `declare_context!`"
)]
pub trait ManyComponent<Cx: ContextDecl>: Sized + Send + Sync + 'static {
    /// The column of first instances (`many(...)`'s strategy).
    type Inner: Column<Item = Many<Self>> + Storage;
    /// The column of `Many<Self>`.
    // Hidden: called only by the proxies' instance methods.
    #[doc(hidden)]
    fn many_column(storages: &Cx::Storages) -> &ManyColumn<Self, Self::Inner>;
    /// The column of `Many<Self>`, mutably.
    // Hidden: called only by the proxies' instance methods.
    #[doc(hidden)]
    fn many_column_mut(storages: &mut Cx::Storages) -> &mut ManyColumn<Self, Self::Inner>;
    /// The id of `e` when it is alive and holds `Many<Self>`.
    // Hidden: called only by the proxies' instance methods.
    #[doc(hidden)]
    fn holder(p: &Defer<'_, Cx>, e: Entity) -> Option<EntityId>;
    /// Gives `e` its first instance (see [`Defer::add`]).
    ///
    /// # Errors
    /// [`NoSuchEntity`] when `e` is dead.
    // Hidden: called only by the proxies' instance methods.
    #[doc(hidden)]
    fn add_first(p: &mut Defer<'_, Cx>, e: Entity, value: Self) -> Result<(), NoSuchEntity>;
    /// Removes `Many<Self>` from `e`, returning the first instance.
    // Hidden: called only by the proxies' instance methods.
    #[doc(hidden)]
    fn remove_all(p: &mut Defer<'_, Cx>, e: Entity) -> Option<Self>;
}

impl<Cx, T, K> ManyComponent<Cx> for T
where
    Cx: ContextDecl,
    T: DeclaredMany<Cx, Component = Many<T>, Inner = K>,
    <T as DeclaredMany<Cx>>::Component: Component<Cx, Column = ManyColumn<T, K>>,
    K: Column<Item = Many<T>> + Storage,
{
    type Inner = K;
    #[inline]
    fn many_column(storages: &Cx::Storages) -> &ManyColumn<T, K> {
        <Many<T> as Component<Cx>>::column(storages)
    }
    #[inline]
    fn many_column_mut(storages: &mut Cx::Storages) -> &mut ManyColumn<T, K> {
        <Many<T> as Component<Cx>>::column_mut(storages)
    }
    #[inline]
    fn holder(p: &Defer<'_, Cx>, e: Entity) -> Option<EntityId> {
        p.holder::<Many<T>>(e)
    }
    fn add_first(p: &mut Defer<'_, Cx>, e: Entity, value: T) -> Result<(), NoSuchEntity> {
        // What `add` returns is a value no entity claimed (see `Defer::add`).
        p.add(e, Many::new(value)).map(drop)
    }
    fn remove_all(p: &mut Defer<'_, Cx>, e: Entity) -> Option<T> {
        p.remove::<Many<T>>(e).map(Many::into_inner)
    }
}

impl<Cx: ContextDecl> Defer<'_, Cx> {
    /// Adds an instance of the `many` component `T` to the entity and
    /// returns its key. The entity's first instance gives it the component
    /// (systems over `Many<T>` process it from their next run); later ones
    /// join the others.
    ///
    /// ```
    /// # #[derive(Clone, Debug, PartialEq)] pub struct Emitter(pub &'static str);
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
    ///     let all = p.instances::<Emitter>(explosion).unwrap();
    ///     assert_eq!(all.to_vec(), [Emitter("smoke"), Emitter("sparks")]);
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
    pub fn add_instance<T: ManyComponent<Cx>>(&mut self, e: Entity, value: T) -> Result<InstanceKey, NoSuchEntity> {
        if let Some(mut all) = self.instances_mut::<T>(e) {
            return Ok(all.push(value));
        }
        T::add_first(self, e, value)?;
        let first = self.instances::<T>(e).and_then(|all| all.key(0));
        Ok(first.expect("the entity holds the instance just added"))
    }

    /// Removes the instance named `key` from the entity and returns it;
    /// `None` when the entity is dead or does not hold that instance.
    /// Removing the entity's last instance removes the component: systems
    /// over `Many<T>` stop processing the entity from their next run.
    ///
    /// # Examples
    /// ```
    /// # #[derive(Debug, PartialEq)] pub struct Emitter(pub u8);
    /// # ecs::declare_context! {
    /// #     pub context World { components { Emitter: many; } systems {} }
    /// # }
    /// # let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.create().unwrap();
    ///     let smoke = p.add_instance(e, Emitter(1)).unwrap();
    ///     assert_eq!(p.remove_instance(e, smoke), Some(Emitter(1)));
    ///     assert_eq!(p.remove_instance::<Emitter>(e, smoke), None); // gone
    /// });
    /// ```
    pub fn remove_instance<T: ManyComponent<Cx>>(&mut self, e: Entity, key: InstanceKey) -> Option<T> {
        let mut all = self.instances_mut::<T>(e)?;
        if all.len() > 1 {
            return all.remove(key);
        }
        if all.key(0) != Some(key) {
            return None;
        }
        T::remove_all(self, e)
    }

    /// The entity's instances of `T`; `None` when it is dead or holds none.
    ///
    /// # Examples
    /// ```
    /// # #[derive(Debug, PartialEq)] pub struct Emitter(pub u8);
    /// # ecs::declare_context! {
    /// #     pub context World { components { Emitter: many; } systems {} }
    /// # }
    /// # let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.create().unwrap();
    ///     assert!(p.instances::<Emitter>(e).is_none());
    ///     p.add_instance(e, Emitter(1)).unwrap();
    ///     p.add_instance(e, Emitter(2)).unwrap();
    ///     assert!(p.instances::<Emitter>(e).unwrap().iter().eq([&Emitter(1), &Emitter(2)]));
    /// });
    /// ```
    pub fn instances<T: ManyComponent<Cx>>(&self, e: Entity) -> Option<ManyRef<'_, T>> {
        let id = T::holder(self, e)?;
        T::many_column(&self.cx.storages).instances(id)
    }

    /// The entity's instances of `T`, to change, add or remove some (not
    /// the last: see [`remove_instance`](Self::remove_instance)); `None`
    /// when it is dead or holds none.
    ///
    /// # Examples
    /// ```
    /// # #[derive(Debug, PartialEq)] pub struct Emitter(pub u8);
    /// # ecs::declare_context! {
    /// #     pub context World { components { Emitter: many; } systems {} }
    /// # }
    /// # let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.create().unwrap();
    ///     p.add_instance(e, Emitter(1)).unwrap();
    ///     p.instances_mut::<Emitter>(e).unwrap().push(Emitter(2));
    ///     assert_eq!(p.instances::<Emitter>(e).unwrap().len(), 2);
    /// });
    /// ```
    pub fn instances_mut<T: ManyComponent<Cx>>(&mut self, e: Entity) -> Option<ManyMut<'_, T>> {
        let id = T::holder(self, e)?;
        T::many_column_mut(&mut self.cx.storages).instances_mut(id)
    }

    /// The instance named `key` of the entity, if it is alive and holds it.
    ///
    /// # Examples
    /// ```
    /// # #[derive(Debug, PartialEq)] pub struct Emitter(pub u8);
    /// # ecs::declare_context! {
    /// #     pub context World { components { Emitter: many; } systems {} }
    /// # }
    /// # let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.create().unwrap();
    ///     let smoke = p.add_instance(e, Emitter(1)).unwrap();
    ///     assert_eq!(p.instance::<Emitter>(e, smoke), Some(&Emitter(1)));
    /// });
    /// ```
    pub fn instance<T: ManyComponent<Cx>>(&self, e: Entity, key: InstanceKey) -> Option<&T> {
        self.instances::<T>(e)?.get_by_key(key)
    }

    /// The instance named `key` of the entity, mutably, if it is alive and
    /// holds it.
    ///
    /// # Examples
    /// ```
    /// # #[derive(Debug, PartialEq)] pub struct Emitter(pub u8);
    /// # ecs::declare_context! {
    /// #     pub context World { components { Emitter: many; } systems {} }
    /// # }
    /// # let mut world = World::new();
    /// world.step(|p| {
    ///     let e = p.create().unwrap();
    ///     let smoke = p.add_instance(e, Emitter(1)).unwrap();
    ///     p.instance_mut::<Emitter>(e, smoke).unwrap().0 = 9;
    ///     assert_eq!(p.instance::<Emitter>(e, smoke), Some(&Emitter(9)));
    /// });
    /// ```
    pub fn instance_mut<T: ManyComponent<Cx>>(&mut self, e: Entity, key: InstanceKey) -> Option<&mut T> {
        let id = T::holder(self, e)?;
        let all = T::many_column_mut(&mut self.cx.storages).instances_mut(id)?;
        let i = all.index_of(key)?;
        // Reborrowed for the column's lifetime: `ManyMut::get_mut` borrows
        // the view, which ends here.
        let (first, rest) = all.split();
        match i {
            0 => Some(first),
            i => rest.get_mut(i - 1),
        }
    }
}

impl<Cx: ContextDecl, S: SystemOf<Cx>> View<'_, Cx, S> {
    /// Adds an instance of the `many` component `T` to the entity at the
    /// next refresh, as [`Defer::add_instance`] does (nothing happens if it
    /// is dead by then). A system that writes `Many<T>` may instead
    /// [`push`](ManyMut::push) onto one of its own entities at once
    /// (through [`InstancesMut`](crate::InstancesMut)).
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, System};
    /// # #[derive(Debug, PartialEq)] pub struct Emitter(pub u8);
    /// # pub struct Fuse;
    /// # #[derive(Default)]
    /// # pub struct Ignite;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Fuse: contiguous; Emitter: many; }
    /// #         systems { ignite: Ignite { read: [Fuse] } }
    /// #     }
    /// # }
    /// impl System<World> for Ignite {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         for &id in data.entities() {
    ///             data.add_instance_later(id, Emitter(1));
    ///         }
    ///     }
    /// }
    /// let mut world = World::new();
    /// let e = world.step(|p| p.spawn((Fuse,)).unwrap());
    /// world.step(|p| p.run_all(&()));
    /// world.step(|p| assert_eq!(p.instances::<Emitter>(e).map(|all| all.len()), Some(1)));
    /// ```
    pub fn add_instance_later<T: ManyComponent<Cx>>(&mut self, id: EntityId, value: T) {
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
    ///
    /// # Examples
    /// ```
    /// # use ecs::{Data, EntityId, Instances, System};
    /// # #[derive(Debug, PartialEq)] pub struct Emitter(pub u8);
    /// # #[derive(Default)]
    /// # pub struct Trim;
    /// # ecs::declare_context! {
    /// #     pub context World {
    /// #         components { Emitter: many; }
    /// #         systems { trim: Trim { read: [Emitter] } }
    /// #     }
    /// # }
    /// /// Keeps one instance per entity.
    /// impl System<World> for Trim {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         data.for_entities::<(EntityId, Instances<Emitter>)>(|view, (id, all)| {
    ///             for key in all.keys().skip(1) {
    ///                 view.remove_instance_later::<Emitter>(id, key);
    ///             }
    ///         });
    ///     }
    /// }
    /// let mut world = World::new();
    /// let e = world.step(|p| {
    ///     let e = p.create().unwrap();
    ///     for i in 0..3 {
    ///         p.add_instance(e, Emitter(i)).unwrap();
    ///     }
    ///     e
    /// });
    /// world.step(|p| p.run_all(&()));
    /// world.step(|p| assert_eq!(p.instances::<Emitter>(e).unwrap().len(), 1));
    /// ```
    pub fn remove_instance_later<T: ManyComponent<Cx>>(&mut self, id: EntityId, key: InstanceKey) {
        if let Some(e) = self.handle(id) {
            self.defer(move |p| drop(p.remove_instance::<T>(e, key)));
        }
    }
}

impl<'a, Cx: ContextDecl, S: SystemOf<Cx>> Data<'a, Cx, S> {
    /// Calls `f` with each instance of a `many` component, `I` (`&T` or
    /// `&mut T`), beside the item of query `Q` (`()` for none) of its
    /// entity, for this subtask's entities.
    ///
    /// First instances are walked as a `contiguous` column is (in blocks,
    /// vectorised, when `Q` reads a column and the ids are one run), then
    /// the other instances entity by entity: that second pass costs nothing
    /// when no entity holds several, and otherwise one load per 8 entities
    /// that hold one. So the order is every entity's first instance, then
    /// the others; an entity's `Q` item is fetched again for each of them.
    ///
    /// # Panics
    /// Fails to compile (constant evaluation) when `Q` borrows `Many<T>`,
    /// or one component twice with one borrow mutable.
    ///
    /// # Examples
    /// ```
    /// use ecs::{Data, Many, System};
    /// #[derive(Clone, Debug, PartialEq)]
    /// pub struct Emitter(pub f32);
    /// pub struct Pos(pub f32);
    /// #[derive(Default)]
    /// pub struct Emit;
    ///
    /// ecs::declare_context! {
    ///     pub context World {
    ///         components { Emitter: many; Pos: contiguous; }
    ///         systems { emit: Emit { read: [Pos], write: [Emitter] } }
    ///     }
    /// }
    ///
    /// impl System<World> for Emit {
    ///     fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
    ///         data.for_each_instance::<&mut Emitter, &Pos>(|e, p| e.0 += p.0);
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let e = world.step(|p| {
    ///     let e = p.spawn((Many::new(Emitter(0.0)), Pos(2.0))).unwrap();
    ///     p.add_instance(e, Emitter(10.0)).unwrap();
    ///     e
    /// });
    /// world.step(|p| {
    ///     p.run_all(&());
    ///     assert_eq!(p.instances::<Emitter>(e).unwrap().to_vec(), [Emitter(2.0), Emitter(12.0)]);
    /// });
    /// ```
    #[inline]
    pub fn for_each_instance<I: InstanceQuery<Cx, S>, Q: Query<Cx, S>>(
        &mut self,
        mut f: impl FnMut(I::Item<'_>, Q::Item<'_>),
    ) {
        let () = ValidQuery::<Cx, S, (I::First, Q)>::OK;
        {
            let f = &mut f;
            let g = move |_: &mut View<'a, Cx, S>, item: <(I::First, Q) as QueryCode<Cx>>::Item<'_>| {
                let (first, q) = item;
                f(I::from_first(first), q);
            };
            // As `for_each`: only the walk taken is compiled.
            if <(I::First, Q) as QueryCode<Cx>>::BLOCKS {
                self.walk::<(I::First, Q), true>(g);
            } else {
                self.walk::<(I::First, Q), false>(g);
            }
        }
        let (ids, run, storages) = self.subtask_ids();
        let state = I::fetch(storages);
        let q = Q::init(storages);
        // SAFETY: the column is `Many<T>`'s, shared-borrowed for `'a`; every
        // id of `ids` is one of this subtask's entities, which hold every
        // component of the signature, `Many<T>` among them (`I::First` is
        // within the system's rights), and that only this subtask touches
        // when the system writes it (`I::MUT`: `CanWrite`); otherwise
        // (`CanRead`) nothing writes it while the system runs. Each item
        // lives for one call of `f`, which cannot reach the column (it has
        // no view), and `Q` does not borrow `Many<T>` mutably nor at all
        // when `I` is mutable (`ValidQuery` for `(I::First, Q)`), its
        // items fetched as `walk` fetches them: the subtask's ids, within
        // the system's rights.
        unsafe {
            state.for_each_extra(ids, run, I::MUT, |id, ptr| f(I::from_ptr(ptr), Q::fetch(q, id)));
        }
    }
}
