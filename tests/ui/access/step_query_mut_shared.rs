//! `query` borrows the step proxy shared: a query that writes needs
//! `query_mut`.
pub struct Position(pub f32);

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems {}
    }
}

fn main() {
    let mut w = World::new();
    w.step(|p| {
        for (_, x) in p.query::<&mut Position>() {
            x.0 += 1.0;
        }
    });
}
