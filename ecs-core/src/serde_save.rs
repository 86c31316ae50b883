//! Save and restore (the `serde` feature): a context's entities, components
//! and resources to any serde format and back.
//!
//! A declaration opts in with the setting `serde: all`; every component and
//! resource must then implement `Serialize` and `Deserialize` (a type that
//! does not is a compile error naming it). System states are not saved:
//! they are code's, not the world's.
//!
//! What is saved: the entity table (the generation of every slot handed
//! out, and the slot of every id), each component as the ids holding it and
//! their values, and each resource. Runs of consecutive numbers (ids, and
//! the slots of consecutive ids) are saved as a first number and a length,
//! and runs of equal generations as the generation and a length, so a
//! context whose entities were made in a batch saves little beside its
//! values. Restoring rebuilds the table as it
//! was, so **handles stay valid across a save and a restore**: a handle
//! saved beside the context (or made before saving) names the same entity
//! in the restored context, a stale one stays stale, and entities created
//! later reuse the same free slots, with the same generations, as they
//! would have in the saved context. Ids are the same too.
//!
//! A snapshot begins with its format's number ([`SNAPSHOT_FORMAT`]); one of
//! another format is refused as soon as that number is read, with an error
//! naming both formats. Components and resources are saved under their
//! declared names: a snapshot naming one the context does not declare is
//! refused (its values would be lost), and a component the snapshot lacks
//! (declared since it was saved) is restored with no values.

use crate::context::Context;
use crate::decl::{Component, ContextDecl};
use crate::error::{EntityLimit, RestoreError};
use crate::handle::EntityId;
use crate::storage::Column;
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

/// The format of the snapshots this build of `ecs` writes, and the only one
/// it reads: the number every snapshot begins with (its field `format`).
/// It changes whenever what a snapshot holds, or how, changes.
///
/// ```
/// assert_eq!(ecs::save::SNAPSHOT_FORMAT, 1);
/// ```
pub const SNAPSHOT_FORMAT: u32 = 1;

/// A snapshot's format number: serialized as [`SNAPSHOT_FORMAT`], and
/// deserialized only from that number, so that a snapshot of another
/// format fails as soon as the number is read (before any of its values
/// are), saying which format it is.
#[derive(Clone, Copy, Debug)]
struct Format;

impl Serialize for Format {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(SNAPSHOT_FORMAT)
    }
}

impl<'de> Deserialize<'de> for Format {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let format = u32::deserialize(deserializer)?;
        if format == SNAPSHOT_FORMAT {
            return Ok(Format);
        }
        Err(serde::de::Error::custom(format_args!(
            "the snapshot is of format {format}, and this build of ecs reads format {SNAPSHOT_FORMAT} only"
        )))
    }
}

/// The serialized entity table: the generation of each slot handed out,
/// and the slot of each id, as runs.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct EntityTable {
    /// The generation of each slot, by slot, as runs `[generation, len,
    /// ..]`: the next `len` slots have that generation. In a context of
    /// `dynamic` limit no run is longer than 64 slots, so that
    /// what a snapshot makes a restore allocate stays in proportion to its
    /// size; a `fixed` context has room for its limit already.
    pub generation_runs: Vec<u32>,
    /// The slot of each id, in id order, as runs `[first, len, first, len,
    /// ..]`: ids `k..k + len` (`k` the ids of the runs before) are in slots
    /// `first..first + len`.
    pub slot_runs: Vec<u32>,
}

/// The longest run of [`EntityTable::generation_runs`] a context of
/// `dynamic` limit saves and restores: a run of more slots is malformed,
/// so that a few bytes cannot ask a restore for billions of slots.
pub(crate) const DYNAMIC_RUN: u32 = 64;

/// Appends to `runs` the runs `[generation, len, ..]` of equal numbers in
/// `numbers`, none longer than `longest`.
fn runs_of_equal(runs: &mut Vec<u32>, numbers: impl Iterator<Item = u32>, longest: u32) {
    let mut current: Option<(u32, u32)> = None;
    for n in numbers {
        current = match current {
            Some((g, len)) if g == n && len < longest => Some((g, len + 1)),
            Some((g, len)) => {
                runs.extend([g, len]);
                Some((n, 1))
            }
            None => Some((n, 1)),
        };
    }
    if let Some((g, len)) = current {
        runs.extend([g, len]);
    }
}

