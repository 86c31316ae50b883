//! The plain baseline: the entities as one `Vec<(Position, Velocity)>`,
//! serialized and deserialized whole by serde_json (what `benches/save.rs`
//! compares ecs with).

use super::{initial, Position, Store, Velocity, ENTITIES};

pub struct Rows(Vec<(Position, Velocity)>);

impl Store for Rows {
    type Key = usize;

    fn filled() -> (Self, Vec<usize>) {
        (Rows((0..ENTITIES).map(initial).collect()), (0..ENTITIES).collect())
    }

    fn empty() -> Self {
        Rows(Vec::new())
    }

    fn save(&self, out: &mut Vec<u8>) {
        out.clear();
        serde_json::to_writer(&mut *out, &self.0).expect("a Vec of floats serializes");
    }

    fn load(&mut self, json: &[u8]) {
        self.0 = serde_json::from_slice(json).expect("what `save` wrote");
    }

    fn read(&mut self, keys: &[usize]) -> (usize, Vec<Option<(Position, Velocity)>>) {
        (self.0.len(), keys.iter().map(|&i| self.0.get(i).copied()).collect())
    }
}
