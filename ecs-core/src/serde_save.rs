//! Save and restore (the `serde` feature): a context's entities, components
//! and resources to any serde format and back.
//!
//! A declaration opts in with the setting `serde: all`; every component and
//! resource must then implement `Serialize` and `Deserialize` (a type that
//! does not is a compile error naming it). System states are not saved:
//! they are code's, not the world's.
//!
//! What is saved: the entity table (the generation of every slot handed
//! out, and the slot of every id), each component as a list of `(id,
//! value)` pairs, and each resource. Restoring rebuilds the table as it
//! was, so **handles stay valid across a save and a restore**: a handle
//! saved beside the context (or made before saving) names the same entity
//! in the restored context, a stale one stays stale, and entities created
//! later reuse the same free slots, with the same generations, as they
//! would have in the saved context. Ids are the same too.

use crate::context::Context;
use crate::decl::{Component, ContextDecl};
use crate::entity::EntityId;
use crate::storage::Column;
use core::fmt;
use core::marker::PhantomData;
use serde::de::DeserializeOwned;
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Serialize, Serializer};

/// The save and restore code of a context declared with `serde: all`,
/// implemented by `declare_context!`.
#[diagnostic::on_unimplemented(
    message = "context `{Self}` is not declared to save and restore",
    label = "`{Self}` has no `serde: all` setting",
    note = "add `serde: all` to the `settings` of `{Self}`'s `declare_context!` (every component and resource must then implement `Serialize` and `Deserialize`)"
)]
///
/// Safe to implement wrongly: restoring stores values only through
/// `restore_column`, which keeps the context's invariants whatever it is
/// given.
pub trait SaveDecl: ContextDecl {
    /// Every component's values, as deserialized: a struct with one field
    /// per component, a list of `(id, value)` pairs.
    type Columns: DeserializeOwned;
    /// Every component's values, borrowed from a context, to serialize.
    type ColumnsRef<'a>: Serialize
    where
        Self: 'a;
    /// Every resource's value, as deserialized.
    type SavedResources: DeserializeOwned;
    /// Every resource's value, borrowed from a context, to serialize.
    type ResourcesRef<'a>: Serialize
    where
        Self: 'a;

    /// The components of `cx`, to serialize.
    fn columns_ref(cx: &Context<Self>) -> Self::ColumnsRef<'_>;
    /// The resources of `cx`, to serialize.
    fn resources_ref(cx: &Context<Self>) -> Self::ResourcesRef<'_>;
    /// Whether every id in `columns` is below `ids`.
    fn columns_fit(columns: &Self::Columns, ids: usize) -> bool;
    /// Stores every value of `columns` in `cx` (with `restore_column`).
    fn restore_columns(cx: &mut Context<Self>, columns: Self::Columns);
    /// The resources' values, for the context's constructor.
    fn resource_values(saved: Self::SavedResources) -> Self::ResourceValues;
}

/// What [`Context::save`] returns: a context, borrowed, ready to be
/// serialized with any serde serializer.
pub struct Save<'a, Cx: ContextDecl> {
    cx: &'a Context<Cx>,
}

/// The serialized entity table: the generation of each slot handed out,
/// and the slot of each id.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct EntityTable {
    /// The generation of each slot, by slot.
    pub generations: Vec<u32>,
    /// The slot of each entity, by id.
    pub slots: Vec<u32>,
}

impl<Cx: SaveDecl> Serialize for Save<'_, Cx> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (generations, slots) = self.cx.entities().table();
        let mut s = serializer.serialize_struct("Snapshot", 3)?;
        s.serialize_field("entities", &EntityTable { generations, slots })?;
        s.serialize_field("components", &Cx::columns_ref(self.cx))?;
        s.serialize_field("resources", &Cx::resources_ref(self.cx))?;
        s.end()
    }
}

/// A saved context, deserialized: give it to [`Context::restore`].
#[derive(Deserialize)]
#[serde(bound = "")]
pub struct Snapshot<Cx: SaveDecl> {
    /// The entity table.
    pub entities: EntityTable,
    components: Cx::Columns,
    resources: Cx::SavedResources,
}

/// Restoring a snapshot failed; the context is unchanged.
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
    /// two ids or out of range, a value for an id no entity has.
    Malformed(String),
}

impl fmt::Display for RestoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RestoreError::TooManyEntities { slots, limit } => write!(
                f,
                "the snapshot has {slots} entity slots, more than the context's limit of {limit}"
            ),
            RestoreError::Malformed(why) => write!(f, "malformed snapshot: {why}"),
        }
    }
}

impl std::error::Error for RestoreError {}

