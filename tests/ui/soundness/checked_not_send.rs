// `Checked` is `Send` and `Sync` whatever it holds, because the only way to
// make one requires a storage that is both: an `Rc` is refused.
use std::rc::Rc;

fn main() {
    let shared = ecs::__private::Checked::new(Rc::new(1));
    std::thread::spawn(move || drop(shared));
}
