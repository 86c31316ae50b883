//! `syn::parse::Parse` for the DSL: syntax only, plus checks on single items
//! (unknown or repeated keys, bad literals).

use crate::ast::*;
use crate::kw;
use crate::suggest::did_you_mean;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{braced, bracketed, parenthesized, Attribute, Error, Ident, LitInt, Path, Result, Token, Type};

impl Parse for Declaration {
    fn parse(input: ParseStream) -> Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        input.parse::<kw::context>().map_err(|e| {
            Error::new(
                e.span(),
                "expected `context`: a declaration starts with `pub context Name { ... }`",
            )
        })?;
        let name: Ident = input.parse()?;
        let body;
        braced!(body in input);
        let mut settings = None;
        let mut components = None;
        let mut systems = None;
        let mut resources = None;
        while !body.is_empty() {
            let section: Ident = body.parse()?;
            let content;
            braced!(content in body);
            let slot_taken = |taken: bool| -> Result<()> {
                if taken {
                    Err(Error::new(
                        section.span(),
                        format!("section `{section}` appears twice; merge them"),
                    ))
                } else {
                    Ok(())
                }
            };
            match section.to_string().as_str() {
                "settings" => {
                    slot_taken(settings.is_some())?;
                    settings = Some(parse_settings(&content)?);
                }
                "components" => {
                    slot_taken(components.is_some())?;
                    let mut list = Vec::new();
                    while !content.is_empty() {
                        list.push(content.parse()?);
                    }
                    components = Some(list);
                }
                "resources" => {
                    slot_taken(resources.is_some())?;
                    resources = Some(parse_resources(&content)?);
                }
                "systems" => {
                    slot_taken(systems.is_some())?;
                    let mut list = Vec::new();
                    while !content.is_empty() {
                        list.push(content.parse()?);
                        if content.peek(Token![,]) {
                            content.parse::<Token![,]>()?;
                        } else if content.peek(Token![;]) {
                            content.parse::<Token![;]>()?;
                        }
                    }
                    systems = Some(list);
                }
                _ => {
                    return Err(Error::new(
                        section.span(),
                        format!(
                            "unknown section `{section}`; expected `settings`, `components`, `resources` or `systems`"
                        ),
                    ))
                }
            }
        }
        if !input.is_empty() {
            return Err(
                input.error("unexpected tokens after the context's body: declare one context per `declare_context!`")
            );
        }
        Ok(Declaration {
            attrs,
            vis,
            name,
            settings: settings.unwrap_or_default(),
            components: components.unwrap_or_default(),
            resources: resources.unwrap_or_default(),
            systems: systems.unwrap_or_default(),
        })
    }
}

/// The value of a number in the DSL, `form` (as in "`split_every(N)`")
/// taking `what` (as in "the number of entities per subtask") from `min` to
/// `max`; the error names the setting, its form and its range.
pub fn count(lit: &LitInt, form: &str, what: &str, min: usize, max: usize) -> Result<usize> {
    match lit.base10_parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => {
            let range = match (min, max) {
                (0, usize::MAX) => "a whole number".to_string(),
                (min, usize::MAX) => format!("a whole number of at least {min}"),
                (min, max) => format!("a whole number from {min} to {max}"),
            };
            Err(Error::new(
                lit.span(),
                format!("{form} takes {what}, {range}; found `{lit}`"),
            ))
        }
    }
}

