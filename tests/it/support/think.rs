//! A hand-written `Sections` type shared by the loop tests, so they do not
//! depend on the derive: `[Plan]` text, `[Days]` and `[Budget]` whole numbers.
#![allow(dead_code)]

use twr_runtime::feedback::ProblemKind;
use twr_runtime::Feedback;
use twr_runtime::{
    feedback::Problem, sections::ValueKind, FinishReason, Message, Reply, SectionSpec, Sections,
    Usage,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trip {
    pub plan: String,
    pub days: u32,
    pub budget: u32,
}

const SPECS: &[SectionSpec] = &[
    spec("plan", "[Plan]", "Plan", "Visit temples", ValueKind::Text),
    spec("days", "[Days]", "Days", "3", ValueKind::Integer),
    spec("budget", "[Budget]", "Budget", "500", ValueKind::Integer),
];

const fn spec(
    field: &'static str,
    header: &'static str,
    name: &'static str,
    example: &'static str,
    kind: ValueKind,
) -> SectionSpec {
    SectionSpec::new(field, header, name, kind).with_example(example)
}

pub const GUIDE: &str = "Answer in these sections, each header on its own line:\n[Plan]\n[Days]\n[Budget]\n\nExample answer:\n[Plan]\nVisit temples\n[Days]\n3\n[Budget]\n500";

impl Sections for Trip {
    fn specs() -> &'static [SectionSpec] {
        SPECS
    }

    fn format_guide() -> String {
        GUIDE.to_string()
    }

    /// A small line-based parser: a header is a line that is exactly
    /// `[Name]` (any case); the last occurrence wins.
    fn parse_sections(raw: &str) -> Result<Self, Feedback> {
        let mut found: [Option<String>; 3] = [None, None, None];
        let mut current: Option<usize> = None;
        for line in raw.lines() {
            let trimmed = line.trim();
            if let Some(index) = SPECS
                .iter()
                .position(|s| s.header.eq_ignore_ascii_case(trimmed))
            {
                found[index] = Some(String::new());
                current = Some(index);
            } else if let Some(index) = current {
                let text = found[index].as_mut().expect("opened");
                text.push_str(line);
                text.push('\n');
            }
        }
        let mut feedback = Feedback::new(Default::default());
        let mut text = |index: usize| -> Option<String> {
            let spec = &SPECS[index];
            match found[index].as_deref().map(str::trim) {
                None => {
                    feedback.push(problem(spec, ProblemKind::Missing));
                    None
                }
                Some("") => {
                    feedback.push(problem(spec, ProblemKind::Empty));
                    None
                }
                Some(content) => Some(content.to_string()),
            }
        };
        let plan = text(0);
        let days = text(1);
        let budget = text(2);
        let mut number = |index: usize, content: Option<String>| -> Option<u32> {
            let content = content?;
            match content.parse::<u32>() {
                Ok(n) => Some(n),
                Err(_) => {
                    feedback.push(problem(
                        &SPECS[index],
                        ProblemKind::Invalid {
                            message: format!(
                                "write a single whole number such as 3, not '{content}'"
                            ),
                        },
                    ));
                    None
                }
            }
        };
        let days = number(1, days);
        let budget = number(2, budget);
        match (plan, days, budget) {
            (Some(plan), Some(days), Some(budget)) if feedback.is_empty() => {
                Ok(Trip { plan, days, budget })
            }
            _ => Err(feedback),
        }
    }
}

fn problem(spec: &SectionSpec, kind: ProblemKind) -> Problem {
    Problem::new(spec.header, kind)
        .with_field(spec.field)
        .with_example(spec.example)
}

/// The feedback `Trip` gives for `raw` (panics if it parses).
pub fn problems_of(raw: &str) -> Feedback {
    Trip::parse_sections(raw).expect_err("the reply should not parse")
}

/// The first user message of a run of `Trip`.
pub fn prompt_with_guide(prompt: &str) -> Message {
    Message::user(format!("{prompt}\n\n{GUIDE}"))
}

/// The message sent back after a rejection of `raw` asking for `request`.
pub fn patch_feedback(raw: &str, request: &str) -> String {
    format!("{}\n\n{request}", problems_of(raw).problem_list())
}

/// A reply that ended normally with the given usage.
pub fn reply_with_usage(content: &str, prompt_tokens: u64, completion_tokens: u64) -> Reply {
    Reply::text(content.to_string())
        .with_usage(Usage::new(prompt_tokens, completion_tokens))
        .with_finish_reason(FinishReason::Stop)
}

/// A reply cut off by the token limit.
pub fn truncated(content: &str) -> Reply {
    Reply::text(content.to_string())
        .with_usage(Usage::new(10, 20))
        .with_finish_reason(FinishReason::Length)
}

pub const GOOD: &str = "[Plan]\nVisit Kiyomizu-dera and Fushimi Inari\n[Days]\n3\n[Budget]\n500";

pub fn good_trip() -> Trip {
    Trip {
        plan: "Visit Kiyomizu-dera and Fushimi Inari".to_string(),
        days: 3,
        budget: 500,
    }
}
