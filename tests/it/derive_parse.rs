//! `parse_sections`, `format_guide` and the feedback of derived structs, on
//! real model replies from SmolLM2-135M-Instruct (the samples are copied
//! verbatim from the project's sample collection, ids as there).

use std::str::FromStr;

use serde::Deserialize;
use twr_runtime::{feedback::ProblemKind, sections::Lang, Feedback, Sections};

/// S3: few-shot prompt, temperature 0.7, seed 1005; complete and clean.
const S3: &str = "[Plan]
Day 1: Kinkaku-ji Temple (Otemochi) and Nijo Castle
Day 2: Shibuya Crossing, Ikebukudai, and Tokyo's Fashion Week (Kyoto Fashion Week)
Day 3: Aruko-ji Temple and the Tokyo Tower
[Timeline]
Morning: Fushimi-inari Shrine
Evening: Gion-no-miyakura and Ise Palace
[Budget]
$205";

/// S2: temperature 0.7, seed 1003; a stray preamble line before `[Plan]`.
const S2: &str = "Visit temples

[Plan]
Immerse yourself in traditional Japanese culture
[Timeline]
Day 2: Kyoto

At the Tsukiji Fish Market, try a delicious sushi roll
Dowel and a mokuba (a type of sashimi)
Sakura no Kagiri [Joyous Shining Sky]
Reflect on Japanese culture at the Tsukiji Fish Market
[Budget]
$500";

/// S1: temperature 0.0; the first header `[Plan]` is dropped.
const S1: &str = "Visit temples
[Timeline]
Day 2: Kyoto
...
[Budget]
$1500";

/// S4: temperature 0.7, seed 1002; only the last header.
const S4: &str = "Visit temples
2 days
[Budget]
$300";

/// S4's reply to feedback: the header moved inside a line.
const S4_RETRY: &str = "Visit temples
Day 2: [Budget]
$500";

/// A three-day trip.
#[derive(Debug, PartialEq, Sections)]
struct Trip {
    /// What to see, one stop per line.
    #[section(example = "Visit temples")]
    plan: Vec<String>,
    /// When, one slot per line.
    #[section(aliases = ["Schedule"], example = "Day 1: Fushimi Inari")]
    timeline: Vec<String>,
    /// The total in US dollars.
    #[section(example = "$500")]
    budget: u32,
}

#[test]
fn a_clean_real_reply_parses_into_the_struct() {
    let trip = Trip::parse_sections(S3).unwrap();
    assert_eq!(
        trip,
        Trip {
            plan: vec![
                "Day 1: Kinkaku-ji Temple (Otemochi) and Nijo Castle".to_owned(),
                "Day 2: Shibuya Crossing, Ikebukudai, and Tokyo's Fashion Week (Kyoto Fashion Week)"
                    .to_owned(),
                "Day 3: Aruko-ji Temple and the Tokyo Tower".to_owned(),
            ],
            timeline: vec![
                "Morning: Fushimi-inari Shrine".to_owned(),
                "Evening: Gion-no-miyakura and Ise Palace".to_owned(),
            ],
            budget: 205,
        }
    );
}

#[test]
fn a_preamble_and_a_bracketed_phrase_inside_a_section_are_content() {
    let trip = Trip::parse_sections(S2).unwrap();
    assert_eq!(
        trip.plan,
        ["Immerse yourself in traditional Japanese culture"]
    );
    assert_eq!(
        trip.timeline,
        [
            "Day 2: Kyoto",
            "At the Tsukiji Fish Market, try a delicious sushi roll",
            "Dowel and a mokuba (a type of sashimi)",
            "Sakura no Kagiri [Joyous Shining Sky]",
            "Reflect on Japanese culture at the Tsukiji Fish Market",
        ]
    );
    assert_eq!(trip.budget, 500);
}

/// The problems as data: header, field and kind.
fn problems(feedback: &Feedback) -> Vec<(&str, Option<&str>, &ProblemKind)> {
    feedback
        .problems()
        .iter()
        .map(|p| (p.header.as_str(), p.field.as_deref(), &p.kind))
        .collect()
}

