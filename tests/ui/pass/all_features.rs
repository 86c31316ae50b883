//! Every storage strategy, every setting and every proxy feature, from a crate
//! outside the workspace.

use ecs::storage::{Column, Storage};
use ecs::{Data, Entity, EntityId, EntityLimit, RefreshEvents, System};
use std::collections::BTreeMap;
use std::ptr::NonNull;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Velocity(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Color(pub u8);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Radius(pub f32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Life(pub i32);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Selected;
#[derive(Clone, Debug, PartialEq)]
pub struct Debug(pub String);
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh(pub Vec<u32>);

/// A custom storage: a `BTreeMap` of boxed values (boxes keep addresses stable).
pub struct MeshStorage(BTreeMap<u32, Box<std::cell::UnsafeCell<Mesh>>>);

// SAFETY: values are boxed `UnsafeCell`s, one per id, that move only when the
// map is modified through `&mut self`; `&self` methods touch only the id asked.
unsafe impl Sync for MeshStorage {}

impl Storage for MeshStorage {
    fn new(_: EntityLimit) -> Self {
        MeshStorage(BTreeMap::new())
    }
}

// SAFETY: as for `Sync` above.
unsafe impl Column for MeshStorage {
    type Item = Mesh;
    fn insert(&mut self, id: EntityId, value: Mesh) -> Option<Mesh> {
        self.0
            .insert(id.to_bits(), Box::new(std::cell::UnsafeCell::new(value)))
            .map(|b| b.into_inner())
    }
    fn remove(&mut self, id: EntityId) -> Option<Mesh> {
        self.0.remove(&id.to_bits()).map(|b| b.into_inner())
    }
    fn contains(&self, id: EntityId) -> bool {
        self.0.contains_key(&id.to_bits())
    }
    fn get(&self, id: EntityId) -> Option<&Mesh> {
        // SAFETY: callers never write a value while a shared borrow exists.
        self.0.get(&id.to_bits()).map(|c| unsafe { &*c.get() })
    }
    fn get_mut(&mut self, id: EntityId) -> Option<&mut Mesh> {
        self.0.get_mut(&id.to_bits()).map(|c| c.get_mut())
    }
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<Mesh>> {
        self.0.get(&id.to_bits()).and_then(|c| NonNull::new(c.get()))
    }
    type Fetch = *const Self;
    fn fetch_state(&self) -> *const Self {
        self
    }
    unsafe fn fetch(this: *const Self, id: EntityId) -> NonNull<Mesh> {
        // SAFETY: the caller guarantees the storage is live and `id` present.
        unsafe { (*this).get_ptr(id).unwrap_unchecked() }
    }
}

#[derive(Default)]
pub struct Accelerate;
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Count {
    pub total: usize,
}
#[derive(Default)]
pub struct Report {
    pub seen_total: usize,
}
#[derive(Default)]
pub struct Age;
#[derive(Default)]
pub struct Grow;

ecs::declare_context! {
    /// Every feature at once.
    #[derive()]
    pub context Everything {
        settings { entities: fixed(64), inner_parallelism: allow, threads: 2 }
        components {
            /// Where it is.
            Position, Velocity: contiguous;
            (Color, Radius): grouped;
            Life: sparse_set;
            Selected: tag;
            Debug: hash_map;
            Mesh: custom(MeshStorage);
        }
        systems {
            /// Speeds things up.
            accelerate: Accelerate { write: [Velocity], parallelism: split_every(3) }
            movement: Move { read: [Velocity], write: [Position], after: [accelerate],
                             parallelism: none_below(4, split_evenly_per_core) }
            count: Count { read: [Position, Radius], after: [movement], output: usize,
                           parallelism: split_evenly_per_core }
            report: Report { read: [Position], after: [count] }
            age: Age { write: [Life], parallelism: split_every(2) }
            grow: Grow { read: [Selected, Debug], write: [Mesh], after: [age] }
        }
    }
}

impl System<Everything, f32> for Accelerate {
    fn process(&self, data: &mut Data<'_, Everything, Self>, dt: &f32) {
        data.for_each::<&mut Velocity>(|v| v.0 += dt);
    }
}

impl System<Everything, f32> for Move {
    fn process(&self, data: &mut Data<'_, Everything, Self>, dt: &f32) {
        data.for_each::<(&mut Position, &Velocity)>(|(p, v)| p.0 += v.0 * dt);
    }
}

impl System<Everything, f32> for Count {
    fn process(&self, data: &mut Data<'_, Everything, Self>, _: &f32) {
        let mut n = 0;
        data.for_each::<(&Position, &Radius)>(|_| n += 1);
        // Read-only components of other subtasks' entities are readable.
        let mut others = 0;
        data.for_other_entities::<&Radius>(|_| others += 1);
        assert_eq!(n + others, data.all_entity_count());
        *data.output() += n;
    }
    fn after(&mut self, outputs: &mut [usize], _: &f32) {
        self.total = outputs.iter().sum();
    }
}

impl System<Everything, f32> for Report {
    fn process(&self, data: &mut Data<'_, Everything, Self>, _: &f32) {
        let total = data.system::<Count>().total;
        let summed: usize = data.outputs::<Count>().iter().sum();
        assert_eq!(total, summed);
        let _ = data.system::<Move>(); // a transitive ancestor
        if data.subtask_index() == 0 {
            data.defer(move |d| {
                let e = d.create().unwrap();
                d.add(e, Debug(format!("report saw {total}"))).unwrap();
            });
        }
    }
}

impl System<Everything, f32> for Age {
    fn process(&self, data: &mut Data<'_, Everything, Self>, _: &f32) {
        data.for_entities::<(EntityId, &mut Life)>(|view, (id, life)| {
            life.0 -= 1;
            if life.0 == 0 {
                view.kill(id);
            }
        });
    }
}

impl System<Everything, f32> for Grow {
    fn process(&self, data: &mut Data<'_, Everything, Self>, _: &f32) {
        data.for_each::<(&mut Mesh, &Debug, &Selected)>(|(m, d, _)| m.0.push(d.0.len() as u32));
    }
}

fn main() {
    let mut ctx = Everything::new();
    assert_eq!(ctx.threads(), 2);
    let movers: Vec<Entity> = ctx.step(|p| {
        (0..10)
            .map(|i| {
                let e = p.spawn((Position(0.0), Velocity(1.0))).unwrap();
                if i % 2 == 0 {
                    p.add(e, Radius(1.0)).unwrap();
                    p.add(e, Color(i as u8)).unwrap();
                }
                e
            })
            .collect()
    });
    let tagged = ctx.step(|p| {
        let e = p.spawn((Selected, Debug("x".into()), Mesh(vec![]), Life(2))).unwrap();
        assert!(p.has::<Selected>(e));
        e
    });

    let mut subscribed = Vec::new();
    let mut unsubscribed = Vec::new();
    let mut reclaimed = Vec::new();
    let short_lived;
    {
        let mut events = RefreshEvents::<Everything>::new()
            .on_subscribe::<Move>(|e| subscribed.push(e))
            .on_unsubscribe::<Move>(|e| unsubscribed.push(e))
            .on_reclaim(|e| reclaimed.push(e));
        short_lived = ctx.step_with(&mut events, |p| {
            p.run_all(&1.0);
            p.spawn((Position(5.0), Velocity(0.0))).unwrap()
        });
        ctx.step_with(&mut events, |p| {
            p.kill(short_lived);
        });
    }
    assert_eq!(subscribed, vec![short_lived]);
    assert_eq!(unsubscribed, vec![short_lived]);
    assert_eq!(reclaimed, vec![short_lived]);

    ctx.step(|p| {
        assert_eq!(p.get::<Velocity>(movers[0]), Some(&Velocity(2.0)));
        assert_eq!(p.get::<Position>(movers[0]), Some(&Position(2.0)));
        assert_eq!(p.get::<Color>(movers[4]), Some(&Color(4)));
        assert_eq!(p.get::<Color>(movers[3]), None);
        assert_eq!(p.system::<Count>().total, 5);
        assert_eq!(p.outputs::<Count>().iter().sum::<usize>(), 5);
        assert_eq!(p.get::<Mesh>(tagged), Some(&Mesh(vec![1])));
        // The deferred entity exists.
        assert_eq!(p.len(), 12);
        // Run only the chain from `age`: `age` and `grow`.
        p.run_from::<(Age,), f32>(&1.0);
        assert_eq!(p.get::<Mesh>(tagged), Some(&Mesh(vec![1, 1])));
    });
    assert!(!ctx.is_alive(tagged), "life reached 0");

    // The fixed limit: 64 entities at most, errors beyond, room after kills.
    let full = ctx.step(|p| {
        let mut made = Vec::new();
        while let Ok(e) = p.create() {
            made.push(e);
        }
        assert_eq!(p.create().unwrap_err().limit, 64);
        made
    });
    ctx.step(|p| {
        p.kill(full[0]);
    });
    ctx.step(|p| assert!(p.create().is_ok()));
}
