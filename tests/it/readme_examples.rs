//! The README's example outputs are golden: each example is run offline, the
//! way a reader runs it (`cargo run --example NAME`), and its whole output
//! must equal the block that follows `<!-- output of: cargo run --example
//! NAME -->` in README.md. The README is the one source of the expected
//! text, so the two cannot drift apart.

use std::process::Command;

const README: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"));

/// The text of the fenced block that follows the README's marker line for
/// `example`.
fn readme_output(example: &str) -> String {
    let marker = format!("<!-- output of: cargo run --example {example} -->");
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

/// The example's standard output, run offline through cargo with none of
/// the environment that changes it.
fn run_example(example: &str) -> String {
    let output = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--example", example])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("TWR_BASE_URL")
        .env_remove("LLM_MAX_RETRIES")
        .env_remove("TWR_MAX_ATTEMPTS")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo run --example {example} failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the example prints UTF-8")
}

#[test]
fn quickstart_prints_what_the_readme_shows() {
    assert_eq!(run_example("quickstart"), readme_output("quickstart"));
}

#[test]
fn invoice_prints_what_the_readme_shows() {
    assert_eq!(run_example("invoice"), readme_output("invoice"));
}

#[test]
fn research_plan_prints_what_the_readme_shows() {
    assert_eq!(run_example("research_plan"), readme_output("research_plan"));
}

#[test]
fn batch_api_prints_what_the_readme_shows() {
    assert_eq!(run_example("batch_api"), readme_output("batch_api"));
}

#[test]
fn receipt_prints_what_the_readme_shows() {
    assert_eq!(run_example("receipt"), readme_output("receipt"));
}

#[test]
fn streaming_prints_what_the_readme_shows() {
    assert_eq!(run_example("streaming"), readme_output("streaming"));
}

#[test]
fn agent_prints_what_the_readme_shows() {
    assert_eq!(run_example("agent"), readme_output("agent"));
}

#[test]
fn german_prints_what_the_readme_shows() {
    assert_eq!(run_example("german"), readme_output("german"));
}
