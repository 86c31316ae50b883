//! hecs: its column serializer (`hecs::serialize::column`, the
//! `column-serialize` feature), which writes each archetype's entity
//! handles and then each component's values as one tuple per component,
//! and whose `deserialize` makes a new `World` spawning each archetype's
//! entities at their saved handles (`spawn_column_batch_at`). The
//! contexts are hecs's documented ones: a component id enum, and
//! `try_serialize` / `deserialize_column` per component.

use super::{initial, Position, Store, Velocity, ENTITIES};
use ::hecs::serialize::column::{
    deserialize, deserialize_column, serialize, try_serialize, try_serialize_id, DeserializeContext, SerializeContext,
};
use ::hecs::{Archetype, ColumnBatchBuilder, ColumnBatchType, Entity, World};
use serde::de::SeqAccess;
use serde::ser::SerializeTuple;
use serde::{Deserialize, Serialize};
use std::any::TypeId;

/// How the save names each component.
#[derive(Clone, Copy, Serialize, Deserialize)]
enum ComponentId {
    Position,
    Velocity,
}

/// What `serialize` and `deserialize` call back.
#[derive(Default)]
struct Context {
    /// The components of the archetype being deserialized, in order.
    components: Vec<ComponentId>,
}

impl SerializeContext for Context {
    fn component_count(&self, archetype: &Archetype) -> usize {
        archetype
            .component_types()
            .filter(|&t| t == TypeId::of::<Position>() || t == TypeId::of::<Velocity>())
            .count()
    }

    fn serialize_component_ids<S: SerializeTuple>(
        &mut self,
        archetype: &Archetype,
        mut out: S,
    ) -> Result<S::Ok, S::Error> {
        try_serialize_id::<Position, _, _>(archetype, &ComponentId::Position, &mut out)?;
        try_serialize_id::<Velocity, _, _>(archetype, &ComponentId::Velocity, &mut out)?;
        out.end()
    }

    fn serialize_components<S: SerializeTuple>(
        &mut self,
        archetype: &Archetype,
        mut out: S,
    ) -> Result<S::Ok, S::Error> {
        try_serialize::<Position, _>(archetype, &mut out)?;
        try_serialize::<Velocity, _>(archetype, &mut out)?;
        out.end()
    }
}

impl DeserializeContext for Context {
    fn deserialize_component_ids<'de, A: SeqAccess<'de>>(&mut self, mut seq: A) -> Result<ColumnBatchType, A::Error> {
        self.components.clear();
        let mut batch = ColumnBatchType::new();
        while let Some(id) = seq.next_element()? {
            match id {
                ComponentId::Position => batch.add::<Position>(),
                ComponentId::Velocity => batch.add::<Velocity>(),
            };
            self.components.push(id);
        }
        Ok(batch)
    }

    fn deserialize_components<'de, A: SeqAccess<'de>>(
        &mut self,
        entity_count: u32,
        mut seq: A,
        batch: &mut ColumnBatchBuilder,
    ) -> Result<(), A::Error> {
        for &component in &self.components {
            match component {
                ComponentId::Position => deserialize_column::<Position, _>(entity_count, &mut seq, batch)?,
                ComponentId::Velocity => deserialize_column::<Velocity, _>(entity_count, &mut seq, batch)?,
            }
        }
        Ok(())
    }
}

pub struct Columns(World);

impl Store for Columns {
    type Key = Entity;

    fn filled() -> (Self, Vec<Entity>) {
        let mut world = World::new();
        let keys = world.spawn_batch((0..ENTITIES).map(initial)).collect();
        (Columns(world), keys)
    }

    fn empty() -> Self {
        Columns(World::new())
    }

    fn save(&self, out: &mut Vec<u8>) {
        out.clear();
        let mut json = serde_json::Serializer::new(&mut *out);
        serialize(&self.0, &mut Context::default(), &mut json).expect("the world serializes");
    }

    fn load(&mut self, json: &[u8]) {
        // As `serde_json::from_slice` does: deserialize, then check that
        // only whitespace follows.
        let mut de = serde_json::Deserializer::from_slice(json);
        let world = deserialize(&mut Context::default(), &mut de).expect("what `save` wrote");
        de.end().expect("nothing after the world");
        self.0 = world;
    }

    fn read(&mut self, keys: &[Entity]) -> (usize, Vec<Option<(Position, Velocity)>>) {
        let world = &self.0;
        let values = keys
            .iter()
            .map(|&e| {
                let p = *world.get::<&Position>(e).ok()?;
                let v = *world.get::<&Velocity>(e).ok()?;
                Some((p, v))
            })
            .collect();
        (world.len() as usize, values)
    }
}