/// The generation of each slot from the runs of
/// [`EntityTable::generation_runs`]; `Err` when they are not pairs, a run
/// is empty or longer than `longest`, or they hold more slots than `limit`
/// (checked before allocating).
fn generations_of_runs(runs: &[u32], longest: u32, limit: usize) -> Result<Vec<u32>, RestoreError> {
    let malformed = |why: &str| Err(RestoreError::Malformed(why.to_string()));
    if !runs.len().is_multiple_of(2) {
        return malformed("the generations' runs are not pairs");
    }
    let mut slots = 0usize;
    for (_, len) in pairs(runs) {
        if len == 0 || len > longest {
            return malformed("a run of generations is empty or longer than the context saves");
        }
        slots += len as usize;
    }
    if slots > limit {
        return Err(RestoreError::TooManyEntities { slots, limit });
    }
    let mut generations = Vec::with_capacity(slots);
    for (g, len) in pairs(runs) {
        generations.extend(core::iter::repeat_n(g, len as usize));
    }
    Ok(generations)
}

/// Appends to `runs` the runs `[first, len, ..]` of the indices `0..n`
/// for which `holds` is true.
#[inline]
fn runs_where(runs: &mut Vec<u32>, n: usize, mut holds: impl FnMut(usize) -> bool) {
    let mut i = 0;
    while i < n {
        if holds(i) {
            let first = i;
            i += 1;
            while i < n && holds(i) {
                i += 1;
            }
            runs.extend([first as u32, (i - first) as u32]);
        } else {
            i += 1;
        }
    }
}

/// Appends to `runs` the runs `[first, len, ..]` of consecutive numbers in
/// `numbers`.
#[inline]
fn runs_of(runs: &mut Vec<u32>, numbers: &[u32]) {
    let mut i = 0;
    while i < numbers.len() {
        let first = i;
        i += 1;
        while i < numbers.len() && numbers[i] == numbers[i - 1].wrapping_add(1) {
            i += 1;
        }
        runs.extend([numbers[first], (i - first) as u32]);
    }
}

/// The runs `[first, len, ..]` as `(first, len)` pairs (an odd last number
/// is ignored; `LoadColumn::fits` and `slots_of_runs` reject it).
fn pairs(runs: &[u32]) -> impl Iterator<Item = (u32, u32)> + '_ {
    runs.chunks_exact(2).map(|r| (r[0], r[1]))
}

/// The slot of each id from the runs of [`EntityTable::slot_runs`]; `Err`
/// when they are not pairs, a run is empty or overflows, or they hold more
/// ids than `slots` (each slot holds at most one id, which `restored`
/// checks; this bounds what a hostile snapshot makes us allocate).
fn slots_of_runs(runs: &[u32], slots: usize) -> Result<Vec<u32>, RestoreError> {
    let malformed = |why: &str| Err(RestoreError::Malformed(why.to_string()));
    if !runs.len().is_multiple_of(2) {
        return malformed("the slots' runs are not pairs");
    }
    let mut ids = 0usize;
    for (first, len) in pairs(runs) {
        if len == 0 || first.checked_add(len).is_none() {
            return malformed("a run of slots is empty or past the last slot");
        }
        ids += len as usize;
        if ids > slots {
            return malformed("more ids than slots");
        }
    }
    let mut slot_of = Vec::with_capacity(ids);
    for (first, len) in pairs(runs) {
        slot_of.extend(first..first + len);
    }
    Ok(slot_of)
}

/// A context's entity table, serialized as an [`EntityTable`] without
/// copying it first.
struct TableRef<'a, Cx: ContextDecl> {
    cx: &'a Context<Cx>,
}

impl<Cx: ContextDecl> Serialize for TableRef<'_, Cx> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (_, slots) = self.cx.entities().table();
        let mut slot_runs = Vec::new();
        runs_of(&mut slot_runs, slots);
        let mut generation_runs = Vec::new();
        runs_of_equal(
            &mut generation_runs,
            self.cx.entities().table().0,
            longest_run(Cx::SETTINGS.entities),
        );
        let mut s = serializer.serialize_struct("EntityTable", 2)?;
        s.serialize_field("generation_runs", &generation_runs)?;
        s.serialize_field("slot_runs", &slot_runs)?;
        s.end()
    }
}

/// The longest run of generations a context of this limit saves and
/// restores.
fn longest_run(limit: EntityLimit) -> u32 {
    if limit.is_fixed() {
        u32::MAX
    } else {
        DYNAMIC_RUN
    }
}

