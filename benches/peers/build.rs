//! Records, for the report, the versions Cargo.lock resolved for the crates
//! compared and the compiler that builds the binary.

use std::process::Command;

/// The crates whose versions the report gives.
const CRATES: &[&str] = &[
    "ecs", "bevy_ecs", "hecs", "legion", "specs", "shipyard", "gecs", "rayon",
];

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=build.rs");
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    let versions: Vec<String> = CRATES
        .iter()
        .filter_map(|&name| locked_version(&lock, name).map(|v| format!("{name}={v}")))
        .collect();
    println!("cargo:rustc-env=PEERS_VERSIONS={}", versions.join(";"));
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map_or_else(|| "unknown".into(), |s| s.trim().to_string());
    println!("cargo:rustc-env=PEERS_RUSTC={version}");
}

/// The version of the first `[[package]]` named `name` in a Cargo.lock.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{name}\"") {
            let version = lines.next()?.trim().strip_prefix("version = \"")?.strip_suffix('"')?;
            return Some(version.to_string());
        }
    }
    None
}
