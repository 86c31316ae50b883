//! Emits the context from the model. Codegen decides nothing: every decision
//! is already in the model.

mod columns;
mod docs;
mod inspect;
mod many;
mod resources;
mod save;
mod storage;
mod stream;
mod systems;

use crate::model::{BitsetWidth, Limit, Model};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Names of the generated items.
pub struct Names {
    pub context: syn::Ident,
    pub storages: syn::Ident,
    pub slots: syn::Ident,
    pub states: syn::Ident,
    pub resources: syn::Ident,
    pub resource_cells: syn::Ident,
}

impl Names {
    fn new(model: &Model) -> Self {
        let name = &model.decl.name;
        Names {
            context: name.clone(),
            storages: format_ident!("__{}Storages", name),
            slots: format_ident!("__{}Slots", name),
            states: format_ident!("{}Systems", name),
            resources: format_ident!("{}Resources", name),
            resource_cells: format_ident!("__{}ResourceCells", name),
        }
    }
}

pub fn emit(model: &Model) -> TokenStream {
    let names = Names::new(model);
    let storage = storage::emit(model, &names);
    let systems = systems::emit(model, &names);
    let resources = resources::emit(model, &names);
    let save = save::emit(model, &names);
    let context = emit_context(model, &names);
    let columns = columns::emit(model, &names);
    let streams = stream::emit(model);
    quote! {
        #context
        #storage
        #systems
        #resources
        #save
        #columns
        #streams
    }
}

