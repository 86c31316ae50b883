//! The files of ecs-core form a DAG of concepts: no file reaches, through
//! the `crate::` paths it names, a file that names it back (style.md). A
//! cycle fails this test with the files around it.
//!
//! One exception, [`ENTRY_POINTS`]: `Context`'s entry points are declared
//! beside `Context`, though their signatures name the higher concepts they
//! hand out (the step proxy, the `System` trait), because rustc names an
//! inherent method by its type's path (`Context::<Cx>::step`) only when the
//! `impl` sits in the type's module; elsewhere, errors would read
//! `ecs_core::refresh::<impl ecs::Context<Cx>>::step`. Their bodies live
//! with those concepts. The test fails if an exception is no longer needed.
//!
//! A file's edges are the modules its `crate::a::b::Item` paths resolve to
//! (the longest module prefix, following a directory module's `pub use
//! child::Item` to the child). `super::` paths stay inside a directory
//! module and are not followed; comments are skipped.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// Module path (`proxy::defer`) of every source file, with its text.
fn sources() -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap().with_extension("");
                let mut name = rel.to_str().unwrap().replace('/', "::");
                if let Some(parent) = name.strip_suffix("::mod") {
                    name = parent.to_owned();
                }
                out.insert(name, fs::read_to_string(&path).unwrap());
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    walk(&root, &root, &mut out);
    out
}

/// Identifiers in `s`, in order.
fn idents(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// The paths after each `crate::` in `code`, each as its segments (a
/// braced list `crate::a::{B, C}` gives `a::B` and `a::C`).
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let base: Vec<String> = rest[..end]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        if rest[end..].starts_with('{') {
            let list = &rest[end + 1..rest[end..].find('}').map_or(rest.len(), |i| end + i)];
            for name in idents(list) {
                let mut p = base.clone();
                p.push(name.to_owned());
                paths.push(p);
            }
        } else {
            paths.push(base);
        }
    }
    paths
}

/// `text` without its line comments (doc comments included).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Each module's edges to the other modules its paths name.
fn edges(sources: &BTreeMap<String, String>) -> BTreeMap<String, Vec<String>> {
    let sources: BTreeMap<String, String> = sources.iter().map(|(m, text)| (m.clone(), code_of(text))).collect();
    // `pub use child::{A, B};` in a directory module: `crate::dir::A` is the
    // child's.
    let mut reexports = BTreeMap::new();
    for (module, code) in &sources {
        for (at, _) in code
            .match_indices("pub use ")
            .chain(code.match_indices("pub(crate) use "))
        {
            let stmt = &code[at..];
            let stmt = &stmt[stmt.find("use ").unwrap() + 4..stmt.find(';').unwrap_or(stmt.len())];
            let mut words = idents(stmt);
            let Some(child) = words.next() else { continue };
            let child = if module == "lib" {
                child.to_owned()
            } else {
                format!("{module}::{child}")
            };
            if sources.contains_key(&child) {
                for name in words {
                    reexports.insert((module.clone(), name.to_owned()), child.clone());
                }
            }
        }
    }
    let resolve = |path: &[String]| -> Option<String> {
        (1..=path.len()).rev().find_map(|i| {
            let module = path[..i].join("::");
            sources.contains_key(&module).then(|| {
                path.get(i)
                    .and_then(|next| reexports.get(&(module.clone(), next.clone())))
                    .cloned()
                    .unwrap_or(module)
            })
        })
    };
    sources
        .iter()
        .map(|(module, code)| {
            let mut to: Vec<String> = crate_paths(code)
                .iter()
                .filter_map(|p| resolve(p))
                .filter(|t| t != module && t != "lib")
                .collect();
            to.sort();
            to.dedup();
            (module.clone(), to)
        })
        .collect()
}

/// A cycle of `edges`, if any, as the modules around it.
fn find_cycle(edges: &BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    fn visit(
        m: &str,
        edges: &BTreeMap<String, Vec<String>>,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        marks.insert(m.to_owned(), Mark::OnPath);
        path.push(m.to_owned());
        for next in &edges[m] {
            match marks[next.as_str()] {
                Mark::OnPath => {
                    let start = path.iter().position(|p| p == next).unwrap();
                    let mut cycle = path[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(cycle) = visit(next, edges, marks, path) {
                        return Some(cycle);
                    }
                }
                Mark::Done => {}
            }
        }
        path.pop();
        marks.insert(m.to_owned(), Mark::Done);
        None
    }
    let mut marks: BTreeMap<String, Mark> = edges.keys().map(|k| (k.clone(), Mark::New)).collect();
    for m in edges.keys() {
        if marks[m.as_str()] == Mark::New
            && let Some(cycle) = visit(m, edges, &mut marks, &mut Vec::new())
        {
            return Some(cycle);
        }
    }
    None
}

/// Edges left out of the graph, each with the item that needs it:
/// `Context::step`/`step_with` (their closures take a `Step`) and
/// `Context::run_system` (bound by `System`), declared in `context.rs` for
/// their names in errors (the module's documentation says why).
const ENTRY_POINTS: [(&str, &str); 2] = [("context", "proxy::step"), ("context", "system")];

#[test]
fn ecs_core_files_form_a_dag() {
    let mut edges = edges(&sources());
    for (from, to) in ENTRY_POINTS {
        let list = edges.get_mut(from).unwrap();
        let at = list.iter().position(|t| t == to);
        assert!(at.is_some(), "{from} no longer names {to}: remove it from ENTRY_POINTS");
        list.remove(at.unwrap());
    }
    // The parser sees the crate: the files every runtime concept builds on.
    assert!(edges["context"].contains(&"decl".to_owned()), "{:?}", edges["context"]);
    assert!(
        edges["proxy::data"].contains(&"proxy::defer".to_owned()),
        "{:?}",
        edges["proxy::data"]
    );
    if let Some(cycle) = find_cycle(&edges) {
        panic!("ecs-core's files import each other in a cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn a_cycle_is_found_and_named() {
    let mut sources = BTreeMap::new();
    sources.insert("lib".to_owned(), "mod a; mod b; mod c;".to_owned());
    sources.insert("a".to_owned(), "use crate::b::B;".to_owned());
    sources.insert("b".to_owned(), "use crate::c::{C, D};".to_owned());
    sources.insert("c".to_owned(), "fn f() -> crate::a::A { todo!() }".to_owned());
    let cycle = find_cycle(&edges(&sources)).expect("a -> b -> c -> a");
    assert_eq!(cycle, ["a", "b", "c", "a"]);
    sources.insert("c".to_owned(), "// crate::a::A in a comment".to_owned());
    assert_eq!(find_cycle(&edges(&sources)), None);
}