#[test]
fn a_missing_section_is_named_with_its_example() {
    let feedback = Trip::parse_sections(S1).unwrap_err();
    assert_eq!(
        problems(&feedback),
        [("[Plan]", Some("plan"), &ProblemKind::Missing)]
    );
    assert_eq!(
        feedback.problems()[0].example.as_deref(),
        Some("Visit temples")
    );
    assert_eq!(feedback.lang(), Lang::En);
    assert_eq!(
        feedback.to_string(),
        "The [Plan] section is missing. Please add it: the header [Plan] on a line of its own, \
         then a list, one item per line.\nFor example:\n[Plan]\nVisit temples\n\n\
         Please write that section again: the header on a line of its own, followed by its content."
    );
}

#[test]
fn every_problem_of_a_reply_is_reported_in_section_order() {
    let feedback = Trip::parse_sections(S4).unwrap_err();
    assert_eq!(
        problems(&feedback),
        [
            ("[Plan]", Some("plan"), &ProblemKind::Missing),
            ("[Timeline]", Some("timeline"), &ProblemKind::Missing),
        ]
    );
    assert_eq!(feedback.headers(), ["[Plan]", "[Timeline]"]);
}

#[test]
fn a_header_inside_a_line_gets_its_own_hint() {
    let feedback = Trip::parse_sections(S4_RETRY).unwrap_err();
    assert_eq!(
        problems(&feedback),
        [
            ("[Plan]", Some("plan"), &ProblemKind::Missing),
            ("[Timeline]", Some("timeline"), &ProblemKind::Missing),
            (
                "[Budget]",
                Some("budget"),
                &ProblemKind::NotOnOwnLine {
                    line: "Day 2: [Budget]".to_owned()
                }
            ),
        ]
    );
}

#[test]
fn an_alias_counts_as_the_header() {
    let trip =
        Trip::parse_sections("[Plan]\nGion\n[Schedule]\nDay 1: Gion\n[Budget]\n$90").unwrap();
    assert_eq!(trip.timeline, ["Day 1: Gion"]);
}

#[test]
fn the_format_guide_shows_headers_descriptions_and_examples() {
    // Doc comments become descriptions and `example`s make the example
    // answer, in declaration order.
    assert_eq!(
        Trip::format_guide(),
        "Think it through freely first. Then give your final answer in the sections below, \
         each header on a line of its own followed by its content.\n\n\
         [Plan]\nWhat to see, one stop per line.\n\n\
         [Timeline]\nWhen, one slot per line.\n\n\
         [Budget]\nThe total in US dollars. A single whole number.\n\n\
         Example answer:\n\n\
         [Plan]\nVisit temples\n[Timeline]\nDay 1: Fushimi Inari\n[Budget]\n$500\n\n\
         After any thinking, begin your final answer with [Plan] on a line of its own."
    );
}

#[derive(Debug, PartialEq, Deserialize)]
struct Cost {
    total: u32,
    currency: String,
}

#[derive(Debug, PartialEq)]
struct Day(u32);

impl FromStr for Day {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        s.trim()
            .strip_prefix("day ")
            .and_then(|n| n.parse().ok())
            .map(Day)
            .ok_or_else(|| "write it as `day N`".to_owned())
    }
}

fn no_placeholder(text: &str) -> Result<(), String> {
    if text.contains("TODO") {
        Err("replace TODO with the real summary".to_owned())
    } else {
        Ok(())
    }
}

// The field's own type works as well as what it borrows as.
#[allow(clippy::ptr_arg)]
fn at_most_two(tags: &String) -> Result<(), &'static str> {
    if tags.split(',').count() > 2 {
        Err("give at most two tags")
    } else {
        Ok(())
    }
}

fn few_notes(notes: &[String]) -> Result<(), String> {
    if notes.len() > 3 {
        Err(format!("keep to three notes; there are {}", notes.len()))
    } else {
        Ok(())
    }
}

#[derive(Debug, PartialEq, Default)]
struct Cache {
    hits: u32,
}

#[derive(Debug, PartialEq, Sections)]
struct Report {
    #[section(json)]
    cost: Cost,
    #[section(from_str)]
    start: Day,
    #[section(validate = no_placeholder)]
    summary: String,
    #[section(validate = at_most_two)]
    tags: Option<String>,
    #[section(default, validate = few_notes)]
    notes: Vec<String>,
    #[section(skip)]
    cache: Cache,
}

