//! The fragmented workloads' data, as `libs::fragmented` builds it, for the
//! examples that rebuild it outside the peers binary (`fragmented.rs`,
//! `churn_placement.rs`). A folder of its own: Cargo takes every `.rs` file
//! directly in `examples/` for an example.

#[path = "../../src/libs/fragmented/values.rs"]
mod values;
pub use values::{filler, CHURN_STEP, ENTITIES};

macro_rules! components {
    ($($name:ident($ty:ty);)+) => {$(
        #[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::prelude::Component)]
        pub struct $name(pub $ty);
    )+};
}

components! {
    Pos([f32; 2]);
    Vel([f32; 2]);
    F0([f32; 4]);
    F1([f32; 4]);
    F2([f32; 4]);
    F3([f32; 4]);
    F4([f32; 4]);
    F5([f32; 4]);
}

/// As `libs::fragmented::spec`: position, a velocity for one entity in ten
/// (scattered), a mask of fillers.
pub fn spec(i: usize) -> (Pos, Option<Vel>, u8) {
    let (pos, vel, fillers) = values::spec_values(i);
    (Pos(pos), vel.map(Vel), fillers)
}

/// Creates the workload's entities through step proxy `$p` and returns
/// the churned ones (every `CHURN_STEP`th) with their index. A macro: each
/// file declares its own context, whose step proxy `$p` is; the names it
/// uses (`spec`, `filler`, the components) are imported there.
macro_rules! populate {
    ($p:expr) => {{
        let p = $p;
        let mut churned = Vec::new();
        for i in 0..ENTITIES {
            let (pos, vel, m) = spec(i);
            let e = p.spawn((pos,)).unwrap();
            if let Some(v) = vel {
                p.add(e, v).unwrap();
            }
            let f = |k| filler(i, k);
            if m & 1 != 0 {
                p.add(e, F0(f(0))).unwrap();
            }
            if m & 2 != 0 {
                p.add(e, F1(f(1))).unwrap();
            }
            if m & 4 != 0 {
                p.add(e, F2(f(2))).unwrap();
            }
            if m & 8 != 0 {
                p.add(e, F3(f(3))).unwrap();
            }
            if m & 16 != 0 {
                p.add(e, F4(f(4))).unwrap();
            }
            if m & 32 != 0 {
                p.add(e, F5(f(5))).unwrap();
            }
            if i.is_multiple_of(CHURN_STEP) {
                churned.push((i, e));
            }
        }
        churned
    }};
}
pub(crate) use populate;
