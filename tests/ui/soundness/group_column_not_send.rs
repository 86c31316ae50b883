// A standalone column of one member of a group holds only that member's
// values: it is made only for a member that is `Send` and `Sync`, whatever
// the other members are.
use ecs::storage::{GroupColumn, Storage};
use ecs::EntityLimit;
use std::rc::Rc;

fn main() {
    // Member 1, a `u32`: allowed (the `Rc` member is never stored in it).
    let _fine = GroupColumn::<(Rc<u8>, u32), 1>::new(EntityLimit::Fixed(4));
    // Member 0, the `Rc`: refused.
    let column = GroupColumn::<(Rc<u8>, u32), 0>::new(EntityLimit::Fixed(4));
    std::thread::spawn(move || drop(column));
}
