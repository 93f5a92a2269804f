//! Real replies of small models (SmolLM2-135M, Gemma 3 270M base),
//! recorded and copied verbatim into `tests/it/parse_samples/`:
//! what the parser reads from each and what it tells the model.

use twr_runtime::{feedback::ProblemKind, Feedback, Sections};

#[derive(Debug, PartialEq, Sections)]
struct Trip {
    #[section(example = "Visit temples")]
    plan: String,
    #[section(example = "Day 1: ...")]
    timeline: String,
    #[section(example = "$500")]
    budget: u32,
}

fn trip(plan: &str, timeline: &str, budget: u32) -> Trip {
    Trip {
        plan: plan.to_owned(),
        timeline: timeline.to_owned(),
        budget,
    }
}

fn kinds(feedback: &Feedback) -> Vec<(&str, ProblemKind)> {
    feedback
        .problems()
        .iter()
        .map(|p| (p.header.as_str(), p.kind.clone()))
        .collect()
}

#[test]
fn clean_few_shot_answer() {
    let raw = include_str!("parse_samples/s3.txt");
    assert_eq!(
        Trip::parse_sections(raw),
        Ok(trip(
            "Day 1: Kinkaku-ji Temple (Otemochi) and Nijo Castle\n\
             Day 2: Shibuya Crossing, Ikebukudai, and Tokyo's Fashion Week (Kyoto Fashion Week)\n\
             Day 3: Aruko-ji Temple and the Tokyo Tower",
            "Morning: Fushimi-inari Shrine\nEvening: Gion-no-miyakura and Ise Palace",
            205
        ))
    );
}

#[test]
fn preamble_and_bracketed_words_in_content() {
    let raw = include_str!("parse_samples/s2.txt");
    assert_eq!(
        Trip::parse_sections(raw),
        Ok(trip(
            "Immerse yourself in traditional Japanese culture",
            "Day 2: Kyoto\n\n\
             At the Tsukiji Fish Market, try a delicious sushi roll\n\
             Dowel and a mokuba (a type of sashimi)\n\
             Sakura no Kagiri [Joyous Shining Sky]\n\
             Reflect on Japanese culture at the Tsukiji Fish Market",
            500
        ))
    );
}

#[test]
fn copied_example_repeated_to_the_token_limit_keeps_the_last_block() {
    let raw = include_str!("parse_samples/g1.txt");
    assert_eq!(
        Trip::parse_sections(raw),
        Ok(trip("Visit temples", "Day 20: ...", 10))
    );
}

#[test]
fn scrambled_headers_with_glitch_tokens() {
    // `$750 mendatang`: the glitch token glued after the number is a unit.
    let raw = include_str!("parse_samples/g2.txt");
    assert_eq!(
        Trip::parse_sections(raw),
        Ok(trip("Day 3: ...", "Day 1: ...", 750))
    );
}

#[test]
fn first_header_dropped() {
    let raw = include_str!("parse_samples/s1.txt");
    let feedback = Trip::parse_sections(raw).unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "The [Plan] section is missing. Please add it: the header [Plan] on a line of its own, then its content.
For example:
[Plan]
Visit temples

Please write that section again: the header on a line of its own, followed by its content."
    );
}

#[test]
fn header_inside_a_line() {
    let raw = include_str!("parse_samples/s4b.txt");
    let feedback = Trip::parse_sections(raw).unwrap_err();
    assert_eq!(
        kinds(&feedback),
        [
            ("[Plan]", ProblemKind::Missing),
            ("[Timeline]", ProblemKind::Missing),
            (
                "[Budget]",
                ProblemKind::NotOnOwnLine {
                    line: "Day 2: [Budget]".to_owned()
                }
            ),
        ]
    );
    assert_eq!(
        feedback.to_string(),
        "Thank you. A few parts of your answer need fixing:

1. The [Plan] section is missing. Please add it: the header [Plan] on a line of its own, then its content.
   For example:
   [Plan]
   Visit temples

2. The [Timeline] section is missing. Please add it: the header [Timeline] on a line of its own, then its content.
   For example:
   [Timeline]
   Day 1: ...

3. The [Budget] header must stand on a line of its own; it appears inside the line 'Day 2: [Budget]'.
   For example:
   [Budget]
   $500

Please write those sections again: each header on a line of its own, followed by its content."
    );
}

#[test]
fn an_extra_section_is_not_taken_for_a_missing_one() {
    // `[Friend]` comes after `[Budget]`: it is not a misnamed `[Plan]`.
    let raw = include_str!("parse_samples/s6.txt");
    let feedback = Trip::parse_sections(raw).unwrap_err();
    assert_eq!(
        kinds(&feedback),
        [
            ("[Plan]", ProblemKind::Missing),
            (
                "[Budget]",
                ProblemKind::BadValue {
                    expected: twr_runtime::parse::Expected::WholeNumber,
                    found: "This is my budget of the trip. You can spend about 50 yen on your ticket, which…"
                        .to_owned()
                }
            ),
        ]
    );
    assert_eq!(
        feedback.to_string(),
        "Thank you. A few parts of your answer need fixing:\n\n\
         1. The [Plan] section is missing. Please add it: the header [Plan] on a line of its own, then its content.\n\
         \x20  For example:\n\
         \x20  [Plan]\n\
         \x20  Visit temples\n\n\
         2. The [Budget] section should be a single whole number such as $500; it says 'This is my budget \
         of the trip. You can spend about 50 yen on your ticket, which…'.\n\n\
         Please write those sections again: each header on a line of its own, followed by its content."
    );
}
