//! Pins the names at the facade's crate root, so that a new public item
//! lands there only by a decision: README's "Where a new public item goes"
//! says where each kind belongs, and this list changes with it.
//!
//! Reads `src/lib.rs` (the root has no item of its own but re-exports and
//! modules) and compares every name it makes public at the root with the
//! list below. tests/ui/surface checks the other side: internals that used
//! to be at the root no longer are.

/// Every public name at the root of `ecs`.
const ROOT: &[&str] = &[
    "Adapters",
    "Context",
    "ColumnSystem",
    "Columns",
    "Consume",
    "ContextFull",
    "Data",
    "Defer",
    "Entity",
    "EntityId",
    "EntityLimit",
    "EntityMut",
    "InstanceKey",
    "Instances",
    "InstancesMut",
    "Layout",
    "Liveness",
    "Lookup",
    "Stream",
    "Many",
    "ManyMut",
    "ManyRef",
    "NameError",
    "NoSuchEntity",
    "PreparedQuery",
    "QueryIter",
    "RefreshEvents",
    "Spawned",
    "Step",
    "System",
    "View",
    "__private",
    "declare_context",
    "save",
    "storage",
    "traits",
];

/// The public names of the top-level items of `src`: `pub use a::{b, c}`,
/// `pub use a::b`, `pub mod m`, `pub fn f` (lines that start a top-level
/// item; a `pub use` may run over several lines).
fn root_names(src: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut lines = src.lines();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("pub use ") {
            let mut item = rest.to_string();
            while !item.contains(';') {
                item.push_str(lines.next().expect("a `pub use` ends with `;`"));
            }
            let item = item.split(';').next().unwrap();
            let list = match item.split_once('{') {
                Some((_, list)) => list.trim_end_matches('}').to_string(),
                None => item.rsplit("::").next().unwrap().to_string(),
            };
            names.extend(list.split(',').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()));
        } else if let Some(rest) = line.strip_prefix("pub ") {
            let mut words = rest.split_whitespace();
            let kind = words.next().unwrap_or_default();
            assert!(
                matches!(kind, "mod"),
                "the crate root defines a `pub {kind}` item: put it in ecs-core and re-export it (README: \"Where a new public item goes\")"
            );
            let name = words.next().expect("a name").trim_end_matches([';', '{']);
            names.push(name.to_string());
        }
    }
    names.sort();
    names
}

#[test]
fn crate_root_holds_only_the_listed_names() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap();
    let mut expected: Vec<String> = ROOT.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(
        root_names(&src),
        expected,
        "the crate root of `ecs` changed: README's \"Where a new public item goes\" says whether the new item belongs \
         at the root, in `ecs::traits`, `ecs::storage` or `ecs::__private`; update ROOT if it is the root"
    );
}

#[test]
fn reads_multi_line_lists_and_modules() {
    let src = "pub use a::{\n    B, C,\n    D,\n};\npub use e::F;\n#[doc(hidden)]\npub mod g {\n    pub use h::*;\n}\n";
    assert_eq!(root_names(src), ["B", "C", "D", "F", "g"]);
}
