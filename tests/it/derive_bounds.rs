//! `#[section(min = .., max = ..)]`: the spec carries the bounds, the guide
//! says them, a value outside gets feedback naming them, and the field's
//! own validator runs on a value within them only.

use twr_runtime::parse::Expected;
use twr_runtime::sections::Bounds;
use twr_runtime::{Feedback, Sections};

fn at_most_half(value: &f64) -> Result<(), String> {
    if *value <= 0.5 {
        Ok(())
    } else {
        Err("keep it at 0.5 or below".to_owned())
    }
}

#[derive(Debug, PartialEq, Sections)]
struct Decision {
    /// How sure you are.
    #[section(min = 0, max = 1)]
    confidence: f64,
    #[section(min = -10, max = 40)]
    celsius: i32,
    #[section(min = 1)]
    guests: Option<u8>,
    #[section(max = 5)]
    ratings: Vec<u8>,
    #[section(min = 0.0, max = 1, validate = at_most_half)]
    share: f64,
}

const GOOD: &str =
    "[Confidence]\n0.75\n[Celsius]\n-3\n[Guests]\n2\n[Ratings]\n- 4\n- 5\n[Share]\n0.5\n";

fn problems(feedback: &Feedback) -> Vec<String> {
    feedback
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn the_specs_carry_the_bounds_as_written() {
    let bounds: Vec<Bounds> = Decision::specs().iter().map(|spec| spec.bounds).collect();
    assert_eq!(
        bounds,
        [
            Bounds::new(Some("0"), Some("1")),
            Bounds::new(Some("-10"), Some("40")),
            Bounds::new(Some("1"), None),
            Bounds::new(None, Some("5")),
            Bounds::new(Some("0.0"), Some("1")),
        ]
    );
}

#[test]
fn values_within_the_bounds_parse() {
    assert_eq!(
        Decision::parse_sections(GOOD),
        Ok(Decision {
            confidence: 0.75,
            celsius: -3,
            guests: Some(2),
            ratings: vec![4, 5],
            share: 0.5,
        })
    );
    // The bounds are included; an absent optional section is no value.
    let edges = "[Confidence]\n1\n[Celsius]\n-10\n[Ratings]\n- 0\n[Share]\n0\n";
    assert_eq!(
        Decision::parse_sections(edges).map(|d| (d.confidence, d.celsius, d.guests)),
        Ok((1.0, -10, None))
    );
}

#[test]
fn a_value_outside_gets_feedback_naming_the_bounds() {
    let reply = "[Confidence]\n1.25\n[Celsius]\n41 degrees\n[Guests]\n0\n[Ratings]\n- 4\n- 7\n[Share]\n-2018\n";
    let feedback = Decision::parse_sections(reply).unwrap_err();
    assert_eq!(
        problems(&feedback),
        [
            "The [Confidence] section should be a single number from 0 to 1; it says '1.25'.",
            "The [Celsius] section should be a single whole number from -10 to 40; it says '41'.",
            "The [Guests] section should be a single whole number of at least 1; it says '0'.",
            "Item 2 of the [Ratings] list should be a single whole number of at most 5; it says '7'.",
            "The [Share] section should be a single number from 0.0 to 1; it says '-2018'.",
        ]
    );
    assert_eq!(
        feedback.problems()[0].kind,
        twr_runtime::feedback::ProblemKind::BadValue {
            expected: Expected::Within {
                whole: false,
                min: Some("0".into()),
                max: Some("1".into())
            },
            found: "1.25".into()
        }
    );
}

#[test]
fn the_validator_runs_after_the_bounds() {
    // Within the bounds, the validator has its say.
    let reply = GOOD.replace("[Share]\n0.5", "[Share]\n0.75");
    let feedback = Decision::parse_sections(&reply).unwrap_err();
    assert_eq!(
        problems(&feedback),
        ["The [Share] section needs a change: keep it at 0.5 or below."]
    );
    // Outside them, only the bounds are said: one problem per section.
    let reply = GOOD.replace("[Share]\n0.5", "[Share]\n3");
    let feedback = Decision::parse_sections(&reply).unwrap_err();
    assert_eq!(
        problems(&feedback),
        ["The [Share] section should be a single number from 0.0 to 1; it says '3'."]
    );
}

#[test]
fn the_guide_says_the_bounds() {
    let guide = Decision::format_guide();
    for line in [
        "[Confidence]\nHow sure you are. A single number from 0 to 1.\n",
        "[Celsius]\nA single whole number from -10 to 40.\n",
        "[Guests] (optional: write N/A if it does not apply)\nA single whole number of at least 1.\n",
        "[Ratings]\nA list, one item per line. Each item is a single whole number of at most 5.\n",
    ] {
        assert!(guide.contains(line), "{line:?} not in:\n{guide}");
    }
}

#[derive(Debug, Sections)]
#[sections(lang = "zh")]
#[allow(dead_code)]
struct Score {
    #[section(header = "[分数]", min = 0, max = 100)]
    score: u8,
}

#[test]
fn the_chinese_table_words_the_bounds() {
    assert!(Score::format_guide().contains("[分数]\n介于 0 和 100 之间的一个整数。\n"));
    let feedback = Score::parse_sections("[分数]\n120").unwrap_err();
    assert_eq!(
        feedback.problems()[0].kind,
        twr_runtime::feedback::ProblemKind::BadValue {
            expected: Expected::WholeNumberBetween {
                min: "0".into(),
                max: "100".into()
            },
            found: "120".into()
        }
    );
    assert!(
        feedback
            .to_string()
            .contains("介于 0 和 100 之间的一个整数"),
        "{feedback}"
    );
}

#[derive(Debug, Sections)]
#[allow(dead_code)]
struct Rated {
    #[section(min = 1, max = 12)]
    month: u8,
    #[section(min = -1, max = 1)]
    tilt: f64,
}

#[test]
fn the_grammar_holds_numbers_to_their_bounds() {
    let gbnf = twr_runtime::grammar::Grammar::of::<Rated>()
        .reasoning(false)
        .gbnf();
    assert_eq!(
        gbnf,
        concat!(
            "root ::= section-0 section-1\n",
            "number-0 ::= ( [1-9] | \"1\" [0-2] ) \"\\n\" \"\\n\"?\n",
            "section-0 ::= \"[Month]\\n\" number-0\n",
            "number-1 ::= ( \"0\" ( \".\" [0-9]{1,6} )? | \"1\" ( \".\" \"0\"{1,6} )? | \"-\" ( \"0\" ( \".\" [0-9]{1,6} )? | \"1\" ( \".\" \"0\"{1,6} )? ) ) \"\\n\" \"\\n\"?\n",
            "section-1 ::= \"[Tilt]\\n\" number-1\n",
        )
    );
}
