//! Resources: the public struct of their values (`<Name>Resources`), the
//! hidden struct of their cells, one `Resource` impl per resource, and each
//! system's access rights to them.

use super::Names;
use crate::model::Model;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

fn cell_field(r: usize) -> syn::Ident {
    format_ident!("r{}", r)
}

pub fn emit(model: &Model, names: &Names) -> TokenStream {
    let Names {
        context,
        resources,
        resource_cells,
        ..
    } = names;
    let vis = &model.decl.vis;
    let value_fields = model.resources.iter().map(|r| {
        let (attrs, field, path) = (r.attrs, &r.field, r.path);
        quote!(#(#attrs)* pub #field: #path,)
    });
    let cell_fields = model.resources.iter().enumerate().map(|(i, r)| {
        let f = cell_field(i);
        let path = r.path;
        quote!(#f: ::ecs::__private::ResourceCell<#path>,)
    });
    let paths: Vec<_> = model.resources.iter().map(|r| r.path).collect();
    let fields: Vec<_> = model.resources.iter().map(|r| &r.field).collect();
    let impls = model.resources.iter().enumerate().map(|(i, r)| {
        let path = r.path;
        let name = &r.name;
        let f = cell_field(i);
        // Spanned on the resource's name, so that a resource that is not
        // thread-safe (`ResourceBounds`) is reported there.
        let head = quote_spanned!(path.span()=> unsafe impl ::ecs::__private::Resource<#context> for #path);
        quote! {
            // SAFETY: `INDEX` is this resource's position in the
            // declaration; `cell` returns its own field of the cells struct.
            #head {
                const INDEX: usize = #i;
                const NAME: &'static str = #name;
                #[inline(always)]
                fn cell(resources: &#resource_cells) -> &::ecs::__private::ResourceCell<Self> {
                    &resources.#f
                }
                #[inline(always)]
                fn cell_mut(resources: &mut #resource_cells) -> &mut ::ecs::__private::ResourceCell<Self> {
                    &mut resources.#f
                }
            }
        }
    });
    let access = model.systems.iter().map(|s| {
        let ty = s.ty;
        let reads = s
            .resource_reads
            .iter()
            .chain(&s.resource_writes)
            .map(|&(r, _)| model.resources[r].path);
        let writes = s.resource_writes.iter().map(|&(r, _)| model.resources[r].path);
        quote! {
            // SAFETY: each resource is in this system's `read` or `write`
            // list, and `resources::check_no_conflicts` proved that no
            // system unordered with this one writes it.
            #(unsafe impl ::ecs::__private::CanReadResource<#context, #reads> for #ty {})*
            // SAFETY: each resource is in `write`, and
            // `resources::check_no_conflicts` proved that no system
            // unordered with this one reads or writes it.
            #(unsafe impl ::ecs::__private::CanWriteResource<#context, #writes> for #ty {})*
        }
    });
    let doc = format!(
        "The initial value of every resource of [`{context}`], given to [`{context}::with_resources`] \
         (the other constructors use `Default`)."
    );
    quote! {
        #[doc = #doc]
        #vis struct #resources {
            #(#value_fields)*
        }

        impl ::core::default::Default for #resources
        where
            #(for<'__ecs> #paths: ::core::default::Default,)*
        {
            fn default() -> Self {
                Self {
                    #(#fields: ::core::default::Default::default(),)*
                }
            }
        }

        #[doc(hidden)]
        #vis struct #resource_cells {
            #(#cell_fields)*
        }

        #(#impls)*
        #(#access)*
    }
}

/// The cells struct made from the values struct `values`.
pub fn new_resources(model: &Model, names: &Names) -> TokenStream {
    let Names {
        context,
        resource_cells,
        ..
    } = names;
    let inits = model.resources.iter().enumerate().map(|(i, r)| {
        let f = cell_field(i);
        let (path, field) = (r.path, &r.field);
        quote!(#f: ::ecs::__private::new_resource_cell::<#context, #path>(values.#field),)
    });
    quote!(#resource_cells { #(#inits)* })
}

/// The `# Resources` table of the context's docs (none without resources).
pub fn docs_table(model: &Model, doc: &mut String) {
    if model.resources.is_empty() {
        return;
    }
    doc.push_str("\n# Resources\n\n| resource | field of `");
    doc.push_str(&names_resources(model));
    doc.push_str("` | read by | written by | description |\n| --- | --- | --- | --- | --- |\n");
    for (i, r) in model.resources.iter().enumerate() {
        let readers = model
            .systems
            .iter()
            .filter(|s| s.resource_reads.iter().any(|&(x, _)| x == i))
            .map(|s| s.name.to_string());
        let writers = model
            .systems
            .iter()
            .filter(|s| s.resource_writes.iter().any(|&(x, _)| x == i))
            .map(|s| s.name.to_string());
        doc.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} |\n",
            r.name,
            r.field,
            super::docs::list(readers),
            super::docs::list(writers),
            super::docs::summary(r.attrs)
        ));
    }
}

fn names_resources(model: &Model) -> String {
    format!("{}Resources", model.decl.name)
}

/// The summary's `resources` line (none without resources).
pub fn summary(model: &Model, out: &mut String) {
    if model.resources.is_empty() {
        return;
    }
    out.push_str(&format!("resources ({}):\n", model.resources.len()));
    for r in &model.resources {
        out.push_str(&format!("  {}\n", r.name));
    }
}

/// Resource nodes (hexagons) of the DOT graph with components, with a dashed
/// edge to each system reading one and a bold edge from each system writing
/// one, as for components.
pub fn dot(model: &Model, out: &mut String, quoted: fn(&str) -> String) {
    if model.resources.is_empty() {
        return;
    }
    out.push_str("  node [shape=hexagon, style=filled, fillcolor=lightyellow];\n");
    let node = |r: usize| quoted(&format!("resource {}", model.resources[r].name));
    for (i, r) in model.resources.iter().enumerate() {
        out.push_str(&format!(
            "  {} [label={}];\n",
            node(i),
            quoted(&format!("{}\\nresource", r.name))
        ));
    }
    for s in &model.systems {
        let name = quoted(&s.name.to_string());
        for &(r, _) in &s.resource_reads {
            out.push_str(&format!("  {} -> {} [style=dashed];\n", node(r), name));
        }
        for &(r, _) in &s.resource_writes {
            out.push_str(&format!("  {} -> {} [style=bold];\n", name, node(r)));
        }
    }
}
