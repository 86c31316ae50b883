pub struct Position(pub f32);
#[derive(Default)]
pub struct Time(pub f32);
#[derive(Default)]
pub struct Score(pub u32);
#[derive(Default)]
pub struct Move;
#[derive(Default)]
pub struct Count;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        resources { Time }
    }
}

fn main() {
    let mut world = World::new();
    world.step(|p| p.resource_mut::<Score>().0 += 1);
}
