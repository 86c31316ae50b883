//! Save and restore from a crate outside the workspace, with resources and
//! a system: a snapshot to JSON and back keeps handles, values and
//! resources.
use ecs::{Data, System};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct Position(pub f32);
#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct Marked;
#[derive(Serialize, Deserialize, Default)]
pub struct Score(pub u32);
#[derive(Default)]
pub struct Count;

ecs::declare_context! {
    pub context World {
        settings { entities: fixed(8), serde: all }
        components { Position: sparse_set; Marked: tag; }
        resources { Score }
        systems { count: Count { read: [Position, Marked], write: [Score] } }
    }
}

impl System<World> for Count {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let n = data.entity_count() as u32;
        data.resource_mut::<Score>().0 += n;
    }
}

fn main() {
    let mut world = World::new();
    let (a, b) = world.step(|p| (p.spawn((Position(1.0), Marked)).unwrap(), p.spawn((Position(2.0),)).unwrap()));
    world.step(|p| p.run_all(&()));
    let json = serde_json::to_string(&world.save()).unwrap();
    let mut loaded = World::new();
    loaded.restore(serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(loaded.resource::<Score>().0, 1);
    loaded.step(|p| {
        assert_eq!(p.get::<Position>(a), Some(&Position(1.0)));
        assert!(p.has::<Marked>(a) && !p.has::<Marked>(b));
        p.run_all(&());
    });
    assert_eq!(loaded.resource::<Score>().0, 2);
}
