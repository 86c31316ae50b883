//! Issue #22, finding 7: a huge thread count built a pool of 65 535 workers
//! over minutes. The DSL rejects a `threads` setting above 1024
//! (`tests/ui/declaration/threads_too_many.rs`); at run time
//! `with_threads` caps the count at 1024.

pub struct Position(pub f32);

ecs::declare_context! {
    pub context Small {
        settings { threads: 1 }
        components { Position: contiguous; }
    }
}

#[test]
fn with_threads_caps_a_huge_count_at_1024() {
    let ctx = Small::with_threads(SmallSystems {}, Some(100_000));
    assert_eq!(ctx.threads(), 1024);
}

#[test]
fn with_threads_keeps_a_reasonable_count() {
    let ctx = Small::with_threads(SmallSystems {}, Some(3));
    assert_eq!(ctx.threads(), 3);
    let ctx = Small::with_threads(SmallSystems {}, Some(0));
    assert_eq!(ctx.threads(), 1);
}