fn parse_settings(input: ParseStream) -> Result<Vec<Setting>> {
    let mut out: Vec<Setting> = Vec::new();
    while !input.is_empty() {
        let key: Ident = input.parse()?;
        let k = key.to_string();
        if ![kw::ENTITIES, kw::INNER_PARALLELISM, kw::THREADS, kw::SERDE].contains(&k.as_str()) {
            return Err(Error::new(
                key.span(),
                format!(
                    "unknown setting `{k}`; expected `entities`, `inner_parallelism`, `threads` or `serde`{}",
                    did_you_mean(&k, [kw::ENTITIES, kw::INNER_PARALLELISM, kw::THREADS, kw::SERDE])
                ),
            ));
        }
        if out.iter().any(|s| s.key == key) {
            return Err(Error::new(
                key.span(),
                format!("setting `{k}` is given twice; keep one"),
            ));
        }
        input.parse::<Token![:]>()?;
        let value = if input.peek(LitInt) {
            SettingValue::Number(input.parse()?)
        } else {
            let word: Ident = input.parse()?;
            match word.to_string().as_str() {
                kw::FIXED => {
                    let inner;
                    parenthesized!(inner in input);
                    SettingValue::Fixed(inner.parse()?)
                }
                kw::DYNAMIC => {
                    if input.peek(syn::token::Paren) {
                        let inner;
                        parenthesized!(inner in input);
                        SettingValue::Dynamic(Some(inner.parse()?))
                    } else {
                        SettingValue::Dynamic(None)
                    }
                }
                _ => SettingValue::Word(word),
            }
        };
        out.push(Setting { key, value });
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(out)
}

impl Parse for ComponentEntry {
    fn parse(input: ParseStream) -> Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let (types, parenthesised) = if input.peek(syn::token::Paren) {
            let inner;
            let paren = parenthesized!(inner in input);
            let list = Punctuated::<Path, Token![,]>::parse_terminated(&inner)?;
            (list.into_iter().collect(), Some(paren.span.join()))
        } else {
            let mut list = vec![input.parse::<Path>()?];
            while input.peek(Token![,]) {
                input.parse::<Token![,]>()?;
                list.push(input.parse()?);
            }
            (list, None)
        };
        input.parse::<Token![:]>().map_err(|e| {
            Error::new(
                e.span(),
                "expected `:` and a storage strategy, as in `Position: contiguous;`",
            )
        })?;
        let strategy: Ident = input.parse()?;
        let custom = if strategy == kw::CUSTOM {
            let inner;
            parenthesized!(inner in input);
            Some(inner.parse::<Type>()?)
        } else {
            None
        };
        let many_inner = parse_many_inner(input, &strategy)?;
        let known = [
            kw::CONTIGUOUS,
            kw::GROUPED,
            kw::SPARSE_SET,
            kw::HASH_MAP,
            kw::TAG,
            kw::CUSTOM,
            kw::MANY,
        ];
        if !known.iter().any(|k| strategy == k) {
            return Err(Error::new(
                strategy.span(),
                format!(
                    "unknown storage strategy `{strategy}`; expected `contiguous`, `grouped`, `sparse_set`, `hash_map`, `tag`, `many` or `custom(Type)`{}",
                    did_you_mean(&strategy.to_string(), known)
                ),
            ));
        }
        input.parse::<Token![;]>()?;
        Ok(ComponentEntry {
            attrs,
            types,
            parenthesised,
            strategy,
            custom,
            many_inner,
        })
    }
}