#[test]
fn every_attribute_reads_its_section() {
    let report = Report::parse_sections(
        "[Cost]\n```json\n{\"total\": 120, \"currency\": \"USD\"}\n```\n[Start]\nday 3\n[Summary]\nAll booked.\n[Tags]\nN/A",
    )
    .unwrap();
    assert_eq!(
        report,
        Report {
            cost: Cost {
                total: 120,
                currency: "USD".to_owned()
            },
            start: Day(3),
            summary: "All booked.".to_owned(),
            tags: None,
            notes: Vec::new(),
            cache: Cache::default(),
        }
    );

    let report = Report::parse_sections(
        "[Cost]\n{total: 9, currency: 'JPY',}\n[Start]\nday 1\n[Summary]\nDone\n[Tags]\nfood, temples\n[Notes]\n- bring cash\n- book early",
    )
    .unwrap();
    assert_eq!(report.cost.total, 9);
    assert_eq!(report.tags.as_deref(), Some("food, temples"));
    assert_eq!(report.notes, ["bring cash", "book early"]);
}

#[test]
fn codec_and_validator_failures_become_problems() {
    let feedback = Report::parse_sections(
        "[Cost]\n{\"total\": \"lots\", \"currency\": \"USD\"}\n[Start]\ntomorrow\n[Summary]\nTODO\n[Tags]\na, b, c\n[Notes]\n- a\n- b\n- c\n- d",
    )
    .unwrap_err();
    let got = problems(&feedback);
    let headers: Vec<_> = got.iter().map(|(h, f, _)| (*h, *f)).collect();
    assert_eq!(
        headers,
        [
            ("[Cost]", Some("cost")),
            ("[Start]", Some("start")),
            ("[Summary]", Some("summary")),
            ("[Tags]", Some("tags")),
            ("[Notes]", Some("notes")),
        ]
    );
    assert!(
        matches!(got[0].2, ProblemKind::BadJson { path, .. } if path == "total"),
        "{:?}",
        got[0].2
    );
    assert!(
        matches!(got[1].2, ProblemKind::Unreadable { message, found } if message == "write it as `day N`" && found == "tomorrow"),
        "{:?}",
        got[1].2
    );
    assert_eq!(
        got[2].2,
        &ProblemKind::Invalid {
            message: "replace TODO with the real summary".to_owned()
        }
    );
    assert_eq!(
        got[3].2,
        &ProblemKind::Invalid {
            message: "give at most two tags".to_owned()
        }
    );
    assert_eq!(
        got[4].2,
        &ProblemKind::Invalid {
            message: "keep to three notes; there are 4".to_owned()
        }
    );
}

/// 一次旅行计划。
#[derive(Debug, PartialEq, Sections)]
#[sections(lang = "zh")]
struct 计划 {
    /// 要去的地方。
    #[section(header = "[行程]", example = "参观寺庙")]
    行程: String,
    #[section(header = "[预算]", example = "500")]
    预算: u32,
    #[section(header = "[住宿]")]
    住宿: Option<String>,
}

#[test]
fn chinese_structs_parse_and_give_chinese_feedback() {
    assert_eq!(<计划 as Sections>::lang(), Lang::Zh);
    let plan = 计划::parse_sections("【行程】\n参观寺庙\n【预算】\n500元\n【住宿】\n无").unwrap();
    assert_eq!(
        plan,
        计划 {
            行程: "参观寺庙".to_owned(),
            预算: 500,
            住宿: None,
        }
    );

    let feedback = 计划::parse_sections("【行程】\n参观寺庙").unwrap_err();
    assert_eq!(feedback.lang(), Lang::Zh);
    assert_eq!(
        problems(&feedback),
        [("[预算]", Some("预算"), &ProblemKind::Missing)]
    );
    assert_eq!(
        feedback.to_string(),
        "缺少 [预算] 部分。请补上：标题 [预算] 单独占一行，下面写一个整数。\n例如：\n[预算]\n500\n\n\
         请重新写出这个部分：标题单独占一行，内容写在标题下面。"
    );

    let guide = 计划::format_guide();
    for needle in [
        "[行程]",
        "要去的地方。",
        "参观寺庙",
        "[预算]",
        "500",
        "[住宿]",
    ] {
        assert!(guide.contains(needle), "{needle:?} not in:\n{guide}");
    }
}
