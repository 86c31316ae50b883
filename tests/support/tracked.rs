//! Component types that record their drops (included by `#[path]` as
//! `mod tracked` from the tests that count every value dropped once).

use std::sync::{Arc, Mutex};

/// Which values were dropped, by their number, in order.
pub type Ledger = Arc<Mutex<Vec<u32>>>;

/// Declares component types that record their number in a [`Ledger`]
/// when dropped, and panic doing so when `bomb` is set.
macro_rules! tracked {
    ($($name:ident),+) => {$(
        /// Records its number in the ledger when dropped; panics doing so
        /// when `bomb` is set.
        #[derive(Debug)]
        pub struct $name {
            pub n: u32,
            pub bomb: bool,
            pub ledger: $crate::tracked::Ledger,
        }
        impl Drop for $name {
            fn drop(&mut self) {
                self.ledger.lock().unwrap_or_else(|e| e.into_inner()).push(self.n);
                if self.bomb {
                    panic!("a component's drop fails");
                }
            }
        }
    )+};
}
pub(crate) use tracked;
