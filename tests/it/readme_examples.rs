//! The example outputs the README and the guide show are golden: each
//! example is run offline, the way a reader runs it (`cargo run --example
//! NAME` at the workspace root, or `cargo run -p twr-tests --example NAME`
//! for the two that serve a local API), and its whole output must equal the
//! block that follows `<!-- output of: cargo run ... -->` in README.md or a
//! page of the guide (twr-runtime/docs/guide/). That block is the one source
//! of the expected text, so the two cannot drift apart.

use std::process::Command;

/// The workspace root, where the README's commands are typed (this package
/// is tests/).
const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The documents that show an example's output: the README and the guide's
/// pages, by name.
const DOCUMENTS: &[(&str, &str)] = &[
    ("README.md", include_str!("../../README.md")),
    (
        "getting_started.md",
        include_str!("../../twr-runtime/docs/guide/getting_started.md"),
    ),
    (
        "tables.md",
        include_str!("../../twr-runtime/docs/guide/tables.md"),
    ),
    (
        "ways.md",
        include_str!("../../twr-runtime/docs/guide/ways.md"),
    ),
    (
        "phrases.md",
        include_str!("../../twr-runtime/docs/guide/phrases.md"),
    ),
    (
        "streaming.md",
        include_str!("../../twr-runtime/docs/guide/streaming.md"),
    ),
    (
        "batch.md",
        include_str!("../../twr-runtime/docs/guide/batch.md"),
    ),
    (
        "images.md",
        include_str!("../../twr-runtime/docs/guide/images.md"),
    ),
];

/// The text of the fenced block that follows the marker line for
/// `cargo run {command}`, in the one document that has it.
fn documented_output(command: &str) -> String {
    let marker = format!("<!-- output of: cargo run {command} -->");
    let holding: Vec<_> = DOCUMENTS
        .iter()
        .filter(|(_, text)| text.lines().any(|line| line.trim() == marker))
        .collect();
    let [(name, text)] = holding.as_slice() else {
        let names: Vec<_> = holding.iter().map(|(name, _)| *name).collect();
        panic!("{marker:?} must be in exactly one document, it is in {names:?}");
    };
    let mut lines = text
        .lines()
        .skip_while(|line| line.trim() != marker)
        .skip(1)
        .skip_while(|line| !line.starts_with("```"));
    let opening = lines
        .next()
        .unwrap_or_else(|| panic!("{name} has no block after {marker:?}"));
    let fence: String = opening.chars().take_while(|&c| c == '`').collect();
    let mut output = String::new();
    for line in lines.by_ref() {
        if line == fence {
            return output;
        }
        output.push_str(line);
        output.push('\n');
    }
    panic!("the block after {marker:?} in {name} is not closed");
}

/// The standard output of `cargo run {command}` (an example), run offline
/// at the workspace root with none of the environment that changes it.
fn run_example(command: &str) -> String {
    let output = Command::new(env!("CARGO"))
        .args(["run", "--quiet"])
        .args(command.split(' '))
        .current_dir(WORKSPACE)
        .env_remove("TWR_BASE_URL")
        .env_remove("LLM_MAX_RETRIES")
        .env_remove("TWR_MAX_ATTEMPTS")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo run {command} failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the example prints UTF-8")
}

#[test]
fn quickstart_prints_what_the_readme_shows() {
    let command = "--example quickstart";
    assert_eq!(run_example(command), documented_output(command));
}

#[test]
fn invoice_prints_what_the_docs_show() {
    let command = "--example invoice";
    assert_eq!(run_example(command), documented_output(command));
}

#[test]
fn research_plan_prints_what_the_docs_show() {
    let command = "--example research_plan";
    assert_eq!(run_example(command), documented_output(command));
}

#[test]
fn batch_api_prints_what_the_docs_show() {
    let command = "-p twr-tests --example batch_api";
    assert_eq!(run_example(command), documented_output(command));
}

#[test]
fn receipt_prints_what_the_docs_show() {
    let command = "--example receipt";
    assert_eq!(run_example(command), documented_output(command));
}

#[test]
fn streaming_prints_what_the_docs_show() {
    let command = "--example streaming";
    assert_eq!(run_example(command), documented_output(command));
}

#[test]
fn agent_prints_what_the_docs_show() {
    let command = "--example agent";
    assert_eq!(run_example(command), documented_output(command));
}

#[test]
fn german_prints_what_the_docs_show() {
    let command = "--example german";
    assert_eq!(run_example(command), documented_output(command));
}
