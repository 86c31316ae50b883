//! Expansion size and macro time for growing declarations: the generated
//! code must grow linearly with components and systems (a quadratic piece of
//! codegen fails the ratio check), and expanding the 64-component,
//! 32-system declaration stays far below a build's noise.

use crate::{ast, expand};
use std::fmt::Write;
use std::time::Instant;

/// `components` components over five storages and `components / 2`
/// systems in four chains, with mixed parallelism and outputs; each system
/// writes its own two components and reads the chain's previous ones.
pub(crate) fn declaration(components: usize) -> String {
    let systems = components / 2;
    let mut s = String::from("pub context Stress { settings { entities: fixed(1024), threads: 2 } components {\n");
    let storages = ["contiguous", "sparse_set", "hash_map", "contiguous", "tag"];
    for c in (0..components).step_by(2) {
        if c % 10 == 6 {
            writeln!(s, "(C{c}, C{}): grouped;", c + 1).unwrap();
        } else {
            writeln!(s, "C{c}, C{}: {};", c + 1, storages[(c / 2) % storages.len()]).unwrap();
        }
    }
    s.push_str("} systems {\n");
    let parallelism = [
        "none",
        "split_evenly_per_core",
        "split_every(64)",
        "none_below(100, split_evenly_per_core)",
    ];
    for i in 0..systems {
        let (w0, w1) = (2 * i, 2 * i + 1);
        let after = if i >= 4 {
            format!(", after: [s{}]", i - 4)
        } else {
            String::new()
        };
        let read = if i >= 4 {
            format!("read: [C{}], ", 2 * (i - 4))
        } else {
            String::new()
        };
        let output = if i % 3 == 0 { ", output: Vec<u32>" } else { "" };
        writeln!(
            s,
            "s{i}: S{i} {{ {read}write: [C{w0}, C{w1}]{after}, parallelism: {}{output} }}",
            parallelism[i % parallelism.len()]
        )
        .unwrap();
    }
    s.push_str("} }");
    s
}

fn expanded_tokens(components: usize) -> (usize, f64) {
    let source = declaration(components);
    let start = Instant::now();
    let decl: ast::Declaration = syn::parse_str(&source).expect("the declaration parses");
    let tokens = expand(&decl).expect("no error");
    let seconds = start.elapsed().as_secs_f64();
    assert!(!tokens.to_string().contains("compile_error"), "declaration is valid");
    (tokens.into_iter().count(), seconds)
}

fn count_deep(tokens: proc_macro2::TokenStream) -> usize {
    tokens
        .into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => 1 + count_deep(g.stream()),
            _ => 1,
        })
        .sum()
}

#[test]
fn expansion_grows_linearly_and_the_macro_is_fast() {
    let mut sizes = Vec::new();
    for components in [16, 32, 64] {
        let decl: ast::Declaration = syn::parse_str(&declaration(components)).unwrap();
        let size = count_deep(expand(&decl).unwrap());
        let (_, seconds) = expanded_tokens(components);
        println!(
            "{components} components, {} systems: {size} tokens, expanded in {:.1} ms",
            components / 2,
            seconds * 1e3
        );
        sizes.push(size);
    }
    // Doubling components and systems should about double the output.
    assert!(
        sizes[1] * 10 < sizes[0] * 25,
        "16 -> 32 grew {} -> {}",
        sizes[0],
        sizes[1]
    );
    assert!(
        sizes[2] * 10 < sizes[1] * 25,
        "32 -> 64 grew {} -> {}",
        sizes[1],
        sizes[2]
    );
}
