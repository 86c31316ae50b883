//! ecs: a context declared with `serde: all`; `save` serializes
//! `Context::save()`'s snapshot, `load` deserializes a `Snapshot` and
//! `restore`s it into a new context (as hecs's `deserialize` makes a new
//! `World`), or, the variant, into the context kept from the previous
//! iteration.

use super::{initial, Position, Store, Velocity, ENTITIES};
use ::ecs::Entity;

::ecs::declare_context! {
    pub context Game {
        settings { entities: fixed(100_000), threads: 1, serde: all }
        components { Position, Velocity: contiguous; }
    }
}

const _: () = assert!(ENTITIES == 100_000, "the context's `fixed` limit is ENTITIES");

fn filled() -> (Game, Vec<Entity>) {
    let mut game = Game::new();
    let keys = game.step(|p| p.spawn_batch((0..ENTITIES).map(initial)).expect("room").collect());
    (game, keys)
}

fn save(game: &Game, out: &mut Vec<u8>) {
    out.clear();
    serde_json::to_writer(&mut *out, &game.save()).expect("the snapshot serializes");
}

fn read(game: &mut Game, keys: &[Entity]) -> (usize, Vec<Option<(Position, Velocity)>>) {
    let values = game.step(|p| {
        keys.iter()
            .map(|&e| Some((*p.get::<Position>(e)?, *p.get::<Velocity>(e)?)))
            .collect()
    });
    (game.len(), values)
}

/// `load` restores into a new context.
pub struct Scene(Game);

impl Store for Scene {
    type Key = Entity;

    fn filled() -> (Self, Vec<Entity>) {
        let (game, keys) = filled();
        (Scene(game), keys)
    }

    fn empty() -> Self {
        Scene(Game::new())
    }

    fn save(&self, out: &mut Vec<u8>) {
        save(&self.0, out);
    }

    fn load(&mut self, json: &[u8]) {
        let mut game = Game::new();
        game.restore(serde_json::from_slice(json).expect("what `save` wrote"))
            .expect("a snapshot of a context of the same limit");
        self.0 = game;
    }

    fn read(&mut self, keys: &[Entity]) -> (usize, Vec<Option<(Position, Velocity)>>) {
        read(&mut self.0, keys)
    }
}

/// `load` restores into the context it holds.
pub struct InPlace(Game);

impl Store for InPlace {
    type Key = Entity;

    fn filled() -> (Self, Vec<Entity>) {
        let (game, keys) = filled();
        (InPlace(game), keys)
    }

    fn empty() -> Self {
        InPlace(Game::new())
    }

    fn save(&self, out: &mut Vec<u8>) {
        save(&self.0, out);
    }

    fn load(&mut self, json: &[u8]) {
        self.0
            .restore(serde_json::from_slice(json).expect("what `save` wrote"))
            .expect("a snapshot of a context of the same limit");
    }

    fn read(&mut self, keys: &[Entity]) -> (usize, Vec<Option<(Position, Velocity)>>) {
        read(&mut self.0, keys)
    }
}
