//! `many` components from a crate outside the workspace: seed 004's
//! explosion, one entity with smoke, rubble and sparks emitters, each
//! instance walked by a split system on 2 threads, and each entity's
//! instances as one view; instances added and removed from the step proxy,
//! in place and deferred, referred to by stable keys.
use ecs::{Data, EntityId, InstanceKey, Instances, InstancesMut, Many, System};

#[derive(Clone, Debug, PartialEq)]
pub struct Emitter {
    pub kind: &'static str,
    pub particles: u32,
}
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position(pub f32);

#[derive(Default)]
pub struct Emit;
#[derive(Default)]
pub struct Fade;

ecs::declare_context! {
    pub context World {
        settings { entities: dynamic(8), inner_parallelism: allow, threads: 2 }
        components {
            Position: contiguous;
            /// Particle emitters: several per explosion.
            Emitter: many;
            /// Rare sets live in a sparse set.
            Debris: many(sparse_set);
        }
        systems {
            emit: Emit { read: [Position], write: [Emitter], parallelism: split_every(2) }
            fade: Fade { read: [Emitter], after: [emit], output: u32 }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Debris(pub u8);

impl System<World> for Emit {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        data.for_each_instance::<&mut Emitter, &Position>(|e, _| e.particles += 10);
        // Rubble settles: one more burst on entities that hold some.
        data.for_each::<InstancesMut<Emitter>>(|mut emitters| {
            let rubble = emitters.iter().position(|e| e.kind == "rubble");
            if let Some(i) = rubble {
                emitters.get_mut(i).unwrap().particles += 1;
            }
        });
    }
}

impl System<World> for Fade {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let mut total = 0;
        data.for_entities::<(EntityId, Instances<Emitter>)>(|view, (id, emitters)| {
            total += emitters.iter().map(|e| e.particles).sum::<u32>();
            // Smoke burns out after its first burst: taken at the refresh.
            if let Some(i) = emitters.iter().position(|e| e.kind == "smoke") {
                let key = emitters.key(i).unwrap();
                view.remove_instance_later::<Emitter>(id, key);
            }
        });
        *data.output() = total;
    }
}

fn main() {
    let mut world = World::new();
    let (explosion, sparks): (ecs::Entity, InstanceKey) = world.step(|p| {
        let e = p.spawn((Position(1.0), Many::new(Emitter { kind: "smoke", particles: 0 }))).unwrap();
        p.add_instance(e, Emitter { kind: "rubble", particles: 0 }).unwrap();
        let sparks = p.add_instance(e, Emitter { kind: "sparks", particles: 0 }).unwrap();
        p.add_instance(e, Debris(3)).unwrap();
        (e, sparks)
    });
    let total = world.step(|p| {
        p.run_all(&());
        p.outputs::<Fade>()[0]
    });
    assert_eq!(total, 31);
    world.step(|p| {
        let kinds: Vec<&str> = p.instances::<Emitter>(explosion).unwrap().iter().map(|e| e.kind).collect();
        assert_eq!(kinds, ["rubble", "sparks"]);
        assert_eq!(p.instance::<Emitter>(explosion, sparks).map(|e| e.particles), Some(10));
        assert_eq!(p.instances::<Debris>(explosion).unwrap().to_vec(), [Debris(3)]);
    });
}
