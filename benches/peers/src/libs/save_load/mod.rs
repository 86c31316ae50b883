//! `save` and `load` (issue 26): 100 000 entities, each with a `Position`
//! and a `Velocity` (three `f32` each), saved to and loaded from JSON with
//! serde_json, the same format for every implementation. `save`
//! serializes the whole world into a byte buffer (cleared, its capacity
//! kept); `load` deserializes such a buffer (made once at set-up by the
//! same implementation's `save`) into a new world, which replaces (and
//! drops) the one the previous iteration made.
//!
//! Each implementation checks that what it saved loads back into an
//! empty world holding exactly the entities saved, each with its values,
//! found by the handle (or index) it had when set up: ecs's and hecs's
//! handles survive a save and a load. The values read back go into the
//! digest `main` compares with ecs's.
//!
//! The peer compared is hecs with its column serializer
//! (`hecs::serialize::column`, the `column-serialize` feature); bevy_ecs
//! (scenes go through reflection, not serde derives), legion, specs,
//! shipyard and gecs are not set up for it.

mod baseline;
mod best;
mod ecs;
mod hecs;

use crate::expect::{self, Check};
use crate::harness::Bench;
use crate::workload::{Lib, Workload};
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// Entities saved and loaded.
pub const ENTITIES: usize = 100_000;

/// A 3D position, 12 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Position(pub [f32; 3]);

/// A 3D velocity, 12 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Velocity(pub [f32; 3]);

/// Entity `i`'s values: every one exact in `f32` and distinct per entity
/// (`x` is `i`), from one to eight significant digits in JSON.
pub fn initial(i: usize) -> (Position, Velocity) {
    let f = i as f32;
    (
        Position([f, (i % 1000) as f32 * 0.5, -f * 0.25]),
        Velocity([1.0, ((i % 7) as f32 - 3.0) * 0.5, (i % 3) as f32]),
    )
}

/// One implementation's world, with what `save` and `load` do to it.
pub trait Store: Sized {
    /// How the set-up names an entity afterwards: a handle, or an index.
    type Key: Copy;

    /// A world of [`ENTITIES`] entities holding `initial(i)`, and the key
    /// of the `i`th.
    fn filled() -> (Self, Vec<Self::Key>);

    /// A world with no entity.
    fn empty() -> Self;

    /// Clears `out` and writes the whole world into it as JSON.
    fn save(&self, out: &mut Vec<u8>);

    /// Replaces the world with the one `json` holds, as `save` wrote it.
    fn load(&mut self, json: &[u8]);

    /// Entities the world holds, and the values of the entity of each key
    /// (`None` for a key naming no entity or one missing a component).
    fn read(&mut self, keys: &[Self::Key]) -> (usize, Vec<Option<(Position, Velocity)>>);
}

/// The `save` workload of store `S`.
pub struct Save<S: Store> {
    store: S,
    keys: Vec<S::Key>,
    out: Vec<u8>,
}

impl<S: Store> Save<S> {
    pub fn new() -> Self {
        let (store, keys) = S::filled();
        Save {
            store,
            keys,
            out: Vec::new(),
        }
    }
}

impl<S: Store> Bench for Save<S> {
    fn run(&mut self) {
        self.store.save(&mut self.out);
        black_box(&self.out);
    }

    /// Saves once, then loads what was saved into an empty world; prints
    /// the size of the save.
    fn check(&mut self) -> Check {
        self.run();
        eprintln!("save: {} writes {} bytes", std::any::type_name::<S>(), self.out.len());
        let mut loaded = S::empty();
        loaded.load(&self.out);
        let (entities, values) = loaded.read(&self.keys);
        expect::save_load(entities, values)
    }
}

/// The `load` workload of store `S`.
pub struct Load<S: Store> {
    store: S,
    keys: Vec<S::Key>,
    json: Vec<u8>,
}

impl<S: Store> Load<S> {
    /// The JSON comes from a filled world; the world loaded into starts
    /// empty, so that a load that does nothing fails the check.
    pub fn new() -> Self {
        let (filled, keys) = S::filled();
        let mut json = Vec::new();
        filled.save(&mut json);
        Load {
            store: S::empty(),
            keys,
            json,
        }
    }
}

impl<S: Store> Bench for Load<S> {
    fn run(&mut self) {
        self.store.load(&self.json);
        black_box(&self.store);
    }

    fn check(&mut self) -> Check {
        self.run();
        let (entities, values) = self.store.read(&self.keys);
        expect::save_load(entities, values)
    }
}

/// The implementation `lib` of `w` (`save` or `load`), set up; `None` for
/// the peers not set up for it.
pub fn make(w: Workload, lib: Lib) -> Option<Box<dyn Bench>> {
    fn of<S: Store + 'static>(w: Workload) -> Box<dyn Bench> {
        match w {
            Workload::Save => Box::new(Save::<S>::new()),
            _ => Box::new(Load::<S>::new()),
        }
    }
    match lib {
        Lib::Baseline => Some(of::<baseline::Rows>(w)),
        Lib::Best => Some(of::<best::Columns>(w)),
        Lib::Ecs => Some(of::<ecs::Scene>(w)),
        Lib::Hecs => Some(of::<hecs::Columns>(w)),
        Lib::Bevy | Lib::Legion | Lib::Specs | Lib::Shipyard | Lib::Gecs => None,
    }
}

/// Other ways to write ecs's `load`: restoring into the context kept from
/// the previous iteration instead of a new one.
pub fn variants(w: Workload) -> Vec<(&'static str, Box<dyn Bench>)> {
    match w {
        Workload::Load => vec![(
            "`restore` into the context the previous iteration restored, not a new one",
            Box::new(Load::<ecs::InPlace>::new()) as Box<dyn Bench>,
        )],
        _ => Vec::new(),
    }
}
