//! `place!(K)`: what follows starts `K` bytes past a 64-byte boundary, for
//! the placement drivers (`churn_placement.rs`, `frag_placement.rs`), which
//! compile one body many times at every offset.

/// Jumps over `$k` bytes of padding placed after a 64-byte boundary, so
/// that what follows starts `$k` bytes past one (`$k` a constant).
macro_rules! place {
    ($k:expr) => {
        // x86-64 only (the machine measured); elsewhere the copies are not
        // placed.
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the assembly jumps over padding that is never executed: it
        // reads and writes no register, memory or flag.
        unsafe {
            core::arch::asm!(
                "jmp 2f",
                ".p2align 6",
                ".skip {k}, 0xcc",
                "2:",
                k = const $k,
                options(nomem, nostack, preserves_flags)
            );
        }
    };
}
