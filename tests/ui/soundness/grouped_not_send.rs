// `Grouped` is `Send` and `Sync` whatever its members, because the only way
// to make one requires every member it will hold to be both: a group storage
// with an `Rc` member is refused.
use ecs::storage::Grouped;
use ecs::EntityLimit;
use std::rc::Rc;

fn main() {
    let group = Grouped::<(Rc<u8>, u32)>::new(EntityLimit::Fixed(4));
    std::thread::spawn(move || drop(group));
}
