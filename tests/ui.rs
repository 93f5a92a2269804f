//! Compile-fail cases of `#[derive(Sections)]` and `#[derive(Choice)]`: each
//! file in tests/ui/ holds one mistake and the `.stderr` beside it the exact
//! errors, so a change in wording or span shows up in review.
//!
//! Regenerate after an intended change with
//! `TRYBUILD=overwrite cargo test -p twr-tests --test ui`, then read the diff.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    // The working directory is this package's, tests/.
    cases.compile_fail("ui/*.rs");
}
