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
    let n = model.components.len();
    let offsets = (0..n).map(|c| {
        let f = field(model, c);
        quote!(::core::mem::offset_of!(#storages, #f))
    });
    // A grouped member's byte offset within its group's slot (a tuple of
    // `MaybeUninit`s, `Group::Slots`), its size and its mask bit; zeros
    // for the others.
    let members = (0..n).map(|c| match model.components[c].storage {
        Storage::Grouped { group, member } => {
            let slots = model.groups[group].iter().map(|&m| {
                let path = model.components[m].path;
                quote!(::core::mem::MaybeUninit<#path>)
            });
            let path = model.components[c].path;
            let bit = 1u8 << member;
            let member = syn::Index::from(member);
            quote!((::core::mem::offset_of!((#(#slots,)*), #member), ::core::mem::size_of::<#path>(), #bit))
        }
        _ => quote!((0, 0, 0)),
    });
    // The drop of a tag's or a grouped member's value, `None` when it needs
    // none (and for the other storages, whose columns know their drop).
    let drops = model.components.iter().map(|comp| {
        let path = comp.path;
        match comp.storage {
            Storage::Tag => quote!(::ecs::__private::tag_drop::<#path>()),
            Storage::Grouped { .. } => quote!(::ecs::__private::member_drop::<#path>()),
            _ => quote!(::core::option::Option::None),
        }
    });
    quote! {
        #(#checks)*
        #[doc(hidden)]
        #[allow(non_snake_case)]
        #vis struct #storages {
            #(#single_fields)*
            #(#group_fields)*
        }
        impl #storages {
            /// The byte offset of each component's field, by component
            /// index (its group's for a grouped one): where the dispatches
            /// by component index find the columns they reach untyped
            /// (unread when no component is `contiguous`, `sparse_set`,
            /// `hash_map`, `tag` or grouped).
            #[allow(dead_code)]
            const OFFSETS: [usize; #n] = [#(#offsets),*];
            /// By component index, a grouped member's byte offset within
            /// its group's slot, size and mask bit (zeros for the others):
            /// what `relocate_grouped` and `discard_grouped` need of it
            /// (unread without groups).
            #[allow(dead_code)]
            const MEMBERS: [(usize, usize, u8); #n] = [#(#members),*];
            /// By component index, the drop that `discard_tag` and
            /// `discard_grouped` are given for a tag's or a grouped
            /// member's value (`None` when it needs none, and for the
            /// others).
            #[allow(dead_code)]
            const DROPS: [::core::option::Option<unsafe fn(*mut u8)>; #n] = [#(#drops),*];
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

/// The built-in storages whose columns a dispatch by component index
/// reaches through one untyped function for all their components: the
/// storage, and that function's name in `::ecs::__private` for
/// `remove_component`, `relocate_component` and `swap_component` (`None`:
/// each component keeps its own arm; a tag's `discard` drops a value of its
/// type when it needs drop, and a hash map's `swap` is `Column`'s default,
/// not its `relocate`).
type Shared = (
    fn(&Storage) -> bool,
    Option<&'static str>,
    &'static str,
    Option<&'static str>,
);
const SHARED: [Shared; 5] = [
    (
        |s| matches!(s, Storage::Contiguous),
        Some("discard_contiguous"),
        "relocate_contiguous",
        Some("relocate_contiguous"),
    ),
    (
        |s| matches!(s, Storage::SparseSet),
        Some("discard_sparse_set"),
        "relocate_sparse_set",
        Some("relocate_sparse_set"),
    ),
    (
        |s| matches!(s, Storage::HashMap),
        Some("discard_hash_map"),
        "relocate_hash_map",
        None,
    ),
    (
        |s| matches!(s, Storage::Tag),
        Some("discard_tag"),
        "relocate_tag",
        Some("relocate_tag"),
    ),
    (
        |s| matches!(s, Storage::Grouped { .. }),
        Some("discard_grouped"),
        "relocate_grouped",
        Some("relocate_grouped"),
    ),
];

/// Which dispatch `component_arms` emits.
#[derive(Clone, Copy)]
enum Op {
    Remove,
    Relocate,
    Swap,
}

/// The match arms of a dispatch by component index: for each built-in
/// storage of `SHARED` that has a shared function for `op`, one arm for all
/// its components together, `i | j | .. =>` that untyped function on the
/// column at the byte offset of field `i` of the storages struct; then one
/// arm per other component, `i => ::ecs::__private::<helper>::<Cx, type of
/// component i>(<args>),`.
///
/// Why the shared arms: each component's own arm was three always-inlined
/// generic calls (`helper`, `column_mut` and the column's method), which a
/// debug build compiled per component type for these dispatches alone
/// (rustc's instructions for the 64/32 debug build: COMPILE_COST.md,
/// seventeenth round).
fn component_arms(model: &Model, names: &Names, op: Op) -> Vec<TokenStream> {
    let context = &names.context;
    let storages = &names.storages;
    let (helper, args, shared_args) = match op {
        Op::Remove => ("remove_value", quote!(storages, id), quote!(id)),
        Op::Relocate => ("relocate_value", quote!(storages, from, to), quote!(from, to)),
        Op::Swap => ("swap_value", quote!(storages, a, b), quote!(a, b)),
    };
    let helper = format_ident!("{}", helper);
    let n = model.components.len();
    let mut shared = vec![false; n];
    let mut arms = Vec::new();
    for (is, remove, relocate, swap) in SHARED {
        let Some(function) = (match op {
            Op::Remove => remove,
            Op::Relocate => Some(relocate),
            Op::Swap => swap,
        }) else {
            continue;
        };
        let members: Vec<usize> = (0..n).filter(|&c| is(&model.components[c].storage)).collect();
        if members.is_empty() {
            continue;
        }
        for &c in &members {
            shared[c] = true;
        }
        let function = format_ident!("{}", function);
        if function == "discard_tag" {
            arms.push(quote! {
                #(#members)|* => {
                    // SAFETY: `index` is one of this arm's components, all
                    // tags, so the field of the storages struct at byte
                    // `OFFSETS[index]` is its `Tag`, and `DROPS[index]` its
                    // type's `tag_drop`; the pointer comes from the `&mut`
                    // storages, borrowed for the call.
                    unsafe { ::ecs::__private::#function(storages as *mut #storages as *mut u8, #storages::OFFSETS[index], #storages::DROPS[index], #shared_args) }
                }
            });
            continue;
        }
        if function == "discard_grouped" {
            arms.push(quote! {
                #(#members)|* => {
                    // SAFETY: as in `relocate_component`'s arm of the
                    // grouped members, and `DROPS[index]` is the member
                    // type's `member_drop`.
                    unsafe { ::ecs::__private::#function(storages as *mut #storages as *mut u8, #storages::OFFSETS[index], #storages::MEMBERS[index], #storages::DROPS[index], #shared_args) }
                }
            });
            continue;
        }
        if function == "relocate_grouped" {
            arms.push(quote! {
                #(#members)|* => {
                    // SAFETY: `index` is one of this arm's components, all
                    // grouped, so the field of the storages struct at byte
                    // `OFFSETS[index]` is its group's `Grouped`, whose
                    // slots hold it at `MEMBERS[index]`'s offset, of its
                    // size, with its bit; the pointer comes from the `&mut`
                    // storages, borrowed for the call.
                    unsafe { ::ecs::__private::#function(storages as *mut #storages as *mut u8, #storages::OFFSETS[index], #storages::MEMBERS[index], #shared_args) }
                }
            });
            continue;
        }
        arms.push(quote! {
            #(#members)|* => {
                // SAFETY: `index` is one of this arm's components, all
                // declared with this storage, so the field of the storages
                // struct at byte `OFFSETS[index]` is its column, of the type
                // the function expects; the pointer comes from the `&mut`
                // storages, borrowed for the call.
                unsafe { ::ecs::__private::#function(storages as *mut #storages as *mut u8, #storages::OFFSETS[index], #shared_args) }
            }
        });
    }
    arms.extend(
        model
            .components
            .iter()
            .enumerate()
            .filter(|&(i, _)| !shared[i])
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
    component_arms(model, names, Op::Remove)
}

/// The arms of `relocate_component`: `Column::relocate` of component
/// `index`'s column (see `component_arms`).
pub fn relocate_arms(model: &Model, names: &Names) -> Vec<TokenStream> {
    component_arms(model, names, Op::Relocate)
}

/// The arms of `swap_component`: `Column::swap` of component `index`'s
/// column (see `component_arms`); none under `layout: ids`, where the
/// runtime never exchanges entities (no code for it to compile).
pub fn swap_arms(model: &Model, names: &Names) -> Vec<TokenStream> {
    if !model.settings.archetypes {
        return Vec::new();
    }
    component_arms(model, names, Op::Swap)
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
