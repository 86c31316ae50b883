//! Generated documentation: what the macro made of the declaration, as
//! tables on the context type.

use crate::ast::ParallelismExpr;
use crate::model::{Limit, Model, Storage};
use proc_macro2::TokenStream;
use quote::quote;

pub(super) fn list(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.map(|s| format!("`{s}`")).collect();
    if v.is_empty() {
        "—".to_string()
    } else {
        v.join(", ")
    }
}

fn describe(p: &ParallelismExpr) -> String {
    match p {
        ParallelismExpr::None => "none".into(),
        ParallelismExpr::SplitEvenlyPerCore => "split evenly per core".into(),
        ParallelismExpr::SplitEvery(n) => format!("split every {n} entities"),
        ParallelismExpr::NoneBelow(t, then) => format!("none below {t} entities, else {}", describe(then)),
    }
}

/// The first line of the doc comments among `attrs`, for a table cell.
pub(super) fn summary(attrs: &[syn::Attribute]) -> String {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .find_map(|a| match &a.meta {
            syn::Meta::NameValue(syn::MetaNameValue {
                value: syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s), ..
                }),
                ..
            }) => Some(s.value().trim().replace('|', "\\|")),
            _ => None,
        })
        .unwrap_or_default()
}

/// The `after` cell of a system's row: the systems it runs after, and the
/// one it streams (it runs while that one runs).
fn after_cell(model: &Model, s: &crate::model::System) -> String {
    let streamed = s.stream.map(|(p, _)| p);
    let after = list(
        s.after
            .iter()
            .filter(|&&(d, _)| Some(d) != streamed)
            .map(|&(d, _)| model.systems[d].name.to_string()),
    );
    match streamed {
        Some(p) if s.after.len() > 1 => format!("{after}; streams `{}` (runs while it runs)", model.systems[p].name),
        Some(p) => format!("streams `{}` (runs while it runs)", model.systems[p].name),
        None => after,
    }
}

pub fn context_docs(model: &Model) -> TokenStream {
    let mut doc = String::new();
    doc.push_str("\n\n# Components\n\n| component | storage | read by | written by | description |\n| --- | --- | --- | --- | --- |\n");
    for (i, c) in model.components.iter().enumerate() {
        let storage = match &c.storage {
            Storage::Grouped { group, .. } => format!(
                "grouped with {}",
                list(
                    model.groups[*group]
                        .iter()
                        .filter(|&&m| m != i)
                        .map(|&m| model.components[m].name.clone())
                )
            ),
            Storage::Custom(t) => format!("custom `{}`", quote!(#t).to_string().replace(' ', "")),
            Storage::Many(inner) => super::many::describe(*inner),
            s => format!("`{}`", s.keyword()),
        };
        let readers = model
            .systems
            .iter()
            .filter(|s| s.reads.contains(&i))
            .map(|s| s.name.to_string());
        let writers = model
            .systems
            .iter()
            .filter(|s| s.writes.contains(&i))
            .map(|s| s.name.to_string());
        doc.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            c.name,
            storage,
            list(readers),
            list(writers),
            summary(c.attrs)
        ));
    }
    super::resources::docs_table(model, &mut doc);
    doc.push_str("\n# Systems\n\n| system | type | reads | writes | after | parallelism | output | description |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for s in &model.systems {
        let par = s.parallelism.map_or("none".to_string(), describe);
        let output = match s.output {
            Some(t) => format!("`{}`", quote!(#t).to_string().replace(' ', "")),
            None => "—".to_string(),
        };
        doc.push_str(&format!(
            "| `{}` | `{} | {} | {} | {} | {} | {} | {} |\n",
            s.name,
            if s.columns.is_some() {
                format!("{}` (column step)", s.ty_name)
            } else {
                format!("{}`", s.ty_name)
            },
            list(
                s.reads
                    .iter()
                    .map(|&c| model.components[c].name.clone())
                    .chain(s.resource_reads.iter().map(|&(r, _)| model.resources[r].name.clone()))
            ),
            list(
                s.writes
                    .iter()
                    .map(|&c| model.components[c].name.clone())
                    .chain(s.resource_writes.iter().map(|&(r, _)| model.resources[r].name.clone()))
            ),
            after_cell(model, s),
            par,
            output,
            summary(&s.entry.attrs),
        ));
    }
    let st = &model.settings;
    let entities = match st.entities {
        Limit::Fixed(n) => format!("fixed, {n} entities (allocated once)"),
        Limit::Dynamic(n) => format!("dynamic, growing from {n}"),
    };
    doc.push_str(&format!(
        "\n# Dependency graph\n\n```text\n{}```\n",
        super::inspect::graph_text(model)
    ));
    doc.push_str(&format!(
        "\n# Settings\n\n- entities: {entities}\n- inner parallelism: {}\n- threads: {}\n",
        if st.inner_parallelism { "allowed" } else { "denied" },
        st.threads
            .map_or("one per available core".to_string(), |n| n.to_string()),
    ));
    quote!(#[doc = #doc])
}
