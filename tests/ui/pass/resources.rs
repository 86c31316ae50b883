//! Resources from a crate outside the workspace: declared, given to the
//! constructor, read and written by systems and the step closure.
use ecs::{Data, System};

pub struct Position(pub f32);
#[derive(Default)]
pub struct Time(pub f32);
pub struct Limit(pub f32);
#[derive(Default)]
pub struct Score(pub u32);
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Count;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        resources { Time, Limit, Score }
        systems {
            movement: Move { read: [Time, Limit], write: [Position], parallelism: split_evenly_per_core }
            count: Count { read: [Position], write: [Score], after: [movement] }
        }
    }
}

impl System<World> for Move {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let dt = data.resource::<Time>().0;
        let limit = data.resource::<Limit>().0;
        data.for_each::<&mut Position>(|p| p.0 = (p.0 + dt).min(limit));
    }
}

impl System<World> for Count {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let n = data.entity_count() as u32;
        data.resource_mut::<Score>().0 += n;
    }
}

fn main() {
    let mut world = World::with_resources(
        WorldSystems::default(),
        WorldResources { time: Time(1.0), limit: Limit(1.5), score: Score(0) },
    );
    let e = world.step(|p| p.spawn((Position(0.0),))).unwrap();
    world.step(|p| {
        p.run_all(&());
        p.resource_mut::<Time>().0 = 2.0;
        p.run_all(&());
    });
    assert_eq!(world.resource::<Score>().0, 2);
    assert_eq!(world.step(|p| p.component::<Position>(e).0), 1.5);
}
