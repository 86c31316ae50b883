//! `run_from` accepts independent systems across chunks of 16 systems.
use ecs::{Data, System};
pub struct Position(pub f32);
#[derive(Default)]
pub struct S0;
#[derive(Default)]
pub struct S1;
#[derive(Default)]
pub struct S2;
#[derive(Default)]
pub struct S3;
#[derive(Default)]
pub struct S4;
#[derive(Default)]
pub struct S5;
#[derive(Default)]
pub struct S6;
#[derive(Default)]
pub struct S7;
#[derive(Default)]
pub struct S8;
#[derive(Default)]
pub struct S9;
#[derive(Default)]
pub struct S10;
#[derive(Default)]
pub struct S11;
#[derive(Default)]
pub struct S12;
#[derive(Default)]
pub struct S13;
#[derive(Default)]
pub struct S14;
#[derive(Default)]
pub struct S15;
#[derive(Default)]
pub struct S16;
#[derive(Default)]
pub struct S17;
#[derive(Default)]
pub struct S18;
#[derive(Default)]
pub struct S19;

ecs::declare_context! {
    pub context World {
        components { Position: contiguous; }
        systems {
            s0: S0 { read: [Position] }
            s1: S1 { read: [Position] }
            s2: S2 { read: [Position] }
            s3: S3 { read: [Position] }
            s4: S4 { read: [Position] }
            s5: S5 { read: [Position] }
            s6: S6 { read: [Position] }
            s7: S7 { read: [Position] }
            s8: S8 { read: [Position] }
            s9: S9 { read: [Position] }
            s10: S10 { read: [Position], after: [s1] }
            s11: S11 { read: [Position] }
            s12: S12 { read: [Position] }
            s13: S13 { read: [Position] }
            s14: S14 { read: [Position] }
            s15: S15 { read: [Position] }
            s16: S16 { read: [Position] }
            s17: S17 { read: [Position] }
            s18: S18 { read: [Position], after: [s10] }
            s19: S19 { read: [Position] }
        }
    }
}

impl System<World> for S0 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S1 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S2 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S3 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S4 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S5 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S6 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S7 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S8 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S9 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S10 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S11 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S12 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S13 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S14 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S15 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S16 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S17 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S18 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
impl System<World> for S19 {
    fn process(&self, _: &mut Data<'_, World, Self>, _: &()) {}
}
fn main() {
    let mut w = World::new();
    w.step(|p| p.run_from::<(S0, S17, S10, S19), ()>(&()));
    w.step(|p| p.run_from::<(S18,), ()>(&()));
}
