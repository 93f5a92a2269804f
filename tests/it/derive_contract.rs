//! The derive exactly as the product contract shows it: every attribute on
//! one struct, in Chinese mode, parsed from a reply and checked field by
//! field.

use std::str::FromStr;

use serde::Deserialize;
use twr_runtime::{
    feedback::ProblemKind,
    sections::{Lang, Presence, ValueKind},
    Choice, Sections,
};

#[derive(Debug, PartialEq, Deserialize)]
struct Budget {
    total: u32,
    currency: String,
}

#[derive(Debug, PartialEq)]
struct MyDate {
    month: u8,
    day: u8,
}

impl FromStr for MyDate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (month, day) = s
            .trim()
            .split_once('-')
            .ok_or_else(|| format!("'{s}' is not a MM-DD date"))?;
        let month = month.parse().map_err(|_| format!("bad month '{month}'"))?;
        let day = day.parse().map_err(|_| format!("bad day '{day}'"))?;
        Ok(MyDate { month, day })
    }
}

#[derive(Debug, PartialEq, Default)]
struct Cache {
    hits: u32,
}

// The contract's `fn(&T) -> Result<(), String>`, with `T` the field type.
#[allow(clippy::ptr_arg)]
fn check_summary(summary: &String) -> Result<(), String> {
    if summary.chars().count() < 4 {
        Err("总结至少写四个字".to_owned())
    } else {
        Ok(())
    }
}

#[derive(Debug, PartialEq, Clone, Copy, Choice)]
enum Priority {
    Low,
    Medium,
    High,
}

#[derive(Debug, PartialEq, Sections)]
#[sections(lang = "zh")]
struct Plan {
    /// Doc comments become the section's description in the guide.
    #[section(
        header = "[Research Plan]",
        example = "1. Literature review\n2. Interviews"
    )]
    steps: Vec<String>,
    #[section(aliases = ["Schedule"])]
    timeline: String,
    weeks: u32,
    priority: Priority,
    notes: Option<String>,
    #[section(default)]
    tags: Vec<String>,
    #[section(json)]
    budget: Budget,
    #[section(from_str)]
    date: MyDate,
    #[section(validate = check_summary)]
    summary: String,
    #[section(skip)]
    cache: Cache,
}

const REPLY: &str = "<think>先想一想预算。</think>
好的，下面是计划。

## Research Plan
1. Literature review
2. Interviews with 12 people

**Schedule:**
Weeks 1-2 reading, weeks 3-6 interviews.

[Weeks]: 6 weeks
[Priority]
High.
[Notes]
无
[Budget]
```json
{\"total\": 1200, \"currency\": \"USD\"}
```
[Date]
03-15
[Summary]
先读文献，再做访谈。";

#[test]
fn the_contract_example_parses() {
    let plan = Plan::parse_sections(REPLY).unwrap();
    assert_eq!(
        plan,
        Plan {
            steps: vec![
                "Literature review".to_owned(),
                "Interviews with 12 people".to_owned()
            ],
            timeline: "Weeks 1-2 reading, weeks 3-6 interviews.".to_owned(),
            weeks: 6,
            priority: Priority::High,
            notes: None,
            tags: Vec::new(),
            budget: Budget {
                total: 1200,
                currency: "USD".to_owned()
            },
            date: MyDate { month: 3, day: 15 },
            summary: "先读文献，再做访谈。".to_owned(),
            cache: Cache::default(),
        }
    );
}

#[test]
fn the_contract_example_specs() {
    assert_eq!(Plan::lang(), Lang::Zh);
    let specs: Vec<_> = Plan::specs()
        .iter()
        .map(|s| (s.field, s.header, s.kind, s.presence))
        .collect();
    assert_eq!(
        specs,
        [
            (
                "steps",
                "[Research Plan]",
                ValueKind::List(&ValueKind::Text),
                Presence::Required
            ),
            (
                "timeline",
                "[Timeline]",
                ValueKind::Text,
                Presence::Required
            ),
            ("weeks", "[Weeks]", ValueKind::Integer, Presence::Required),
            (
                "priority",
                "[Priority]",
                ValueKind::Choice(&["Low", "Medium", "High"]),
                Presence::Required
            ),
            ("notes", "[Notes]", ValueKind::Text, Presence::Optional),
            (
                "tags",
                "[Tags]",
                ValueKind::List(&ValueKind::Text),
                Presence::Default
            ),
            ("budget", "[Budget]", ValueKind::Json, Presence::Required),
            ("date", "[Date]", ValueKind::Custom, Presence::Required),
            ("summary", "[Summary]", ValueKind::Text, Presence::Required),
        ]
    );
    assert_eq!(
        Plan::specs()[0].description,
        "Doc comments become the section's description in the guide."
    );
}

#[test]
fn the_contract_example_reports_each_broken_section() {
    let reply = REPLY
        .replace("[Weeks]: 6 weeks", "[Weeks]: about six")
        .replace("High.", "Urgent")
        .replace("03-15", "March")
        .replace("先读文献，再做访谈。", "好的");
    let feedback = Plan::parse_sections(&reply).unwrap_err();
    let problems: Vec<_> = feedback
        .problems()
        .iter()
        .map(|p| (p.header.as_str(), &p.kind))
        .collect();
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert_eq!(problems[0].0, "[Weeks]");
    assert!(matches!(problems[0].1, ProblemKind::BadValue { found, .. } if found == "about six"));
    assert_eq!(problems[1].0, "[Priority]");
    assert!(matches!(problems[1].1, ProblemKind::BadValue { found, .. } if found == "Urgent"));
    assert_eq!(problems[2].0, "[Date]");
    assert!(
        matches!(problems[2].1, ProblemKind::Unreadable { message, .. } if message == "'March' is not a MM-DD date")
    );
    assert_eq!(
        problems[3],
        (
            "[Summary]",
            &ProblemKind::Invalid {
                message: "总结至少写四个字".to_owned()
            }
        )
    );
    assert_eq!(feedback.lang(), Lang::Zh);
}
