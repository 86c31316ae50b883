//! `cargo doc` on a user crate shows what `declare_context!` generated: the
//! component table, the resource table, the system table, the dependency graph and the settings.

use std::path::Path;
use std::process::Command;

/// Writes the user crate's manifest, and the workspace's `Cargo.lock`
/// beside it, into `dir`: the crate builds with the versions the workspace
/// is tested with, and running the test changes no tracked file.
fn user_crate(root: &Path, dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).expect("target dir is writable");
    let manifest = format!(
        "# Written by tests/docs.rs: a user crate, not a workspace member.\n\
         [package]\nname = \"doc_crate\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\
         [lib]\npath = {:?}\n\
         [dependencies]\necs = {{ path = {:?} }}\n\
         [workspace]\n",
        root.join("tests/doc_crate/lib.rs"),
        root
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("manifest written");
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("lock copied");
    dir.join("Cargo.toml")
}

#[test]
fn rustdoc_shows_tables_and_graph() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = root.join("target").join("doc-crate");
    let manifest = user_crate(root, &target.join("crate"));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["doc", "--no-deps", "--quiet", "--manifest-path"])
        .arg(manifest)
        .arg("--target-dir")
        .arg(&target)
        .status()
        .expect("cargo doc runs");
    assert!(status.success(), "cargo doc failed");
    let html = std::fs::read_to_string(target.join("doc/doc_crate/struct.Documented.html")).expect("page exists");
    // The user's own doc comment is carried over.
    assert!(html.contains("The documented context."));
    // Component table: type, storage, readers, writers, the user's docs.
    for cell in [
        "<th>component</th>",
        "<td><code>Position</code></td><td><code>contiguous</code></td><td><code>draw</code></td><td><code>movement</code></td><td>Position and velocity, one buffer each.</td>",
        "<td><code>Color</code></td><td><code>sparse_set</code></td><td><code>draw</code>, <code>count</code></td>",
    ] {
        assert!(html.contains(cell), "missing component cell {cell}");
    }
    // System table: type, reads, writes, dependencies, parallelism, output.
    for cell in [
        "<th>system</th>",
        "<td><code>movement</code></td><td><code>Move</code></td><td><code>Velocity</code>, <code>Time</code></td><td><code>Position</code></td><td>—</td><td>split evenly per core</td><td>—</td><td>Integrates velocities.</td>",
        "<td><code>draw</code></td><td><code>Draw</code></td><td><code>Position</code>, <code>Color</code></td><td>—</td><td><code>movement</code></td><td>none</td><td><code>Vec&lt;u32&gt;</code></td>",
    ] {
        assert!(html.contains(cell), "missing system cell {cell}");
    }
    // Resource table: type, field of the values struct, readers, writers, docs.
    for cell in [
        "<th>resource</th>",
        "<td><code>Time</code></td><td><code>time</code></td><td><code>movement</code></td><td>—</td><td>How far a step goes.</td>",
        "<td><code>Score</code></td><td><code>score</code></td><td>—</td><td><code>count</code></td>",
    ] {
        assert!(html.contains(cell), "missing resource cell {cell}");
    }
    // The graph as text: levels and independent chains.
    assert!(html.contains("0: movement, count"), "levels");
    assert!(html.contains("1: draw"), "levels");
    assert!(html.contains("movement -&gt; draw (after movement)"), "chains");
    // Settings.
    assert!(html.contains("fixed, 1000 entities"));
    assert!(html.contains("inner parallelism: denied"));
}