impl<Cx: SaveDecl> Serialize for Save<'_, Cx> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Snapshot", 4)?;
        s.serialize_field("format", &Format)?;
        s.serialize_field("entities", &TableRef { cx: self.cx })?;
        s.serialize_field("components", &Cx::columns_ref(self.cx))?;
        s.serialize_field("resources", &Cx::resources_ref(self.cx))?;
        s.end()
    }
}

/// A saved context, deserialized: give it to [`Context::restore`].
///
/// Deserializing fails when the snapshot is of another format than
/// [`SNAPSHOT_FORMAT`] or names a component or resource the context does
/// not declare.
#[derive(Deserialize)]
#[serde(bound = "", deny_unknown_fields)]
pub struct Snapshot<Cx: SaveDecl> {
    /// Checked when deserialized; first, so that it is read first.
    format: Format,
    /// The entity table.
    pub entities: EntityTable,
    components: Cx::Columns,
    resources: Cx::SavedResources,
}

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
            format: Format,
            entities,
            components,
            resources,
        } = snapshot;
        let limit = Cx::SETTINGS.entities;
        let most = match limit {
            EntityLimit::Fixed(n) => n,
            EntityLimit::Dynamic { .. } => usize::MAX,
        };
        let generations = generations_of_runs(&entities.generation_runs, longest_run(limit), most)?;
        let slots = slots_of_runs(&entities.slot_runs, generations.len())?;
        let table = crate::entity::Entities::restored(limit, !Cx::SYSTEMS.is_empty(), &generations, &slots)?;
        if !Cx::columns_fit(&components, slots.len()) {
            return Err(RestoreError::Malformed(
                "a component value for an id no entity has".to_string(),
            ));
        }
        // Checked: from here on nothing fails but a `drop`.
        self.clear_all();
        // Through `DerefMut`: the old table (in a `ManuallyDrop`) dropped.
        *self.entities = table;
        Cx::restore_columns(self, components);
        self.resources = Cx::new_resources(Cx::resource_values(resources));
        Ok(())
    }
}

/// Component `C`'s values in a context, serialized as the ids holding it,
/// in runs `[first, len, ..]` in id order, and the values of those ids in
/// the same order.
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
        let column = C::column(self.cx.storages());
        let bits = self.cx.entities().all_bits();
        let mut runs = Vec::new();
        // The bit is set only while the column holds a value (`SAFETY.md`);
        // a custom column breaking that is an error below.
        runs_where(&mut runs, bits.len(), |i| bits[i].contains(C::INDEX));
        let mut s = serializer.serialize_struct("Column", 2)?;
        s.serialize_field("ids", &runs)?;
        s.serialize_field("values", &Values::<Cx, C> { column, runs: &runs })?;
        s.end()
    }
}

/// The values of the ids of `runs` in `column`, in order.
struct Values<'a, Cx: ContextDecl, C: Component<Cx>> {
    column: &'a C::Column,
    runs: &'a [u32],
}

impl<Cx: ContextDecl, C: Component<Cx> + Serialize> Serialize for Values<'_, Cx, C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let count = pairs(self.runs).map(|(_, len)| len as usize).sum();
        let mut seq = serializer.serialize_seq(Some(count))?;
        if <C::Column as Column>::LINEAR {
            // A run's values side by side: one address per run.
            let state = self.column.fetch_state();
            for (first, len) in pairs(self.runs) {
                // SAFETY: `state` comes from this column, borrowed shared
                // (through `&Context`) since; every id of the run has `C`'s
                // bit set (`runs_where` above, on the same borrow), so it
                // holds a value (the context sets a bit only after storing
                // the value and clears it before removing it: `SAFETY.md`).
                let base = unsafe { <C::Column as Column>::fetch(state, EntityId(first)) };
                for k in 0..len as usize {
                    // SAFETY: `LINEAR`: the ids `first..first + len` all
                    // hold values, so the value of `first + k` is at
                    // `base.add(k)`, initialised, and only read while the
                    // context is shared-borrowed.
                    seq.serialize_element(unsafe { base.add(k).as_ref() })?;
                }
            }
            return seq.end();
        }
        for (first, len) in pairs(self.runs) {
            for id in first..first + len {
                // A custom column that lacks a value its bit claims gets an
                // error, not a short list.
                let value = self
                    .column
                    .get(EntityId(id))
                    .ok_or_else(|| serde::ser::Error::custom("a component's bit is set but its column has no value"))?;
                seq.serialize_element(value)?;
            }
        }
        seq.end()
    }
}

