mod a {
    #[derive(Default)]
    pub struct Time(pub f32);
}
mod b {
    #[derive(Default)]
    pub struct Time(pub f64);
}

ecs::declare_context! {
    pub context World {
        resources { a::Time, b::Time }
    }
}

fn main() {}
