//! Named entities and a `Liveness` handle, from a crate outside the
//! workspace: naming, lookups from the step proxy and a system, the error
//! values, and a check from another thread.

use ecs::{Data, EntityId, Liveness, NameError, System};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hp(pub u32);

/// Records the id of the entity named "boss" it sees.
#[derive(Default)]
pub struct Find;

ecs::declare_context! {
    pub context World {
        settings { entities: dynamic(8), threads: 2 }
        components { Hp: contiguous; }
        systems { find: Find { read: [Hp], output: Option<EntityId> } }
    }
}

impl System<World> for Find {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let boss = data.named("boss");
        if let Some(id) = boss {
            assert_eq!(data.name_of(id), Some("boss"));
        }
        *data.output() = boss;
    }
}

fn main() {
    let mut world = World::new();
    let liveness: Liveness = world.liveness();
    let boss = world.step(|p| {
        let boss = p.spawn((Hp(100),)).unwrap();
        let minion = p.spawn((Hp(1),)).unwrap();
        p.set_name(boss, "boss").unwrap();
        assert_eq!(p.set_name(minion, "boss"), Err(NameError::Taken(boss)));
        p.run_all(&());
        assert_eq!(p.outputs::<Find>()[0], p.id_of(boss));
        boss
    });
    let seen = std::thread::spawn({
        let liveness = liveness.clone();
        move || liveness.is_alive(boss)
    });
    assert!(seen.join().unwrap());
    world.step(|p| p.kill(boss));
    assert!(!liveness.is_alive(boss));
    assert_eq!(world.named("boss"), None);
}
