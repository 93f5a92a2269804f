//! The parser is one linear pass: a large reply and hostile ones (thousands
//! of header-like lines, brackets everywhere, one enormous line, endless
//! reasoning tags) parse well within a generous time bound, with the
//! expected result.

use std::time::{Duration, Instant};

use twr_runtime::parse::{divider_parser, multi_section_parser, MatchMode};
use twr_runtime::{Choice, ProblemKind, Sections};

#[derive(Debug, PartialEq, Choice)]
enum Priority {
    Low,
    Medium,
    High,
}

#[derive(Debug, Sections)]
struct Report {
    /// The steps, one per line.
    plan: Vec<String>,
    timeline: String,
    weeks: u32,
    notes: Option<String>,
    priority: Priority,
}

/// Far above what a linear pass needs even in a debug build on a busy
/// machine, far below what a quadratic one would take on these inputs.
const BOUND: Duration = Duration::from_secs(5);

fn timed<T>(label: &str, input: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let elapsed = start.elapsed();
    eprintln!("{label}: {} bytes in {elapsed:?}", input.len());
    assert!(elapsed < BOUND, "{label} took {elapsed:?}");
    out
}

fn kinds(feedback: &twr_runtime::Feedback) -> Vec<(String, ProblemKind)> {
    feedback
        .problems()
        .iter()
        .map(|p| (p.header.clone(), p.kind.clone()))
        .collect()
}

#[test]
fn a_large_reply() {
    let mut raw = String::from("<think>\nLet me plan. [Plan] first, then [Weeks].\n</think>\n");
    raw.push_str("Here is my answer.\n\n## Plan\n");
    let mut items = 0;
    while raw.len() < 1_200_000 {
        items += 1;
        raw.push_str(&format!(
            "{items}. Visit temple number {items} and write notes about it\n"
        ));
    }
    raw.push_str("\n**Timeline:**\n");
    while raw.len() < 1_500_000 {
        raw.push_str("Morning: shrine, afternoon: garden, evening: a long dinner in Gion.\n");
    }
    raw.push_str("[Weeks]: 6 weeks\n[Priority]\n**High**\n");
    let report = timed("1.5 MB reply", &raw, || Report::parse_sections(&raw)).unwrap();
    assert_eq!(report.plan.len(), items);
    assert_eq!(
        report.plan[41],
        "Visit temple number 42 and write notes about it"
    );
    assert!(report.timeline.starts_with("Morning: shrine"));
    assert_eq!(report.weeks, 6);
    assert_eq!(report.notes, None);
    assert_eq!(report.priority, Priority::High);
}

#[test]
fn ten_thousand_header_lines() {
    let mut raw = String::new();
    for i in 0..10_000 {
        raw.push_str(&format!(
            "[Plan]\n- step {i}\n[Section {i}]\n## Heading {i}\n"
        ));
    }
    raw.push_str("[Weeks]\n3\n");
    let feedback = timed("10,000 header lines", &raw, || Report::parse_sections(&raw)).unwrap_err();
    assert_eq!(
        kinds(&feedback),
        [
            ("[Timeline]".to_owned(), ProblemKind::Missing),
            ("[Priority]".to_owned(), ProblemKind::Missing),
        ]
    );
    // The last [Plan] wins; the unknown header lines are part of its content.
    let map = multi_section_parser(&raw, &["Plan", "Weeks"], MatchMode::All).unwrap();
    assert_eq!(
        map.get("Plan"),
        Some("- step 9999\n[Section 9999]\n## Heading 9999")
    );
}

#[test]
fn a_hundred_thousand_brackets() {
    let mut raw = String::from("[Plan]\n");
    for _ in 0..25_000 {
        raw.push_str("[x] [[ ]] ");
    }
    raw.push_str("\n[Timeline]\nDay 1: [Weeks]\n");
    for _ in 0..25_000 {
        raw.push_str("【a】[b\n");
    }
    raw.push_str("[Priority]\nLow\n");
    let feedback = timed("100,000 brackets", &raw, || Report::parse_sections(&raw)).unwrap_err();
    assert_eq!(
        kinds(&feedback),
        [(
            "[Weeks]".to_owned(),
            ProblemKind::NotOnOwnLine {
                line: "Day 1: [Weeks]".to_owned()
            }
        )]
    );
}

#[test]
fn one_megabyte_lines() {
    let long_words = format!("Plan {}", "word ".repeat(200_000));
    let long_bracket = format!("[{}", "a".repeat(1_000_000));
    let long_digits = "7".repeat(1_000_000);
    let raw = format!(
        "{long_words}\n{long_bracket}\n[Plan]\n{long_words}\n[Timeline]\n{long_bracket}\n[Weeks]\n{long_digits}\n[Priority]\nMedium"
    );
    let feedback = timed("1 MB lines", &raw, || Report::parse_sections(&raw)).unwrap_err();
    assert_eq!(feedback.problems().len(), 1);
    assert_eq!(feedback.problems()[0].header, "[Weeks]");
    assert!(matches!(
        &feedback.problems()[0].kind,
        ProblemKind::BadValue { found, .. } if found.chars().count() == 81
    ));
    // The message quotes a shortened excerpt, never the whole line.
    assert!(feedback.to_string().len() < 1_000);
}

#[test]
fn endless_reasoning_tags_and_dividers() {
    let raw = format!(
        "{}{}</thinking>\n=====\n42\n",
        "<think>x</think>".repeat(50_000),
        "</think><thinking>".repeat(50_000),
    );
    let answer = timed("reasoning tags", &raw, || divider_parser(&raw)).unwrap();
    assert_eq!(answer, "42");
    let dividers = "=====\n".repeat(200_000) + "answer\n";
    let answer = timed("200,000 dividers", &dividers, || divider_parser(&dividers)).unwrap();
    assert_eq!(answer, "answer");
}
