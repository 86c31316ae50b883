//! The schedule workload's entities for the examples that rebuild it
//! outside the peers binary (`callgrind.rs`, `schedule_threads.rs`). A
//! macro: each file declares its own contexts and components.

/// `schedule`'s entities (`N` of each of its four component sets),
/// spawned into `$world` (a context of the including file declaring `A` to
/// `E`), and a first step running every system.
macro_rules! spawn_schedule {
    ($world:ident) => {
        $world.step(|p| {
            for _ in 0..N {
                p.spawn((A(0.0), B(1.0))).expect("room");
            }
            for _ in 0..N {
                p.spawn((A(0.0), B(1.0), C(2.0))).expect("room");
            }
            for _ in 0..N {
                p.spawn((A(0.0), B(1.0), C(2.0), D(3.0))).expect("room");
            }
            for _ in 0..N {
                p.spawn((A(0.0), B(1.0), C(2.0), E(4.0))).expect("room");
            }
        });
        $world.step(|p| p.run_all(&()));
    };
}
