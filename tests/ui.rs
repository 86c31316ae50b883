//! Compile-error tests: every mistake in a declaration or an access gets its
//! error, with a reviewed `.stderr`; and full declarations build and run as a
//! crate outside the workspace.

const COMPILE_FAIL: [&str; 7] = [
    "tests/ui/declaration/*.rs",
    "tests/ui/cycle/*.rs",
    "tests/ui/conflict/*.rs",
    "tests/ui/access/*.rs",
    "tests/ui/cascade/*.rs",
    "tests/ui/soundness/*.rs",
    "tests/ui/surface/*.rs",
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
    // With a pass case it runs `cargo build`: the same errors, and no other.
    let build = trybuild::TestCases::new();
    for cases in COMPILE_FAIL {
        build.compile_fail(cases);
    }
    // Misuses found only when code is generated: a constant evaluated in a
    // generic function of ecs-core (a bundle or query naming a component
    // twice), which `cargo check` does not evaluate.
    build.compile_fail("tests/ui/codegen/*.rs");
    build.pass("tests/ui/pass/*.rs");
}
