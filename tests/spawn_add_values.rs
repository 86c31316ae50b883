//! `spawn` and `add` with values that need a drop and values that do not,
//! in every built-in storage: what is stored, what is handed back, and
//! that a refused bundle or value is dropped once. A debug build runs
//! these through the untyped cores (`Defer::spawn_one`, `Context::add_raw`,
//! the columns' byte-copying `insert_new` for values without a drop, the
//! typed one for the others); an optimised build (`cargo test --release`)
//! through the typed code: both must pass.

use ecs::{ContextFull, NoSuchEntity};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plain(pub u32);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sparse(pub u64);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hashed(pub u16);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Left(pub u8);
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Right(pub u32);
pub struct Flag;

/// Values holding a counted `Arc`, one type per storage.
#[derive(Debug, Clone)]
pub struct CountedC(pub Arc<()>);
#[derive(Debug, Clone)]
pub struct CountedS(pub Arc<()>);
#[derive(Debug, Clone)]
pub struct CountedH(pub Arc<()>);
#[derive(Debug, Clone)]
pub struct CountedG(pub Arc<()>);
#[derive(Debug, Clone)]
pub struct MarkG(pub u8);

ecs::declare_context! {
    pub context World {
        settings { entities: fixed(2), threads: 1 }
        components {
            Plain, CountedC: contiguous;
            Sparse, CountedS: sparse_set;
            Hashed, CountedH: hash_map;
            (Left, Right): grouped;
            (MarkG, CountedG): grouped;
            Flag: tag;
        }
        systems {}
    }
}

fn counted(rc: &Arc<()>) -> (CountedC, CountedS, CountedH, CountedG) {
    (
        CountedC(rc.clone()),
        CountedS(rc.clone()),
        CountedH(rc.clone()),
        CountedG(rc.clone()),
    )
}

#[test]
fn spawned_values_are_stored_and_a_refused_bundle_is_dropped_once() {
    let rc = Arc::new(());
    let mut world = World::new();
    world.step(|p| {
        let a = p
            .spawn((Plain(1), Sparse(2), Hashed(3), Left(4), Right(5), Flag))
            .unwrap();
        let b = p.spawn(counted(&rc)).unwrap();
        assert_eq!(Arc::strong_count(&rc), 5);
        assert_eq!(p.get::<Plain>(a), Some(&Plain(1)));
        assert_eq!(p.get::<Sparse>(a), Some(&Sparse(2)));
        assert_eq!(p.get::<Hashed>(a), Some(&Hashed(3)));
        assert_eq!(p.get::<Left>(a), Some(&Left(4)));
        assert_eq!(p.get::<Right>(a), Some(&Right(5)));
        assert!(p.has::<Flag>(a) && !p.has::<CountedC>(a));
        assert!(Arc::ptr_eq(&p.get::<CountedG>(b).unwrap().0, &rc));
        assert!(!p.has::<Plain>(b));
        // Full (two entities): the bundle is dropped, once, and nothing
        // else changes.
        assert_eq!(p.spawn(counted(&rc)), Err(ContextFull { limit: 2 }));
        assert_eq!(Arc::strong_count(&rc), 5);
        assert_eq!(p.spawn((Plain(9),)), Err(ContextFull { limit: 2 }));
        assert_eq!(p.len(), 2);
        p.kill(b);
    });
    // The killed entity's values are dropped by the refresh.
    assert_eq!(Arc::strong_count(&rc), 1);
}

#[test]
fn add_stores_hands_back_the_held_value_and_drops_a_refused_one_once() {
    let (old, new) = (Arc::new(()), Arc::new(()));
    let mut world = World::new();
    world.step(|p| {
        let e = p.spawn((Plain(1),)).unwrap();
        // Not held: stored, `None`.
        assert_eq!(p.add(e, Sparse(7)), Ok(None));
        assert_eq!(p.add(e, Hashed(8)), Ok(None));
        assert_eq!(p.add(e, Right(9)), Ok(None));
        assert_eq!(p.add(e, Flag).map(|v| v.is_none()), Ok(true));
        assert_eq!(p.add(e, CountedS(old.clone())).map(|v| v.is_none()), Ok(true));
        assert_eq!(p.add(e, CountedG(old.clone())).map(|v| v.is_none()), Ok(true));
        // Held: replaced, the old value handed back.
        assert_eq!(p.add(e, Plain(2)), Ok(Some(Plain(1))));
        assert_eq!(p.add(e, Sparse(70)), Ok(Some(Sparse(7))));
        assert_eq!(p.add(e, Right(90)), Ok(Some(Right(9))));
        let back = p.add(e, CountedS(new.clone())).unwrap().unwrap();
        assert!(Arc::ptr_eq(&back.0, &old));
        drop(back);
        let back = p.add(e, CountedG(new.clone())).unwrap().unwrap();
        assert!(Arc::ptr_eq(&back.0, &old));
        drop(back);
        assert_eq!(Arc::strong_count(&old), 1);
        assert_eq!(Arc::strong_count(&new), 3);
        assert_eq!(p.get::<Plain>(e), Some(&Plain(2)));
        assert_eq!(p.get::<Sparse>(e), Some(&Sparse(70)));
        assert_eq!(p.get::<Hashed>(e), Some(&Hashed(8)));
        assert_eq!(p.get::<Right>(e), Some(&Right(90)));
        assert!(!p.has::<Left>(e));
        p.kill(e);
        // Dead: refused, the value dropped once.
        assert_eq!(p.add(e, Plain(3)), Err(NoSuchEntity(e)));
        assert!(p.add(e, CountedH(new.clone())).is_err());
        assert!(p.add(e, CountedC(new.clone())).is_err());
        assert_eq!(Arc::strong_count(&new), 3);
    });
    assert_eq!(Arc::strong_count(&new), 1);
}
