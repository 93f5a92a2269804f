//! The README's example outputs are golden: each example is run offline, the
//! way a reader runs it (`cargo run --example NAME` at the workspace root, or
//! `cargo run -p twr-tests --example NAME` for the two that serve a local
//! API), and its whole output must equal the block that follows
//! `<!-- output of: cargo run ... -->` in README.md. The README is the one
//! source of the expected text, so the two cannot drift apart.

use std::process::Command;

/// The workspace root, where the README's commands are typed (this package
/// is tests/).
const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

const README: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"));

/// The text of the fenced block that follows the README's marker line for
/// `cargo run {command}`.
fn readme_output(command: &str) -> String {
    let marker = format!("<!-- output of: cargo run {command} -->");
    let mut lines = README
        .lines()
        .skip_while(|line| line.trim() != marker)
        .skip(1)
        .skip_while(|line| !line.starts_with("```"));
    let opening = lines
        .next()
        .unwrap_or_else(|| panic!("README.md has no block after {marker:?}"));
    let fence: String = opening.chars().take_while(|&c| c == '`').collect();
    let mut text = String::new();
    for line in lines.by_ref() {
        if line == fence {
            return text;
        }
        text.push_str(line);
        text.push('\n');
    }
    panic!("the block after {marker:?} in README.md is not closed");
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
    assert_eq!(run_example(command), readme_output(command));
}

#[test]
fn invoice_prints_what_the_readme_shows() {
    let command = "--example invoice";
    assert_eq!(run_example(command), readme_output(command));
}

#[test]
fn research_plan_prints_what_the_readme_shows() {
    let command = "--example research_plan";
    assert_eq!(run_example(command), readme_output(command));
}

#[test]
fn batch_api_prints_what_the_readme_shows() {
    let command = "-p twr-tests --example batch_api";
    assert_eq!(run_example(command), readme_output(command));
}

#[test]
fn receipt_prints_what_the_readme_shows() {
    let command = "--example receipt";
    assert_eq!(run_example(command), readme_output(command));
}

#[test]
fn streaming_prints_what_the_readme_shows() {
    let command = "--example streaming";
    assert_eq!(run_example(command), readme_output(command));
}

#[test]
fn agent_prints_what_the_readme_shows() {
    let command = "--example agent";
    assert_eq!(run_example(command), readme_output(command));
}

#[test]
fn german_prints_what_the_readme_shows() {
    let command = "--example german";
    assert_eq!(run_example(command), readme_output(command));
}
