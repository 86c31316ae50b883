//! Compile-error tests: every mistake in a declaration or an access gets its
//! error, with a reviewed `.stderr`; and full declarations build and run as a
//! crate outside the workspace.
//!
//! Paths are relative to this package's folder, `tests/ui/`; `TRYBUILD=overwrite
//! cargo test --test ui` regenerates the `.stderr` files.

/// The compile-fail categories: each case fails before code generation.
const COMPILE_FAIL: [&str; 8] = [
    "declaration/*.rs",
    "cycle/*.rs",
    "conflict/*.rs",
    "stream/*.rs",
    "access/*.rs",
    "cascade/*.rs",
    "soundness/*.rs",
    "surface/*.rs",
];

/// One case of each compile-fail category, also checked under `cargo build`.
const BUILT_TOO: [&str; 6] = [
    "declaration/tag_with_data.rs",
    "cycle/three_systems.rs",
    "conflict/write_write.rs",
    "access/write_not_in_write.rs",
    "cascade/three_mistakes.rs",
    "soundness/impl_bundle.rs",
];

#[test]
fn ui() {
    // Without pass cases trybuild runs `cargo check`, as editors do: every
    // error must show there, not only when code is generated.
    {
        let check = trybuild::TestCases::new();
        for cases in COMPILE_FAIL {
            check.compile_fail(cases);
        }
    }
    // With a pass case it runs `cargo build`. A case that fails under
    // `cargo check` fails identically under `cargo build`: rustc stops after
    // the analysis both run, before any code is generated, so no error can
    // be added or lost. One case per category pins that; building all of
    // them again took about a third of CI's time.
    let build = trybuild::TestCases::new();
    for case in BUILT_TOO {
        build.compile_fail(case);
    }
    // Misuses found only when code is generated: a constant evaluated in a
    // generic function of ecs-core (a bundle or query naming a component
    // twice), which `cargo check` does not evaluate.
    build.compile_fail("codegen/*.rs");
    build.pass("pass/*.rs");
}
