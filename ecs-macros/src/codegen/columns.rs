//! What column steps (`kind: columns`) add to the context: their marker
//! impls, the storage checks that need the type system, and their arm of
//! the dispatch from system index to code.

use super::Names;
use crate::model::{path_key, Model, Storage};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// `ColumnStepOf` for each column step, and for each component of a custom
/// storage a column step lists, a constant that fails (under `cargo check`,
/// spanned on the component in the step's list) when the storage does not
/// lay values side by side by id.
pub fn emit(model: &Model, names: &Names) -> TokenStream {
    let context = &names.context;
    let mut out = TokenStream::new();
    for sys in model.systems.iter().filter(|s| s.columns.is_some()) {
        let ty = sys.ty;
        out.extend(quote! {
            impl ::ecs::__private::ColumnStepOf<#context> for #ty {}
        });
        for field in &sys.entry.fields {
            let crate::ast::SystemField::List(_, items) = field else {
                continue;
            };
            for path in items {
                let name = path_key(path);
                let Some(comp) = model.components.iter().find(|c| c.name == name) else {
                    continue;
                };
                let Storage::Custom(storage) = comp.storage else {
                    continue;
                };
                let message = format!(
                    "system `{}` is a column step, which takes each component as a slice indexed by id, but the custom storage of `{name}` does not lay values side by side by id (its `Column::LINEAR` is false); store `{name}` as `contiguous`, or make `{}` an entity system",
                    sys.name, sys.name
                );
                out.extend(quote_spanned! {path.span()=>
                    const _: () = ::core::assert!(
                        <#storage as ::ecs::__private::Column>::LINEAR,
                        "{}",
                        #message
                    );
                });
            }
        }
    }
    out
}

/// The where-clause of `Dispatch<__A>` for system `i`: the trait its kind
/// runs with.
pub fn dispatch_bound(model: &Model, i: usize, names: &Names) -> TokenStream {
    let context = &names.context;
    let ty = model.systems[i].ty;
    if model.systems[i].columns.is_some() {
        quote!(#ty: ::ecs::__private::ColumnSystem<#context, __A>)
    } else {
        quote!(#ty: ::ecs::__private::System<#context, __A>)
    }
}

/// The call that runs system `i` in `Dispatch::dispatch`.
pub fn dispatch_call(model: &Model, i: usize) -> TokenStream {
    let ty = model.systems[i].ty;
    if model.systems[i].columns.is_some() {
        quote!(cx.run_column_system::<#ty, __A>(args))
    } else {
        // `run_system`'s body, not the one-call `run_system`: one item fewer
        // per system for rustc (`run_system_with_data`'s comment).
        quote!(cx.run_system_with_data::<#ty, __A>(args))
    }
}
