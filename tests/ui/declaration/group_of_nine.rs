pub struct A(pub f32);
pub struct B(pub f32);
pub struct C(pub f32);
pub struct D(pub f32);
pub struct E(pub f32);
pub struct F(pub f32);
pub struct G(pub f32);
pub struct H(pub f32);
pub struct I(pub f32);
#[derive(Default)]
pub struct Move;

ecs::declare_context! {
    pub context World {
        components { (A, B, C, D, E, F, G, H, I): grouped; }
        systems { movement: Move { read: [A, I], write: [B] } }
    }
}

fn main() {}
