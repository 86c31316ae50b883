//! The best-effort hand-written version: one `Vec` per component (the
//! layout ecs and hecs keep), serialized as one JSON object of two arrays:
//! no per-entity pair to open and close, no ids.

use super::{initial, Position, Store, Velocity, ENTITIES};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
pub struct Columns {
    positions: Vec<Position>,
    velocities: Vec<Velocity>,
}

impl Store for Columns {
    type Key = usize;

    fn filled() -> (Self, Vec<usize>) {
        let columns = Columns {
            positions: (0..ENTITIES).map(|i| initial(i).0).collect(),
            velocities: (0..ENTITIES).map(|i| initial(i).1).collect(),
        };
        (columns, (0..ENTITIES).collect())
    }

    fn empty() -> Self {
        Columns {
            positions: Vec::new(),
            velocities: Vec::new(),
        }
    }

    fn save(&self, out: &mut Vec<u8>) {
        out.clear();
        serde_json::to_writer(&mut *out, self).expect("Vecs of floats serialize");
    }

    fn load(&mut self, json: &[u8]) {
        let loaded: Columns = serde_json::from_slice(json).expect("what `save` wrote");
        // Two columns of different lengths would not be entities.
        assert_eq!(loaded.positions.len(), loaded.velocities.len(), "columns of one length");
        *self = loaded;
    }

    fn read(&mut self, keys: &[usize]) -> (usize, Vec<Option<(Position, Velocity)>>) {
        let values = keys
            .iter()
            .map(|&i| Some((*self.positions.get(i)?, *self.velocities.get(i)?)))
            .collect();
        (self.positions.len(), values)
    }
}
