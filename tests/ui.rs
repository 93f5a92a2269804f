//! Compile-fail cases of `#[derive(Sections)]` and `#[derive(Choice)]`: each
//! file in tests/ui/ holds one mistake and the `.stderr` beside it the exact
//! errors, so a change in wording or span shows up in review.
//!
//! The `.stderr` files are rustc's own words, which change between
//! releases, so they are compared only under the toolchain they were made
//! with, the one in `.ci/toolchain` (CI runs on it). Under any other
//! compiler the test says it skipped the comparison and passes, so that a
//! reader's `cargo test --workspace` on whatever Rust they have stays
//! green; with `CI=true` (as `.ci/run` sets) it fails instead.
//!
//! Regenerate after an intended change with
//! `TRYBUILD=overwrite RUSTUP_TOOLCHAIN=1.97.1 cargo test -p twr-tests --test ui`
//! (the version in `.ci/toolchain`), then read the diff.

use std::io::Write;
use std::process::Command;

/// `.ci/toolchain`: comment lines, then the pinned version.
const TOOLCHAIN_FILE: &str = include_str!("../.ci/toolchain");

/// The version `.ci/toolchain` pins, such as `1.97.1`.
fn pinned_version() -> &'static str {
    TOOLCHAIN_FILE
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#'))
        .expect(".ci/toolchain names a toolchain")
}

/// The version of the `rustc` that trybuild's cargo will run: the first
/// line of `rustc --version`, such as `rustc 1.97.1 (8bab26f4f 2026-07-14)`.
/// Cargo runs this test with the toolchain it was started with (rustup
/// passes `RUSTUP_TOOLCHAIN` on), and trybuild's cargo inherits it too.
fn rustc_version() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .arg("--version")
        .output()
        .unwrap_or_else(|error| panic!("cannot run {rustc:?} --version: {error}"));
    assert!(
        output.status.success(),
        "{rustc:?} --version failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// Whether `version` (a `rustc --version` line) is the compiler `pinned`
/// names.
fn is_pinned(version: &str, pinned: &str) -> bool {
    version.split(' ').nth(1) == Some(pinned)
}

#[test]
fn pinned_version_is_matched_exactly() {
    let version = "rustc 1.97.1 (8bab26f4f 2026-07-14)";
    assert!(is_pinned(version, "1.97.1"));
    assert!(!is_pinned(version, "1.97.10"));
    assert!(!is_pinned(version, "1.97"));
    assert!(!is_pinned("rustc 1.95.0 (59807616e 2026-04-14)", "1.97.1"));
}

#[test]
fn ui() {
    let pinned = pinned_version();
    let version = rustc_version();
    if !is_pinned(&version, pinned) {
        let why = format!(
            "tests/ui: the .stderr files are made with Rust {pinned} (.ci/toolchain), this is {version}"
        );
        if std::env::var_os("CI").is_some_and(|ci| ci == "true") {
            panic!(
                "{why}; CI runs the UI tests only on that toolchain (RUSTUP_TOOLCHAIN={pinned})"
            );
        }
        // Written to the process's stderr, past the test harness's capture
        // (which holds `eprintln!` of a passing test): a skip is never silent.
        let _ = writeln!(
            std::io::stderr(),
            "{why}: compile-fail comparison SKIPPED (run it with RUSTUP_TOOLCHAIN={pinned})"
        );
        return;
    }
    let cases = trybuild::TestCases::new();
    // The working directory is this package's, tests/.
    cases.compile_fail("ui/*.rs");
}
