//! Property tests: any reply written in the loose format reads back to the
//! values it was written from, whatever the header style, reasoning block,
//! fence or line endings; and no input makes the parser panic.

use proptest::prelude::*;
use twr_runtime::parse::{divider_parser, multi_section_parser, MatchMode};
use twr_runtime::Sections;

#[derive(Debug, Clone, PartialEq, Sections)]
struct Report {
    plan: Vec<String>,
    timeline: String,
    weeks: u32,
    notes: Option<String>,
}

/// Every header style of the contract, for a section named `name`.
fn header(style: usize, name: &str) -> String {
    match style % 9 {
        0 => format!("[{name}]"),
        1 => format!("[{}]", name.to_lowercase()),
        2 => format!("## {name}"),
        3 => format!("**[{name}]**"),
        4 => format!("**{name}:**"),
        5 => format!("{}:", name.to_uppercase()),
        6 => format!("【{name}】"),
        7 => format!("__{name}__"),
        _ => name.to_owned(),
    }
}

/// The names of the sections, which content may mention.
const NAMES: [&str; 4] = ["plan", "timeline", "weeks", "notes"];

/// Text a model writes inside a section: words, and the hard parts that
/// look like structure without being a header line: brackets, `#`, `**`,
/// `Word:`, list markers, and the section names themselves, with and
/// without brackets, inside the sentence.
fn sentence() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        3 => "[a-z][a-z,.'()]{0,8}",
        1 => prop::sample::select(vec![
            "[x]", "[Plan]", "[Weeks]", "[Timeline]:", "Plan", "Weeks", "Timeline", "Notes:",
            "**[Notes]**", "#3", "##", "**bold**", "__under__", "*", "Word:", "(1)", "1.", "【a】",
            "[", "]", ":", "N/A", "=====", "<b>",
        ])
        .prop_map(str::to_owned),
    ];
    (
        "[A-Za-z][a-z]{0,7}",
        prop::collection::vec(token, 1..8),
        "[a-z]{1,8}[.!]?",
    )
        .prop_map(|(first, middle, last)| format!("{first} {} {last}", middle.join(" ")))
}

/// A line of free text: a sentence, or one shaped like a header that
/// names no section (`Morning:`, `# Kyoto`, `**Day 2**`).
fn free_line() -> impl Strategy<Value = String> {
    let word = "[A-Z][a-z]{2,8}".prop_filter("a section name", |w| {
        !NAMES.contains(&w.to_lowercase().as_str())
    });
    prop_oneof![
        2 => sentence(),
        1 => ("Day [1-9]:", sentence()).prop_map(|(day, s)| format!("{day} {s}")),
        1 => (word.clone(), sentence()).prop_map(|(w, s)| format!("{w}: {s}")),
        1 => word.clone().prop_map(|w| format!("# {w}")),
        1 => word.prop_map(|w| format!("**{w}**")),
    ]
}

fn report() -> impl Strategy<Value = Report> {
    (
        prop::collection::vec(sentence(), 1..6),
        prop::collection::vec(free_line(), 1..4).prop_map(|lines| lines.join("\n")),
        any::<u32>(),
        // Notes that say "does not apply" (Na, None, Nil, Null) read back as
        // None by design, so the generator leaves them out.
        prop::option::of(sentence().prop_filter("an N/A marker", |n| {
            !matches!(
                n.trim().to_lowercase().as_str(),
                "na" | "none" | "nil" | "null"
            )
        })),
    )
        .prop_map(|(plan, timeline, weeks, notes)| Report {
            plan,
            timeline,
            weeks,
            notes,
        })
}

fn write(report: &Report, styles: &[usize; 4], marker: usize, weeks_unit: bool) -> String {
    let mut raw = String::new();
    raw.push_str(&header(styles[0], "Plan"));
    raw.push('\n');
    for (i, item) in report.plan.iter().enumerate() {
        let marker = match marker % 5 {
            0 => "-".to_owned(),
            1 => "*".to_owned(),
            2 => format!("{}.", i + 1),
            3 => format!("({})", i + 1),
            _ => "•".to_owned(),
        };
        raw.push_str(&format!("{marker} {item}\n"));
    }
    raw.push_str(&format!(
        "\n{}\n{}\n",
        header(styles[1], "Timeline"),
        report.timeline
    ));
    let weeks = if weeks_unit {
        format!("about {} weeks", report.weeks)
    } else {
        report.weeks.to_string()
    };
    raw.push_str(&format!("{}\n{weeks}\n", header(styles[2], "Weeks")));
    if let Some(notes) = &report.notes {
        raw.push_str(&format!("{}\n{notes}\n", header(styles[3], "Notes")));
    }
    raw
}

proptest! {
    #[test]
    fn written_replies_read_back(
        report in report(),
        styles in any::<[usize; 4]>(),
        marker in any::<usize>(),
        weeks_unit in any::<bool>(),
        think in any::<bool>(),
        fence in any::<bool>(),
        crlf in any::<bool>(),
    ) {
        let mut raw = write(&report, &styles, marker, weeks_unit);
        if fence {
            raw = format!("```markdown\n{raw}```\n");
        }
        if think {
            raw = format!("<think>\n[Plan]\n- a draft\n[Weeks]\nmany\n</think>\nHere it is.\n{raw}");
        }
        if crlf {
            raw = raw.replace('\n', "\r\n");
        }
        prop_assert_eq!(Report::parse_sections(&raw), Ok(report));
    }

    #[test]
    fn no_input_panics(
        pieces in prop::collection::vec(
            prop::sample::select(vec![
                "[Plan]", "[plan", "]", "【", "】", "Plan", "Weeks", "Notes:", "：", ":", "\n", "\r\n",
                " ", "<think>", "</think>", "<thinking>", "```", "~~~", "#", "**", "_", "- ", "1.",
                "(2)", "42", "-7", "1,200", "e5", ".", "计划", "é", "=====", "N/A", "\u{3000}",
            ]),
            0..60,
        )
    ) {
        let raw: String = pieces.concat();
        let _ = Report::parse_sections(&raw);
        let _ = multi_section_parser(&raw, &["Plan", "[计划]", "Weeks"], MatchMode::All);
        let _ = divider_parser(&raw);
        if let Err(feedback) = Report::parse_sections(&raw) {
            prop_assert!(!feedback.problems().is_empty());
            prop_assert!(!feedback.to_string().is_empty());
        }
    }
}
