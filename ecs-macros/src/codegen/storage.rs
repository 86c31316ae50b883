//! The storages struct and one `Component` implementation per component.

use super::Names;
use crate::model::{Component, Model, Storage};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

fn field(model: &Model, c: usize) -> syn::Ident {
    match model.components[c].storage {
        Storage::Grouped { group, .. } => format_ident!("g{}", group),
        _ => format_ident!("c{}", c),
    }
}

/// The storage type of a component that is not grouped.
fn storage_type(model: &Model, c: usize) -> TokenStream {
    let path = model.components[c].path;
    match &model.components[c].storage {
        Storage::Contiguous => quote!(::ecs::__private::Contiguous<#path>),
        Storage::SparseSet => quote!(::ecs::__private::SparseSetStorage<#path>),
        Storage::HashMap => quote!(::ecs::__private::HashMapStorage<#path>),
        Storage::Tag => quote!(::ecs::__private::Tag<#path>),
        Storage::Custom(ty) => quote!(#ty),
        Storage::Many(inner) => super::many::storage_type(*inner, &model.components[c]),
        Storage::Grouped { .. } => unreachable!("groups have their own field"),
    }
}

fn group_type(model: &Model, g: usize) -> TokenStream {
    let paths = model.groups[g].iter().map(|&c| model.components[c].path);
    quote!((#(#paths,)*))
}

fn ungrouped<'a>(model: &'a Model<'a>) -> impl Iterator<Item = usize> + 'a {
    (0..model.components.len()).filter(|&c| !matches!(model.components[c].storage, Storage::Grouped { .. }))
}

pub fn emit(model: &Model, names: &Names) -> TokenStream {
    let Names { context, storages, .. } = names;
    let vis = &model.decl.vis;
    let single_fields = ungrouped(model).map(|c| {
        let f = field(model, c);
        let ty = storage_type(model, c);
        quote!(#f: #ty,)
    });
    let group_fields = (0..model.groups.len()).map(|g| {
        let f = format_ident!("g{}", g);
        let ty = group_type(model, g);
        quote!(#f: ::ecs::__private::Grouped<#ty>,)
    });
    let impls = model.components.iter().enumerate().map(|(i, comp)| {
        let path = comp.path;
        let ty = super::many::component_type(comp);
        let name = &comp.name;
        let f = field(model, i);
        let (column, get, get_mut) = match comp.storage {
            Storage::Grouped { group, member } => {
                let ty = group_type(model, group);
                (
                    quote!(::ecs::__private::GroupColumn<#ty, #member>),
                    quote!(storages.#f.column::<#member>()),
                    quote!(storages.#f.column_mut::<#member>()),
                )
            }
            _ => (storage_type(model, i), quote!(&storages.#f), quote!(&mut storages.#f)),
        };
        // The one place that checks the component's `Send + Sync` (the column's
        // `ComponentBounds`): spanned on its name in the declaration.
        let column = respan(column, path.span());
        let column_item = quote_spanned!(path.span()=> type Column = #column;);
        let many = match comp.storage {
            Storage::Many(inner) => {
                let first = super::many::inner_type(inner, comp);
                quote! {
                    // SAFETY: `Many<#path>` is the component declared
                    // `#path: many` here, its first instances in `#first`.
                    unsafe impl ::ecs::__private::DeclaredMany<#context> for #path {
                        type Inner = #first;
                        type Component = #ty;
                    }
                }
            }
            _ => TokenStream::new(),
        };
        quote! {
            #many
            // SAFETY: `INDEX` is this component's position in the declaration,
            // distinct from every other; `column` returns its own field of the
            // storages struct (or its own member of a group), used by no
            // other component.
            unsafe impl ::ecs::__private::Component<#context> for #ty {
                const INDEX: usize = #i;
                const NAME: &'static str = #name;
                #column_item
                #[inline(always)]
                fn column(storages: &#storages) -> &Self::Column {
                    #get
                }
                #[inline(always)]
                fn column_mut(storages: &mut #storages) -> &mut Self::Column {
                    #get_mut
                }
            }
        }
    });
    let checks = model.components.iter().map(tag_check);
    quote! {
        #(#checks)*
        #[doc(hidden)]
        #[allow(non_snake_case)]
        #vis struct #storages {
            #(#single_fields)*
            #(#group_fields)*
        }
        // SAFETY: each field not a group's is the `Column` of one of this
        // declaration's `Component` impls (its `column` accessor returns the
        // field as `&Self::Column`, so the types are the same), and `Column`
        // requires `Send + Sync`: a crate whose column is not does not
        // compile. A group's field is a `Grouped`, `Send + Sync` for every
        // group. Written here rather than left to the fields, so that a
        // component that is not thread-safe fails once, at its `Component`
        // impl, and not again at every use of the context.
        unsafe impl ::core::marker::Send for #storages {}
        // SAFETY: as for `Send`.
        unsafe impl ::core::marker::Sync for #storages {}
        #(#impls)*
    }
}

/// For a `tag` component, an item-level constant that fails on a type that
/// holds data: evaluated under `cargo check`, spanned on the user's token
/// (the runtime's own check in `Tag` fires only when code is generated).
fn tag_check(comp: &Component) -> TokenStream {
    if !matches!(comp.storage, Storage::Tag) {
        return TokenStream::new();
    }
    let path = comp.path;
    let message = format!(
        "component `{0}` is declared `tag`, which stores no values, but `{0}` holds data; store it with `contiguous`, `sparse_set` or `hash_map`, or make it a unit struct",
        comp.name
    );
    quote_spanned! {path.span()=>
        const _: () = ::core::assert!(::core::mem::size_of::<#path>() == 0, "{}", #message);
    }
}

/// The storages struct's constructor: each storage made through generic
/// functions that ask nothing of the component beyond its `Component` impl
/// (which checks that it is `Send + Sync`, once).
pub fn new_storages(model: &Model, names: &Names) -> TokenStream {
    let storages = &names.storages;
    let context = &names.context;
    let singles = ungrouped(model).map(|c| {
        let f = field(model, c);
        let ty = super::many::component_type(&model.components[c]);
        quote!(#f: ::ecs::__private::new_column::<#context, #ty>(limit),)
    });
    let groups = (0..model.groups.len()).map(|g| {
        let f = format_ident!("g{}", g);
        quote!(#f: ::ecs::__private::new_group::<#context, _>(limit),)
    });
    quote!(#storages { #(#singles)* #(#groups)* })
}

/// The match arms of a dispatch by component index: one arm for every
/// `contiguous` component together, `i | j | .. =>` the untyped `shared`
/// function (`::ecs::__private::discard_contiguous` or
/// `relocate_contiguous`) on the column at the byte offset of field `i` of
/// the storages struct, then one arm per other component, `i =>
/// ::ecs::__private::<helper>::<Cx, type of component i>(<args>),`.
///
/// Why the shared arm: each component's own arm was three always-inlined
/// generic calls (`helper`, `column_mut` and the column's method), which a
/// debug build compiled per component type for these dispatches alone.
fn component_arms(
    model: &Model,
    names: &Names,
    helper: &str,
    args: TokenStream,
    shared: &str,
    shared_args: TokenStream,
) -> Vec<TokenStream> {
    let context = &names.context;
    let storages = &names.storages;
    let helper = format_ident!("{}", helper);
    let shared = format_ident!("{}", shared);
    let contiguous: Vec<usize> = ungrouped(model)
        .filter(|&c| matches!(model.components[c].storage, Storage::Contiguous))
        .collect();
    let mut arms = Vec::new();
    if !contiguous.is_empty() {
        // The offset of each contiguous component's field, by component
        // index (0 for the others, which never read it).
        let offsets = (0..model.components.len()).map(|c| {
            if contiguous.contains(&c) {
                let f = field(model, c);
                quote!(::core::mem::offset_of!(#storages, #f))
            } else {
                quote!(0)
            }
        });
        let n = model.components.len();
        arms.push(quote! {
            #(#contiguous)|* => {
                const OFFSETS: [usize; #n] = [#(#offsets),*];
                // SAFETY: `index` is a contiguous component's (this arm's
                // patterns), whose field of the storages struct, at byte
                // `OFFSETS[index]`, is a `Contiguous` column; the pointer
                // comes from `&mut` storages, borrowed for the call.
                unsafe { ::ecs::__private::#shared(storages as *mut #storages as *mut u8, OFFSETS[index], #shared_args) }
            }
        });
    }
    arms.extend(
        model
            .components
            .iter()
            .enumerate()
            .filter(|(i, _)| !contiguous.contains(i))
            .map(|(i, comp)| {
                let ty = super::many::component_type(comp);
                quote!(#i => ::ecs::__private::#helper::<#context, #ty>(#args),)
            }),
    );
    arms
}

/// The arms of `remove_component`: `Column::discard` of component `index`'s
/// column (see `component_arms`).
pub fn remove_arms(model: &Model, names: &Names) -> Vec<TokenStream> {
    component_arms(
        model,
        names,
        "remove_value",
        quote!(storages, id),
        "discard_contiguous",
        quote!(id),
    )
}

/// The arms of `relocate_component`: `Column::relocate` of component
/// `index`'s column (see `component_arms`).
pub fn relocate_arms(model: &Model, names: &Names) -> Vec<TokenStream> {
    component_arms(
        model,
        names,
        "relocate_value",
        quote!(storages, from, to),
        "relocate_contiguous",
        quote!(from, to),
    )
}

/// One arm per component: `i => Column::swap(column of component i, a, b)`;
/// none under `layout: ids`, where the runtime never exchanges entities
/// (no code for it to compile).
pub fn swap_arms(model: &Model, names: &Names) -> Vec<TokenStream> {
    if !model.settings.archetypes {
        return Vec::new();
    }
    // A contiguous column's `swap` is its `relocate` (onto an id holding a
    // value, the two values are exchanged in place).
    component_arms(
        model,
        names,
        "swap_value",
        quote!(storages, a, b),
        "relocate_contiguous",
        quote!(a, b),
    )
}

/// `tokens` with every span set to `span`, so that an error about them
/// points at the user's token.
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(g) = &tree {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tree = proc_macro2::TokenTree::Group(group);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}