/// `resources { #[doc] Time, Grid, }`: types, each with its doc comments,
/// separated by `,` (or `;`, as components are).
fn parse_resources(input: ParseStream) -> Result<Vec<ResourceEntry>> {
    let mut out = Vec::new();
    while !input.is_empty() {
        let attrs = input.call(Attribute::parse_outer)?;
        let path: Path = input.parse()?;
        if input.peek(Token![:]) {
            return Err(input.error(
                "a resource has no storage strategy: write `resources { Time, Grid }`, and give values to the context's constructor",
            ));
        }
        out.push(ResourceEntry { attrs, path });
        if input.is_empty() {
            break;
        }
        if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
        } else {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(out)
}

impl Parse for SystemEntry {
    fn parse(input: ParseStream) -> Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let name: Ident = input.parse()?;
        input.parse::<Token![:]>().map_err(|e| {
            Error::new(
                e.span(),
                "expected `:` and the system's type, as in `velocity: Move { ... }`",
            )
        })?;
        let ty: Path = input.parse()?;
        let content;
        braced!(content in input);
        let mut fields: Vec<SystemField> = Vec::new();
        let mut seen: Vec<Ident> = Vec::new();
        while !content.is_empty() {
            let key: Ident = content.parse()?;
            if seen.contains(&key) {
                return Err(Error::new(
                    key.span(),
                    format!("`{key}` is given twice for system `{name}`; keep one"),
                ));
            }
            seen.push(key.clone());
            content.parse::<Token![:]>()?;
            let k = key.to_string();
            let field = match k.as_str() {
                kw::READ | kw::WRITE | kw::AFTER | kw::STREAM => {
                    let list;
                    bracketed!(list in content);
                    let items = Punctuated::<Path, Token![,]>::parse_terminated(&list)?;
                    SystemField::List(key, items.into_iter().collect())
                }
                kw::PARALLELISM => SystemField::Parallelism(content.parse()?),
                kw::OUTPUT => SystemField::Output(content.parse()?),
                kw::KIND => SystemField::Kind(parse_kind(&content, &name)?),
                _ => {
                    return Err(Error::new(
                        key.span(),
                        format!(
                            "unknown key `{k}` for system `{name}`; expected `read`, `write`, `after`, `stream`, `parallelism`, `output` or `kind`{}",
                            did_you_mean(&k, [kw::READ, kw::WRITE, kw::AFTER, kw::STREAM, kw::PARALLELISM, kw::OUTPUT, kw::KIND])
                        ),
                    ))
                }
            };
            fields.push(field);
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        Ok(SystemEntry {
            attrs,
            name,
            ty,
            fields,
        })
    }
}

/// The value of a system's `kind`: `entities` (the default) or `columns`.
fn parse_kind(input: ParseStream, system: &Ident) -> Result<Ident> {
    let word: Ident = input.parse()?;
    let known = [kw::KIND_ENTITIES, kw::KIND_COLUMNS];
    if !known.iter().any(|k| word == k) {
        return Err(Error::new(
            word.span(),
            format!(
                "unknown kind `{word}` for system `{system}`; expected `entities` (the default: it iterates entities) or `columns` (a column step: it computes over whole columns as slices){}",
                did_you_mean(&word.to_string(), known)
            ),
        ));
    }
    Ok(word)
}

impl Parse for ParallelismExpr {
    fn parse(input: ParseStream) -> Result<Self> {
        let word: Ident = input.parse()?;
        let w = word.to_string();
        let with_form = |form: &'static str| move |e: Error| Error::new(e.span(), format!("{e}: write {form}"));
        Ok(match w.as_str() {
            kw::NONE => ParallelismExpr::None,
            kw::SPLIT_EVENLY_PER_CORE => ParallelismExpr::SplitEvenlyPerCore,
            kw::SPLIT_EVERY => {
                const FORM: &str = "`split_every(N)`, as in `split_every(1024)`";
                let inner;
                parenthesized!(inner in input);
                let n: LitInt = inner.parse().map_err(with_form(FORM))?;
                count(&n, "`split_every(N)`", "the number of entities per subtask", 1, usize::MAX)?;
                ParallelismExpr::SplitEvery(n)
            }
            kw::NONE_BELOW => {
                const FORM: &str = "`none_below(N, strategy)`, as in `none_below(1000, split_evenly_per_core)`";
                let inner;
                parenthesized!(inner in input);
                let t: LitInt = inner.parse().map_err(with_form(FORM))?;
                count(
                    &t,
                    "`none_below(N, strategy)`",
                    "the number of entities below which the system runs as one subtask",
                    0,
                    usize::MAX,
                )?;
                if inner.is_empty() {
                    return Err(Error::new(
                        t.span(),
                        format!("`none_below` takes a threshold and the strategy to use from it on: write {FORM}"),
                    ));
                }
                inner.parse::<Token![,]>().map_err(with_form(FORM))?;
                let then: ParallelismExpr = inner.parse()?;
                ParallelismExpr::NoneBelow(t, Box::new(then))
            }
            _ => {
                return Err(Error::new(
                    word.span(),
                    format!(
                        "unknown parallelism strategy `{w}`; expected `none`, `split_evenly_per_core`, `split_every(N)` or `none_below(N, strategy)`{}",
                        did_you_mean(&w, [kw::NONE, kw::SPLIT_EVENLY_PER_CORE, kw::SPLIT_EVERY, kw::NONE_BELOW])
                    ),
                ))
            }
        })
    }
}

/// The optional `(strategy)` after `many`: where the sets of instances live
/// (checked in `validate::check_many`).
fn parse_many_inner(input: ParseStream, strategy: &Ident) -> Result<Option<Ident>> {
    if *strategy != kw::MANY || !input.peek(syn::token::Paren) {
        return Ok(None);
    }
    let inner;
    parenthesized!(inner in input);
    let ident: Ident = inner.parse()?;
    // `many(custom(Type))`: read the rest so the error is `check_many`'s.
    if !inner.is_empty() {
        inner.parse::<proc_macro2::TokenStream>()?;
    }
    Ok(Some(ident))
}
