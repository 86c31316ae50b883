//! A step whose roots are more than the scheduler publishes to idle
//! threads without the lock (64): the first 64 roots are claimed from the
//! published bits, the others go through the queue. Every system runs once
//! per step, on one thread and on two.

use ecs::{Data, System};
use std::sync::atomic::{AtomicU32, Ordering};

/// Component number `N`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct C<const N: usize>(pub u32);

/// Increments component `N` of every entity holding it.
#[derive(Default)]
pub struct S<const N: usize>;

/// `S<n>`'s `System` impl for each `n`: each names its own component (the
/// declaration's access checks are per system, not for every `N`).
macro_rules! systems_impl {
    ($($n:literal),*) => {
        $(
            impl System<Ctx> for S<$n> {
                fn process(&self, data: &mut Data<'_, Ctx, Self>, _: &()) {
                    data.for_each::<(&mut C<$n>,)>(|(c,)| c.0 += 1);
                    RUNS[$n].fetch_add(1, Ordering::Relaxed);
                }
            }
        )*
    };
}

macro_rules! many_roots_test {
    ($module:ident, $threads:literal) => {
        mod $module {
            use super::*;

            ecs::declare_context! {
                pub context Ctx {
                    settings { entities: dynamic(4), threads: $threads }
                    components { C<0>, C<1>, C<2>, C<3>, C<4>, C<5>, C<6>, C<7>, C<8>, C<9>, C<10>, C<11>, C<12>, C<13>, C<14>, C<15>, C<16>, C<17>, C<18>, C<19>, C<20>, C<21>, C<22>, C<23>, C<24>, C<25>, C<26>, C<27>, C<28>, C<29>, C<30>, C<31>, C<32>, C<33>, C<34>, C<35>, C<36>, C<37>, C<38>, C<39>, C<40>, C<41>, C<42>, C<43>, C<44>, C<45>, C<46>, C<47>, C<48>, C<49>, C<50>, C<51>, C<52>, C<53>, C<54>, C<55>, C<56>, C<57>, C<58>, C<59>, C<60>, C<61>, C<62>, C<63>, C<64>, C<65>, C<66>, C<67>, C<68>, C<69>: contiguous; }
                    systems {
                    s0: S<0> { write: [C<0>] }
                    s1: S<1> { write: [C<1>] }
                    s2: S<2> { write: [C<2>] }
                    s3: S<3> { write: [C<3>] }
                    s4: S<4> { write: [C<4>] }
                    s5: S<5> { write: [C<5>] }
                    s6: S<6> { write: [C<6>] }
                    s7: S<7> { write: [C<7>] }
                    s8: S<8> { write: [C<8>] }
                    s9: S<9> { write: [C<9>] }
                    s10: S<10> { write: [C<10>] }
                    s11: S<11> { write: [C<11>] }
                    s12: S<12> { write: [C<12>] }
                    s13: S<13> { write: [C<13>] }
                    s14: S<14> { write: [C<14>] }
                    s15: S<15> { write: [C<15>] }
                    s16: S<16> { write: [C<16>] }
                    s17: S<17> { write: [C<17>] }
                    s18: S<18> { write: [C<18>] }
                    s19: S<19> { write: [C<19>] }
                    s20: S<20> { write: [C<20>] }
                    s21: S<21> { write: [C<21>] }
                    s22: S<22> { write: [C<22>] }
                    s23: S<23> { write: [C<23>] }
                    s24: S<24> { write: [C<24>] }
                    s25: S<25> { write: [C<25>] }
                    s26: S<26> { write: [C<26>] }
                    s27: S<27> { write: [C<27>] }
                    s28: S<28> { write: [C<28>] }
                    s29: S<29> { write: [C<29>] }
                    s30: S<30> { write: [C<30>] }
                    s31: S<31> { write: [C<31>] }
                    s32: S<32> { write: [C<32>] }
                    s33: S<33> { write: [C<33>] }
                    s34: S<34> { write: [C<34>] }
                    s35: S<35> { write: [C<35>] }
                    s36: S<36> { write: [C<36>] }
                    s37: S<37> { write: [C<37>] }
                    s38: S<38> { write: [C<38>] }
                    s39: S<39> { write: [C<39>] }
                    s40: S<40> { write: [C<40>] }
                    s41: S<41> { write: [C<41>] }
                    s42: S<42> { write: [C<42>] }
                    s43: S<43> { write: [C<43>] }
                    s44: S<44> { write: [C<44>] }
                    s45: S<45> { write: [C<45>] }
                    s46: S<46> { write: [C<46>] }
                    s47: S<47> { write: [C<47>] }
                    s48: S<48> { write: [C<48>] }
                    s49: S<49> { write: [C<49>] }
                    s50: S<50> { write: [C<50>] }
                    s51: S<51> { write: [C<51>] }
                    s52: S<52> { write: [C<52>] }
                    s53: S<53> { write: [C<53>] }
                    s54: S<54> { write: [C<54>] }
                    s55: S<55> { write: [C<55>] }
                    s56: S<56> { write: [C<56>] }
                    s57: S<57> { write: [C<57>] }
                    s58: S<58> { write: [C<58>] }
                    s59: S<59> { write: [C<59>] }
                    s60: S<60> { write: [C<60>] }
                    s61: S<61> { write: [C<61>] }
                    s62: S<62> { write: [C<62>] }
                    s63: S<63> { write: [C<63>] }
                    s64: S<64> { write: [C<64>] }
                    s65: S<65> { write: [C<65>] }
                    s66: S<66> { write: [C<66>] }
                    s67: S<67> { write: [C<67>] }
                    s68: S<68> { write: [C<68>] }
                    s69: S<69> { write: [C<69>] }
                    }
                }
            }

            systems_impl!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69);

            /// Runs of each system.
            static RUNS: [AtomicU32; 70] = [const { AtomicU32::new(0) }; 70];

            #[test]
            fn every_root_runs_once_per_step() {
                let mut ctx = Ctx::new();
                let e = ctx.step(|p| p.spawn((C::<0>(0), C::<63>(0), C::<64>(0), C::<69>(0))).unwrap());
                for step in 1..=20 {
                    ctx.step(|p| p.run_all(&()));
                    for (n, runs) in RUNS.iter().enumerate() {
                        assert_eq!(runs.load(Ordering::Relaxed), step, "system {n} after step {step}");
                    }
                }
                ctx.step(|p| {
                    assert_eq!(p.get::<C<0>>(e), Some(&C(20)));
                    assert_eq!(p.get::<C<63>>(e), Some(&C(20)), "the last published root");
                    assert_eq!(p.get::<C<64>>(e), Some(&C(20)), "the first queued root");
                    assert_eq!(p.get::<C<69>>(e), Some(&C(20)));
                });
            }
        }
    };
}

many_roots_test!(one_thread, 1);
many_roots_test!(two_threads, 2);
