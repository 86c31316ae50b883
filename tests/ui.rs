//! Compile-error tests: every mistake in a declaration or an access gets its
//! error, with a reviewed `.stderr`; and full declarations build and run as a
//! crate outside the workspace.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/declaration/*.rs");
    t.compile_fail("tests/ui/cycle/*.rs");
    t.compile_fail("tests/ui/conflict/*.rs");
    t.compile_fail("tests/ui/access/*.rs");
    t.compile_fail("tests/ui/cascade/*.rs");
    t.compile_fail("tests/ui/soundness/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
