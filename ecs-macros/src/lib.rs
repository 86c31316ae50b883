//! The `declare_context!` procedural macro of the `ecs` crate.
//!
//! The pipeline reads in one function: parse the DSL (`parse`), build its
//! meaning (`model`), check the rules that need the whole declaration
//! (`validate`), then emit the context (`codegen`). The DSL's user
//! documentation lives on the re-export in the `ecs` crate.

#![forbid(unsafe_code)]

mod ast;
mod codegen;
mod ctxt;
mod kw;
mod model;
mod parse;
mod resources;
mod suggest;
mod validate;

#[cfg(test)]
mod growth_tests;
#[cfg(test)]
mod snapshot_tests;

use proc_macro::TokenStream;

/// Declares a context: components and their storages, systems with their
/// access and dependencies, and settings. See the `ecs` crate for the DSL.
#[proc_macro]
pub fn declare_context(input: TokenStream) -> TokenStream {
    let decl = syn::parse_macro_input!(input as ast::Declaration);
    expand(&decl).unwrap_or_else(syn::Error::into_compile_error).into()
}

fn expand(decl: &ast::Declaration) -> syn::Result<proc_macro2::TokenStream> {
    let mut cx = ctxt::Ctxt::default();
    let model = model::Model::build(decl, &mut cx);
    validate::check_no_conflicts(&model, &mut cx);
    resources::check_no_conflicts(&model, &mut cx);
    validate::check_column_step_storages(&model, &mut cx);
    let context = codegen::emit(&model);
    // On error, still emit the context (unknown names declared implicitly),
    // so one mistake gives one error instead of a cascade in user code.
    match cx.check() {
        Ok(()) => Ok(context),
        Err(e) => {
            let errors = e.into_compile_error();
            Ok(quote::quote!(#errors #context))
        }
    }
}
