//! The components every implementation stores (sizes as in workloads.md),
//! with the trait implementations the peers need, and the per-entity work
//! every implementation calls, so that all of them do the same arithmetic.

use crate::math::{self, Mat4};

/// Declares `f32`-backed or array-backed components with the derives and
/// `specs::Component` implementation every peer needs.
macro_rules! components {
    ($($(#[$doc:meta])* $name:ident($ty:ty);)+) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component, shipyard::Component)]
        pub struct $name(pub $ty);

        impl specs::Component for $name {
            type Storage = specs::VecStorage<Self>;
        }
    )+};
}
pub(crate) use components;

components! {
    /// A 4x4 matrix, 64 bytes.
    Transform(Mat4);
    /// A 4x4 matrix, 64 bytes: what `heavy_compute` inverts.
    Matrix4(Mat4);
    /// Three `f32`, 12 bytes.
    Position([f32; 3]);
    /// Three `f32`, 12 bytes.
    Rotation([f32; 3]);
    /// Three `f32`, 12 bytes.
    Velocity([f32; 3]);
}

/// The one-`f32` components of `schedule` and `add_remove`.
pub mod letters {
    super::components! {
        /// One `f32`.
        A(f32);
        /// One `f32`.
        B(f32);
        /// One `f32`.
        C(f32);
        /// One `f32`.
        D(f32);
        /// One `f32`.
        E(f32);
    }
}

/// The components of `frag_iter`: 26 markers of one `f32` each, and `Data`.
pub mod frag {
    super::components! {
        /// What `frag_iter` doubles.
        Data(f32);
        A(f32); B(f32); C(f32); D(f32); E(f32); F(f32); G(f32); H(f32); I(f32);
        J(f32); K(f32); L(f32); M(f32); N(f32); O(f32); P(f32); Q(f32); R(f32);
        S(f32); T(f32); U(f32); V(f32); W(f32); X(f32); Y(f32); Z(f32);
    }
}

/// The initial values of the `simple_*` and `heavy_compute` entities.
pub fn transform() -> Transform {
    Transform(math::IDENTITY)
}

/// The initial position: `simple_iter` moves it by the velocity.
pub fn position() -> Position {
    Position([1.0, 0.0, 0.0])
}

/// The initial rotation (never read).
pub fn rotation() -> Rotation {
    Rotation([1.0, 0.0, 0.0])
}

/// The initial velocity.
pub fn velocity() -> Velocity {
    Velocity([1.0, 0.0, 0.0])
}

/// The initial matrix of `heavy_compute`: a rotation about x, as in
/// ecs_bench_suite.
pub fn matrix4() -> Matrix4 {
    Matrix4(math::rotation_x(1.2))
}

/// The initial position of `heavy_compute`: a vector the rotation moves.
pub fn heavy_position() -> Position {
    Position([0.0, 1.0, 0.0])
}

/// `simple_iter`'s work on one entity: `position += velocity`.
#[inline(always)]
pub fn advance(p: &mut Position, v: &Velocity) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
    p.0[2] += v.0[2];
}

/// `heavy_compute`'s work on one entity: invert the matrix 100 times, then
/// transform the position by it.
#[inline]
pub fn heavy(m: &mut Matrix4, p: &mut Position) {
    for _ in 0..100 {
        m.0 = math::invert(&m.0).expect("a rotation is invertible");
    }
    p.0 = math::transform_vector(&m.0, p.0);
}

/// The initial values of `schedule`'s and `add_remove`'s components: every
/// one different, so that a swap shows.
pub fn letters() -> (letters::A, letters::B, letters::C, letters::D, letters::E) {
    (
        letters::A(0.0),
        letters::B(1.0),
        letters::C(2.0),
        letters::D(3.0),
        letters::E(4.0),
    )
}

/// `add_remove`'s system, on one entity holding `A` and `B`: reads both
/// (their sum, which every implementation adds up and discards).
#[inline(always)]
pub fn read_ab(a: &letters::A, b: &letters::B) -> f32 {
    a.0 + b.0
}

/// `schedule`'s work on one pair: swap the two values.
#[inline(always)]
pub fn swap(x: &mut f32, y: &mut f32) {
    core::mem::swap(x, y);
}
