//! Pins the system allocator's thresholds before anything is measured.
//!
//! glibc's malloc returns memory to the kernel (trims the heap, unmaps large
//! blocks) by thresholds that it moves as the program frees large blocks, so
//! whether creating and dropping a world of ~1 MB costs fresh, page-faulting
//! memory on every iteration depended on which workloads had run before
//! (3-4× for `simple_insert` between `--only simple_insert` and a full run).
//! Fixed, high thresholds keep freed memory in the heap for every
//! implementation alike, as a long-running program's heap settles to.

/// Fixes glibc's mmap and trim thresholds at 256 MiB (no-op elsewhere).
pub fn pin_thresholds() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const HIGH: libc::c_int = 256 << 20;
        // SAFETY: `mallopt` only sets allocator parameters; it is called
        // before any other thread exists.
        let ok = unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, HIGH) == 1 && libc::mallopt(libc::M_TRIM_THRESHOLD, HIGH) == 1
        };
        if !ok {
            eprintln!("warning: could not pin malloc's thresholds; simple_insert may vary with heap state");
        }
    }
}