impl<Cx: SaveDecl> Context<Cx> {
    /// The context, to serialize with any serde serializer: its entities
    /// (with their handles' generations), components and resources; not its
    /// systems' states.
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Serialize, Deserialize, Debug, PartialEq)]
    /// pub struct Position(pub f32);
    /// #[derive(Serialize, Deserialize, Default)]
    /// pub struct Score(pub u32);
    ///
    /// ecs::declare_context! {
    ///     pub context World {
    ///         settings { serde: all }
    ///         components { Position: contiguous; }
    ///         resources { Score }
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let e = world.step(|p| p.spawn((Position(1.5),))).unwrap();
    /// world.resource_mut::<Score>().0 = 7;
    /// let json = serde_json::to_string(&world.save()).unwrap();
    ///
    /// let mut loaded = World::new();
    /// loaded.restore(serde_json::from_str(&json).unwrap()).unwrap();
    /// // The handle made before saving names the same entity.
    /// assert_eq!(loaded.step(|p| p.get::<Position>(e).map(|p| p.0)), Some(1.5));
    /// assert_eq!(loaded.resource::<Score>().0, 7);
    /// ```
    pub fn save(&self) -> Save<'_, Cx> {
        Save { cx: self }
    }

    /// Replaces every entity, component value and resource of the context
    /// with those of `snapshot`; systems keep their states, and process the
    /// restored entities from their next run. Every handle of the saved
    /// context is valid here, naming the same entity (see
    /// [`save`](Self::save)); handles of entities this context held before
    /// read as dead unless the snapshot has a live entity with the same slot
    /// and generation.
    ///
    /// # Errors
    /// [`RestoreError::TooManyEntities`] when a fixed context is too small
    /// for the snapshot, [`RestoreError::Malformed`] when the snapshot is
    /// not one a context could have saved. Either way the context is
    /// unchanged.
    ///
    /// # Panics
    /// When a `drop` of a value the context held panics (the context is
    /// then empty, with its old table's slots, and consistent).
    pub fn restore(&mut self, snapshot: Snapshot<Cx>) -> Result<(), RestoreError> {
        let Snapshot {
            entities,
            components,
            resources,
        } = snapshot;
        let table = crate::entity::Entities::restored(
            Cx::SETTINGS.entities,
            !Cx::SYSTEMS.is_empty(),
            &entities.generations,
            &entities.slots,
        )?;
        if !Cx::columns_fit(&components, entities.slots.len()) {
            return Err(RestoreError::Malformed(
                "a component value for an id no entity has".to_string(),
            ));
        }
        // Checked: from here on nothing fails but a `drop`.
        self.clear_all();
        self.entities = table;
        Cx::restore_columns(self, components);
        self.resources = Cx::new_resources(Cx::resource_values(resources));
        Ok(())
    }
}

/// Component `C`'s values in a context, serialized as a list of `(id,
/// value)` pairs in id order.
pub struct SaveColumn<'a, Cx: ContextDecl, C: Component<Cx>> {
    cx: &'a Context<Cx>,
    _c: PhantomData<fn() -> C>,
}

impl<'a, Cx: ContextDecl, C: Component<Cx>> SaveColumn<'a, Cx, C> {
    /// `C`'s values in `cx`.
    pub fn new(cx: &'a Context<Cx>) -> Self {
        SaveColumn { cx, _c: PhantomData }
    }
}

impl<Cx: ContextDecl, C: Component<Cx> + Serialize> Serialize for SaveColumn<'_, Cx, C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use crate::bitset::ComponentSet;
        let entities = self.cx.entities();
        let bits = entities.all_bits();
        let count = bits.iter().filter(|b| b.contains(C::INDEX)).count();
        let column = C::column(self.cx.storages());
        let mut seq = serializer.serialize_seq(Some(count))?;
        for (i, b) in bits.iter().enumerate() {
            if b.contains(C::INDEX) {
                let id = EntityId(i as u32);
                // The bit is set only while the column holds a value
                // (`SAFETY.md`); a custom column breaking that is skipped.
                if let Some(value) = column.get(id) {
                    seq.serialize_element(&(id.0, value))?;
                }
            }
        }
        seq.end()
    }
}

/// Component `C`'s values, deserialized: `(id, value)` pairs.
#[derive(Deserialize)]
#[serde(transparent)]
pub struct LoadColumn<C> {
    values: Vec<(u32, C)>,
}

impl<C> LoadColumn<C> {
    /// Whether every id is below `ids`.
    pub fn fits(&self, ids: usize) -> bool {
        self.values.iter().all(|&(id, _)| (id as usize) < ids)
    }
}

/// Stores the values of `column` in `cx`, whose entity table holds every
/// id they name (checked by `SaveDecl::columns_fit` first; a value for
/// any other id is dropped).
pub fn restore_column<Cx: ContextDecl, C: Component<Cx>>(cx: &mut Context<Cx>, column: LoadColumn<C>) {
    for (id, value) in column.values {
        let id = EntityId(id);
        if let Some(e) = cx.entities().handle(id)
            && let Some((slot, id)) = cx.entities().resolve(e)
        {
            drop(cx.insert_component::<C>((slot, id), value));
        }
    }
}

/// What every saved component and resource must be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be saved: a context declared with `serde: all` saves every component and resource",
    label = "`{Self}` does not implement `Serialize` and `Deserialize`",
    note = "derive them: `#[derive(serde::Serialize, serde::Deserialize)]` on `{Self}`"
)]
pub trait Saved: Serialize + DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned> Saved for T {}

/// A check the generated code makes, spanned on each component and
/// resource of a context declared with `serde: all`.
pub const fn assert_saved<T: Saved>() {}