/// Component `C`'s values, deserialized: the ids holding it, as runs
/// `[first, len, ..]` in id order, and their values in the same order.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadColumn<C> {
    ids: Vec<u32>,
    values: Vec<C>,
}

/// No values: what a component missing from a snapshot restores as.
impl<C> Default for LoadColumn<C> {
    fn default() -> Self {
        LoadColumn {
            ids: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<C> LoadColumn<C> {
    /// Whether the runs are pairs, non-empty, ascending and apart, end at
    /// or below `ids`, and hold as many ids as there are values.
    pub fn fits(&self, ids: usize) -> bool {
        let mut end = 0u64;
        let mut count = 0usize;
        for (first, len) in pairs(&self.ids) {
            let (first, len) = (u64::from(first), u64::from(len));
            if len == 0 || first < end || first + len > ids as u64 {
                return false;
            }
            end = first + len;
            count += len as usize;
        }
        self.ids.len().is_multiple_of(2) && count == self.values.len()
    }
}

/// Stores the values of `column` in `cx`, whose entity table holds every
/// id they name, each holding no component yet (checked by
/// `SaveDecl::columns_fit` first). Whatever it is given, it keeps the
/// context's invariants: a run is clamped to the table's ids and to after
/// the previous run, and values past the ids, or for ids not alive, are
/// dropped.
///
/// A run of live ids none of which holds `C` (every run, in a restore) is
/// written at once where the column has fixed places (`prepare_fill`), and
/// then the run's bits are set, as `Defer::add_to_all` does; any other run
/// is stored one value at a time, as adding a component does.
pub fn restore_column<Cx: ContextDecl, C: Component<Cx>>(cx: &mut Context<Cx>, column: LoadColumn<C>) {
    use crate::bitset::ComponentSet;
    let n = cx.entities.id_bound();
    let every_id_alive = !cx.entities.has_dying() && !cx.entities.has_holes();
    let mut values = column.values.into_iter();
    let mut next = 0;
    let mut queued = false;
    for (first, len) in pairs(&column.ids) {
        let start = (first as usize).clamp(next, n);
        let ids = start..(first as usize).saturating_add(len as usize).clamp(start, n);
        next = ids.end;
        // OR-ed without an early exit, so that the loop is vectorised.
        let fresh = every_id_alive
            && !cx.entities.all_bits()[ids.clone()]
                .iter()
                .fold(false, |any, b| any | b.contains(C::INDEX));
        if !fresh {
            for id in ids {
                let Some(value) = values.next() else { break };
                let id = EntityId(id as u32);
                if cx.entities.is_id_alive(id) {
                    let at = (cx.entities.slot_with_id(id), id);
                    drop(cx.insert_component::<C>(at, value));
                }
            }
            continue;
        }
        // Queued first: whatever happens below, matching will see it.
        if !queued {
            cx.entities.mark_bulk(C::INDEX);
            queued = true;
        }
        let storage = C::column_mut(&mut cx.storages);
        let mut written = 0;
        match storage.prepare_fill(ids.clone()) {
            Some(slots) => {
                // The run's values side by side in the deserialized `Vec`,
                // moved with one copy (a `memcpy`) rather than one by one.
                let run = values.as_slice();
                written = ids.len().min(run.len());
                // SAFETY: `prepare_fill(ids)` returned `slots`, the slot of
                // `ids.start + k` at `.add(k)`, valid for writes of
                // `ids.len()` values until the next `&mut` call on the
                // column; `written` is at most that and at most the values
                // left in `run`, which are initialised and do not overlap
                // the column's buffer (another allocation). The values are
                // moved: they are forgotten in `values` just below, before
                // anything can panic, so each is dropped once, by the column.
                unsafe { core::ptr::copy_nonoverlapping(run.as_ptr(), slots.as_ptr(), written) };
                values.by_ref().take(written).for_each(core::mem::forget);
                // SAFETY: the slots of `start..start + written` were just
                // initialised through the pointer of `prepare_fill(ids)`,
                // which contains that range, and no `&mut` call came since.
                unsafe { storage.fill(start..start + written) };
            }
            None => {
                for value in values.by_ref().take(ids.len()) {
                    // A value the column held for an id no entity claimed
                    // (left by a panicking spawn) is dropped.
                    drop(storage.insert(EntityId((start + written) as u32), value));
                    written += 1;
                }
            }
        }
        // Stored first, then the bits set: if `insert` panics, the bitsets
        // still claim nothing the storage lacks.
        for bits in &mut cx.entities.all_bits_mut()[start..start + written] {
            bits.insert(C::INDEX);
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
