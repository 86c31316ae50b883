//! Save and restore (`settings { serde: all }`): serde structs of every
//! component's values and every resource, and the `SaveDecl` impl. All of
//! it goes through `::ecs::__private::with_serde!`, which keeps it when the
//! `serde` feature of `ecs` is on and reports an error otherwise.

use super::Names;
use crate::model::Model;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

pub fn emit(model: &Model, names: &Names) -> TokenStream {
    let Some(all) = &model.settings.serde else {
        return TokenStream::new();
    };
    let context = &names.context;
    let values = &names.resources;
    let vis = &model.decl.vis;
    let columns = format_ident!("__{}SavedColumns", context);
    let saved_resources = format_ident!("__{}SavedResources", context);
    let c_params: Vec<_> = (0..model.components.len()).map(|i| format_ident!("__C{}", i)).collect();
    let c_fields: Vec<_> = (0..model.components.len()).map(|i| format_ident!("c{}", i)).collect();
    let c_names = model.components.iter().map(|c| &c.name);
    let c_paths: Vec<_> = model.components.iter().map(|c| c.path).collect();
    let r_params: Vec<_> = (0..model.resources.len()).map(|i| format_ident!("__R{}", i)).collect();
    let r_fields: Vec<_> = model.resources.iter().map(|r| &r.field).collect();
    let r_paths: Vec<_> = model.resources.iter().map(|r| r.path).collect();
    // One check per type, spanned on its name in the declaration.
    let checks = c_paths
        .iter()
        .map(|p| quote_spanned!(p.span()=> ::ecs::__private::assert_saved::<#p>();))
        .chain(
            r_paths
                .iter()
                .map(|p| quote_spanned!(p.span()=> ::ecs::__private::assert_saved::<#p>();)),
        );
    let serde_crate = quote!(::ecs::__private::serde);
    let with_serde = quote_spanned!(all.span()=> ::ecs::__private::with_serde!);
    quote! {
        #with_serde {
            const _: () = { #(#checks)* };

            // A component the snapshot lacks (declared since it was saved)
            // has no values; one the context does not declare is an error
            // rather than values silently lost.
            #[derive(#serde_crate::Serialize, #serde_crate::Deserialize)]
            #[serde(crate = "::ecs::__private::serde", deny_unknown_fields)]
            #[doc(hidden)]
            #vis struct #columns<#(#c_params),*> {
                #(#[serde(rename = #c_names, default)] #c_fields: #c_params,)*
            }

            #[derive(#serde_crate::Serialize, #serde_crate::Deserialize)]
            #[serde(crate = "::ecs::__private::serde", deny_unknown_fields)]
            #[doc(hidden)]
            #vis struct #saved_resources<#(#r_params),*> {
                #(#r_fields: #r_params,)*
            }

            // The bounds hold for a declaration that compiles (the checks
            // above); written here, a type that is not serde fails only in
            // its check, spanned on its name, not in this impl too.
            impl ::ecs::__private::SaveDecl for #context
            where
                #(for<'__ecs> #c_paths: ::ecs::__private::Saved,)*
                #(for<'__ecs> #r_paths: ::ecs::__private::Saved,)*
            {
                type Columns = #columns<#(::ecs::__private::LoadColumn<#c_paths>),*>;
                type ColumnsRef<'__ecs> = #columns<#(::ecs::__private::SaveColumn<'__ecs, #context, #c_paths>),*>;
                type SavedResources = #saved_resources<#(#r_paths),*>;
                type ResourcesRef<'__ecs> = #saved_resources<#(&'__ecs #r_paths),*>;

                fn columns_ref(cx: &::ecs::__private::Context<Self>) -> Self::ColumnsRef<'_> {
                    let _ = cx;
                    #columns { #(#c_fields: ::ecs::__private::SaveColumn::new(cx),)* }
                }

                fn resources_ref(cx: &::ecs::__private::Context<Self>) -> Self::ResourcesRef<'_> {
                    let _ = cx;
                    #saved_resources { #(#r_fields: cx.resource::<#r_paths>(),)* }
                }

                fn columns_fit(columns: &Self::Columns, ids: usize) -> bool {
                    let _ = (columns, ids);
                    true #(&& columns.#c_fields.fits(ids))*
                }

                fn restore_columns(cx: &mut ::ecs::__private::Context<Self>, columns: Self::Columns) {
                    let _ = (&cx, &columns);
                    #(::ecs::__private::restore_column::<#context, #c_paths>(cx, columns.#c_fields);)*
                }

                fn resource_values(saved: Self::SavedResources) -> #values {
                    let _ = &saved;
                    #values { #(#r_fields: saved.#r_fields,)* }
                }
            }
        }
    }
}
