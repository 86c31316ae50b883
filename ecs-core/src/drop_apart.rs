//! [`DropApart`]: a value whose drop is a call through a function pointer,
//! in a function that is not inlined.
//!
//! A context holds its storages struct and its slots struct (one field per
//! component or system) in these. Their drop glue, every field's drop
//! inlined into one function, was copied into each codegen unit that drops
//! a context (drop glue is instantiated where it is used): at 64
//! components and 32 systems, LLVM spent about 0.3 s of a release build on
//! those copies. Through `DropApart`, each is compiled once, as the body
//! of a function of its own. (Only these two: a `DropApart` per storage or
//! per system cut the glue further, but its small functions, several per
//! type, made a debug build slower.)

use core::mem::ManuallyDrop;
use core::ops::{Deref, DerefMut};

/// A `T` dropped out of line (see the module's documentation); otherwise
/// used as a `T`, through `Deref`.
pub(crate) struct DropApart<T>(ManuallyDrop<T>);

impl<T> DropApart<T> {
    #[inline(always)]
    pub(crate) fn new(value: T) -> Self {
        DropApart(ManuallyDrop::new(value))
    }
}

impl<T> Deref for DropApart<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for DropApart<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T> Drop for DropApart<T> {
    #[inline]
    fn drop(&mut self) {
        if const { core::mem::needs_drop::<T>() } {
            let value: *mut T = &mut *self.0;
            // SAFETY: `value` points to the `T`, dropped here once: `self`
            // is being dropped, and the field is not used again.
            unsafe { drop_out_of_line(value.cast(), drop_as::<T>) };
        }
    }
}

/// Drops the `T` at `value`.
///
/// # Safety
/// `value` points to a `T` that is not used again.
unsafe fn drop_as<T>(value: *mut u8) {
    // SAFETY: forwarded from the caller.
    unsafe { value.cast::<T>().drop_in_place() }
}

/// `drop(value)`, in a function of its own: not generic, so compiled once,
/// and not inlined, so the call stays one call.
///
/// # Safety
/// `drop` may be called on `value` (`drop_as`'s contract, for its type).
#[inline(never)]
unsafe fn drop_out_of_line(value: *mut u8, drop: unsafe fn(*mut u8)) {
    // SAFETY: forwarded from the caller.
    unsafe { drop(value) }
}

#[cfg(test)]
mod tests {
    use super::DropApart;
    use std::cell::Cell;

    struct Count<'a>(&'a Cell<u32>);
    impl Drop for Count<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }

    #[test]
    fn drops_once() {
        let n = Cell::new(0);
        let a = DropApart::new((Count(&n), Count(&n)));
        assert_eq!(n.get(), 0);
        drop(a);
        assert_eq!(n.get(), 2);
    }

    #[test]
    fn a_panicking_drop_still_drops_the_rest() {
        struct Boom;
        impl Drop for Boom {
            fn drop(&mut self) {
                panic!("boom");
            }
        }
        let n = Cell::new(0);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _pair = (DropApart::new(Boom), DropApart::new(Count(&n)));
        }));
        assert!(r.is_err());
        assert_eq!(n.get(), 1);
    }
}
