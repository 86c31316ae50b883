//! A value a storage holds for an id whose bits do not record it (left by a
//! spawn whose next storage panicked) is not the id's: `View::get` and
//! `View::has` go by the entity's bits, as `Step::get` does.

use ecs::storage::{Column, HashMapStorage, Storage};
use ecs::{Data, EntityId, EntityLimit, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

#[derive(Debug, PartialEq)]
pub struct A(pub u32);
/// Its storage panics when given `Fragile(13)`.
pub struct Fragile(pub u32);

/// A hash map whose `insert` panics on `Fragile(13)`, before storing it.
pub struct FragileStorage(HashMapStorage<Fragile>);

impl Storage for FragileStorage {
    fn new(limit: EntityLimit) -> Self {
        FragileStorage(HashMapStorage::new(limit))
    }
}

// SAFETY: every method is the wrapped storage's, which keeps the contract;
// the panicking `insert` panics before touching it (the id keeps what it
// held, as the contract allows).
unsafe impl Column for FragileStorage {
    type Item = Fragile;
    fn insert(&mut self, id: EntityId, value: Fragile) -> Option<Fragile> {
        assert!(value.0 != 13, "this storage refuses 13");
        self.0.insert(id, value)
    }
    fn remove(&mut self, id: EntityId) -> Option<Fragile> {
        self.0.remove(id)
    }
    fn contains(&self, id: EntityId) -> bool {
        self.0.contains(id)
    }
    fn get(&self, id: EntityId) -> Option<&Fragile> {
        self.0.get(id)
    }
    fn get_mut(&mut self, id: EntityId) -> Option<&mut Fragile> {
        self.0.get_mut(id)
    }
    fn get_ptr(&self, id: EntityId) -> Option<NonNull<Fragile>> {
        self.0.get_ptr(id)
    }
    type Fetch = <HashMapStorage<Fragile> as Column>::Fetch;
    fn fetch_state(&self) -> Self::Fetch {
        self.0.fetch_state()
    }
    unsafe fn fetch(state: Self::Fetch, id: EntityId) -> NonNull<Fragile> {
        // SAFETY: the caller's guarantees are the wrapped storage's.
        unsafe { HashMapStorage::fetch(state, id) }
    }
}

/// Looks at `target` from inside a run: what `View` says it holds.
#[derive(Default)]
pub struct Peek {
    pub target: Option<EntityId>,
    pub seen: Option<(bool, Option<u32>)>,
}

ecs::declare_context! {
    pub context World {
        settings { entities: fixed(16), threads: 1 }
        components { A: contiguous; Fragile: custom(FragileStorage); }
        systems { peek: Peek { read: [A, Fragile] } }
    }
}

impl System<World> for Peek {
    fn process(&self, data: &mut Data<'_, World, Self>, _: &()) {
        let target = self.target.expect("a target");
        let seen = (data.has::<A>(target), data.get::<A>(target).map(|a| a.0));
        // Reported from the refresh, on the thread that calls `step`.
        data.defer(move |_| SEEN.with(|s| s.set(Some(seen))));
    }
}

thread_local! {
    static SEEN: core::cell::Cell<Option<(bool, Option<u32>)>> = const { core::cell::Cell::new(None) };
}

#[test]
fn a_value_no_entity_claims_is_not_seen_through_the_view() {
    let mut w = World::new();
    // The spawn stores `A(1)` for a fresh id, then `Fragile`'s storage
    // panics: no entity records `A` there.
    let r = catch_unwind(AssertUnwindSafe(|| {
        w.step(|p| {
            let _ = p.spawn((A(1), Fragile(13)));
        })
    }));
    assert!(r.is_err());
    // The next entity takes that id, without `A`; one more holds both, so
    // that the system runs.
    let (lone, both) = w.step(|p| {
        let lone = p.spawn((Fragile(2),)).unwrap();
        let both = p.spawn((A(5), Fragile(3))).unwrap();
        (lone, both)
    });
    let lone_id = w.id_of(lone).unwrap();
    w.step(|p| {
        assert!(!p.has::<A>(lone), "the step proxy goes by bits");
        assert_eq!(p.get::<A>(both), Some(&A(5)));
        p.system_mut::<Peek>().target = Some(lone_id);
        p.run_all(&());
    });
    assert_eq!(SEEN.with(|s| s.get()), Some((false, None)), "the view goes by bits too");
}
