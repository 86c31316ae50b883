//! Expansion snapshots: what the macro emits for a small and a medium
//! declaration, pretty-printed under `ecs-macros/tests/expand/`, so a change
//! to the generated code shows up in review. Regenerate with
//! `UPDATE_EXPAND=1 cargo test -p ecs-macros snapshot` and read the diff.

use crate::{ast, expand};
use std::path::Path;

const SMALL: &str = "
    /// A tiny simulation.
    pub context World {
        settings { entities: fixed(10_000), inner_parallelism: allow, threads: auto }
        components {
            Position, Velocity: contiguous;
            Life: sparse_set;
        }
        systems {
            movement: Move { read: [Velocity], write: [Position], parallelism: split_evenly_per_core }
            aging: Age { write: [Life], output: usize }
        }
    }";

const RESOURCES: &str = "
    pub context Game {
        settings { serde: all }
        components { Position: contiguous; }
        resources { Time, SpatialGrid }
        systems {
            movement: Move { read: [Time], write: [Position] }
            index: Index { read: [Position], write: [SpatialGrid], after: [movement] }
        }
    }";

fn check(name: &str, source: &str) {
    let decl: ast::Declaration = syn::parse_str(source).expect("parses");
    let file: syn::File = syn::parse2(expand(&decl).expect("valid")).expect("the expansion is a file of items");
    let pretty = prettyplease::unparse(&file);
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expand")
        .join(format!("{name}.rs"));
    if std::env::var_os("UPDATE_EXPAND").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &pretty).unwrap();
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        stored == pretty,
        "the expansion of `{name}` changed: run `UPDATE_EXPAND=1 cargo test -p ecs-macros snapshot` and review the diff of {}",
        path.display()
    );
}

#[test]
fn snapshot_small() {
    check("small", SMALL);
}

#[test]
fn snapshot_medium() {
    check("medium", &super::growth_tests::declaration(16));
}

#[test]
fn snapshot_resources_and_serde() {
    check("resources", RESOURCES);
}