fn emit_context(model: &Model, names: &Names) -> TokenStream {
    let Names {
        context,
        storages,
        slots,
        states,
        resources,
        resource_cells,
    } = names;
    let attrs = &model.decl.attrs;
    let vis = &model.decl.vis;
    let name_str = context.to_string();
    let docs = docs::context_docs(model);
    let bits = match model.bitset() {
        BitsetWidth::Bits8 => quote!(::ecs::__private::Bits8),
        BitsetWidth::Bits16 => quote!(::ecs::__private::Bits16),
        BitsetWidth::Bits32 => quote!(::ecs::__private::Bits32),
        BitsetWidth::Bits64 => quote!(::ecs::__private::Bits64),
        BitsetWidth::Bits128 => quote!(::ecs::__private::Bits128),
        BitsetWidth::Words(n) => quote!(::ecs::__private::Bitset::<#n>),
    };
    let s = &model.settings;
    let entities = match s.entities {
        Limit::Fixed(n) => quote!(::ecs::__private::EntityLimit::Fixed(#n)),
        Limit::Dynamic(n) => quote!(::ecs::__private::EntityLimit::Dynamic { initial: #n }),
    };
    let inner = s.inner_parallelism;
    let layout = if s.archetypes {
        quote!(::ecs::__private::Layout::Archetypes)
    } else {
        quote!(::ecs::__private::Layout::Ids)
    };
    let threads = match s.threads {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let component_names = model.components.iter().map(|c| &c.name);
    let resource_names = model.resources.iter().map(|r| &r.name);
    let new_resources = resources::new_resources(model, names);
    let system_infos = model.systems.iter().enumerate().map(|(i, sys)| {
        let name = sys.name.to_string();
        let ty = &sys.ty_name;
        let deps = sys.after.iter().map(|&(d, _)| d);
        let dependents = &model.dependents[i];
        let ancestors = &model.ancestors[i];
        quote! {
            ::ecs::__private::SystemInfo {
                name: #name,
                type_name: #ty,
                dependencies: &[#(#deps),*],
                dependents: &[#(#dependents),*],
                ancestors: &[#(#ancestors),*],
            }
        }
    });
    let signatures = model.systems.iter().map(|sys| {
        let sig = sys.signature();
        quote!(#bits::from_indices(&[#(#sig),*]))
    });
    let topo = &model.topological;
    let summary = inspect::summary(model);
    let dot = inspect::dot(model, false);
    let dot_components = inspect::dot(model, true);
    let new_storages = storage::new_storages(model, names);
    let remove_arms = storage::remove_arms(model, names);
    let relocate_arms = storage::relocate_arms(model, names);
    let swap_arms = storage::swap_arms(model, names);
    let new_slots = systems::new_slots(model, names);
    quote! {
        #(#attrs)*
        #docs
        #vis struct #context {
            inner: ::ecs::__private::Context<#context>,
        }

        // A program uses one or two of the constructors: no warning for the others.
        #[allow(dead_code)]
        impl #context {
            /// Creates the context with every system and resource in its
            /// default state.
            ///
            /// Exists when every system's state type implements `Default`:
            /// that is all the `where` clause says (it is written with
            /// `for<'__ecs>` so that a context whose states are not all
            /// `Default` still compiles, without `new`). Otherwise, create
            /// the context with [`with_systems`](Self::with_systems).
            ///
            /// Starts no thread: the workers start when a step first has
            /// work for them.
            #[must_use]
            #vis fn new() -> Self
            where
                for<'__ecs> #states: ::core::default::Default,
                for<'__ecs> #resources: ::core::default::Default,
            {
                Self::with_systems(::core::default::Default::default())
            }

            /// Creates the context with the given system states, and every
            /// resource in its default state.
            ///
            /// Starts no thread: the workers start when a step first has
            /// work for them.
            #[must_use]
            #vis fn with_systems(systems: #states) -> Self
            where
                for<'__ecs> #resources: ::core::default::Default,
            {
                Self::from_parts(systems, ::core::default::Default::default(), #threads)
            }

            /// Creates the context with the given system states and
            /// resource values.
            ///
            /// Starts no thread: the workers start when a step first has
            /// work for them.
            #[must_use]
            #vis fn with_resources(systems: #states, resources: #resources) -> Self {
                Self::from_parts(systems, resources, #threads)
            }

            /// Creates the context with the given system states, running on
            /// `threads` threads instead of the declared count (`None`: one
            /// per available core): the caller of `step` and `threads - 1`
            /// workers. A count above 1024 is capped at 1024. Resources hold
            /// their default values.
            ///
            /// Starts no thread: the workers start when a step first has
            /// work for them.
            #[must_use]
            #vis fn with_threads(systems: #states, threads: ::core::option::Option<usize>) -> Self
            where
                for<'__ecs> #resources: ::core::default::Default,
            {
                Self::from_parts(systems, ::core::default::Default::default(), threads)
            }

            /// Creates the context with the given system states and
            /// resource values, running on `threads` threads (as
            /// `with_threads`).
            #[must_use]
            #vis fn from_parts(
                systems: #states,
                resources: #resources,
                threads: ::core::option::Option<usize>,
            ) -> Self {
                Self {
                    inner: ::ecs::__private::Context::from_parts(systems, resources, threads),
                }
            }
        }

        impl ::core::default::Default for #context
        where
            for<'__ecs> #states: ::core::default::Default,
            for<'__ecs> #resources: ::core::default::Default,
        {
            fn default() -> Self {
                Self::new()
            }
        }

        impl ::core::ops::Deref for #context {
            type Target = ::ecs::__private::Context<#context>;
            fn deref(&self) -> &Self::Target {
                &self.inner
            }
        }

        impl ::core::ops::DerefMut for #context {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.inner
            }
        }

        // SAFETY: the model was validated before emission: signatures list
        // each system's `read` and `write` components; the graph is acyclic
        // (`check_no_cycles`), `ancestors` is its transitive closure and
        // `TOPOLOGICAL` a topological order (`Model::build`); unordered
        // systems have compatible access to components
        // (`check_no_conflicts`) and resources
        // (`resources::check_no_conflicts`), `RESOURCES` lists each
        // resource once; the
        // `remove_component`, `relocate_component`, `swap_component` and
        // `slot_core` arms below
        // map each index to its own component and system.
        unsafe impl ::ecs::__private::ContextDecl for #context {
            type Bits = #bits;
            type Storages = #storages;
            type Systems = #slots;
            type States = #states;
            type Resources = #resource_cells;
            type ResourceValues = #resources;

            const NAME: &'static str = #name_str;
            const SETTINGS: ::ecs::__private::Settings = ::ecs::__private::Settings {
                entities: #entities,
                inner_parallelism: #inner,
                threads: #threads,
                layout: #layout,
            };
            const COMPONENTS: &'static [&'static str] = &[#(#component_names),*];
            const RESOURCES: &'static [&'static str] = &[#(#resource_names),*];
            const SYSTEMS: &'static [::ecs::__private::SystemInfo] = &[#(#system_infos),*];
            const SIGNATURES: &'static [Self::Bits] = &[#(#signatures),*];
            const TOPOLOGICAL: &'static [usize] = &[#(#topo),*];
            const SUMMARY: &'static str = #summary;
            const DOT: &'static str = #dot;
            const DOT_WITH_COMPONENTS: &'static str = #dot_components;

            fn new_storages(limit: ::ecs::__private::EntityLimit) -> #storages {
                #new_storages
            }

            fn new_resources(values: #resources) -> #resource_cells {
                let _ = &values;
                #new_resources
            }

            fn new_systems(states: #states) -> #slots {
                #new_slots
            }

            fn remove_component(storages: &mut #storages, index: usize, id: ::ecs::__private::EntityId) {
                match index {
                    #(#remove_arms)*
                    _ => {}
                }
            }

            fn relocate_component(
                storages: &mut #storages,
                index: usize,
                from: ::ecs::__private::EntityId,
                to: ::ecs::__private::EntityId,
            ) {
                match index {
                    #(#relocate_arms)*
                    _ => {}
                }
            }

            fn swap_component(
                storages: &mut #storages,
                index: usize,
                a: ::ecs::__private::EntityId,
                b: ::ecs::__private::EntityId,
            ) {
                match index {
                    #(#swap_arms)*
                    _ => {}
                }
            }

            #[inline]
            fn slot_core(systems: &#slots, index: usize) -> &::ecs::__private::SlotCore<Self> {
                &systems.cores[index]
            }

            #[inline]
            fn slot_core_mut(systems: &mut #slots, index: usize) -> &mut ::ecs::__private::SlotCore<Self> {
                &mut systems.cores[index]
            }
        }
    }
}
