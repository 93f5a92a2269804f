//! Every string of a grammar's language parses into the type it was built
//! from: random replies sampled from each grammar of the corpus.

use twr_runtime::parse::SectionValue;

use super::corpus::{self, Pace, Scalars};
use twr_runtime::Sections;

/// Replies sampled per grammar.
const SAMPLES: u64 = 400;

#[test]
fn every_sampled_reply_parses_into_its_type() {
    let mut checked = 0;
    for (name, grammar) in corpus::grammars() {
        if name.contains("-value-") || name.contains("-patch") {
            continue;
        }
        for seed in 0..SAMPLES {
            let reply = grammar.sample(seed);
            if let Err(feedback) = corpus::parses(&name, &reply) {
                panic!("{name}, seed {seed}: the sample does not parse:\n{reply}\n---\n{feedback}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 12 * SAMPLES);
}

#[test]
fn a_focused_value_parses_as_the_section_value() {
    let grammar = twr_runtime::grammar::Grammar::of::<Scalars>();
    for spec in Scalars::specs() {
        let focused = grammar.value_of(spec.field).unwrap();
        for seed in 0..SAMPLES {
            let value = focused.sample(seed);
            let ok = match spec.field {
                "days" => u32::parse_section(value.trim()).is_ok(),
                "budget" => f64::parse_section(value.trim()).is_ok(),
                "refundable" => bool::parse_section(value.trim()).is_ok(),
                "grade" => char::parse_section(value.trim()).is_ok(),
                "pace" => Pace::parse_section(value.trim()).is_ok(),
                "plan" => String::parse_section(value.trim()).is_ok(),
                other => panic!("{other}"),
            };
            assert!(ok, "{}: {value:?}", spec.field);
        }
    }
}

#[test]
fn a_patch_holds_only_its_sections_and_they_parse() {
    use twr_runtime::parse::split_sections;
    for (name, grammar) in corpus::grammars() {
        if !name.ends_with("-patch") {
            continue;
        }
        for seed in 0..SAMPLES {
            let reply = grammar.sample(seed);
            let map = split_sections(&reply, grammar.specs());
            let found: Vec<&str> = grammar
                .specs()
                .iter()
                .filter(|spec| map.get(spec.name).is_some())
                .map(|spec| spec.field)
                .collect();
            let expected: &[&str] = match name.as_str() {
                "lists-patch" => &["counts", "notes"],
                "agent-patch" => &["query"],
                other => panic!("{other}"),
            };
            assert_eq!(found, expected, "{name}, seed {seed}:\n{reply}");
        }
    }
}

/// A bounded section's sampled values are within its bounds, the bounds
/// themselves reached.
#[test]
fn sampled_numbers_keep_to_their_bounds() {
    let grammar = twr_runtime::grammar::Grammar::of::<corpus::Bounded>().reasoning(false);
    let mut seen_top = false;
    let mut negatives = [false; 3];
    let mut types_reached = [false; 3];
    for seed in 0..400 {
        let reply = grammar.sample(seed);
        let value = corpus::Bounded::parse_sections(&reply)
            .unwrap_or_else(|feedback| panic!("seed {seed}: {reply}\n{feedback}"));
        assert!((0.0..=1.0).contains(&value.confidence), "{reply}");
        assert!((-40..=255).contains(&value.level), "{reply}");
        assert!((-3.0..=-1.0).contains(&value.drift), "{reply}");
        assert!(value.months.is_none_or(|m| m <= 12), "{reply}");
        assert!(
            value.counts.iter().all(|c| (3..=1000).contains(c)),
            "{reply}"
        );
        assert!(value.delta <= 5, "{reply}");
        seen_top |= value.confidence == 1.0;
        negatives[0] |= value.delta < 0;
        negatives[1] |= value.offset < 0;
        negatives[2] |= value.steps.iter().any(|step| *step < 0);
        types_reached[0] |= value.score > 99;
        types_reached[1] |= value.tilt < -9999;
        types_reached[2] |= value.grades.iter().any(|grade| *grade > 99);
    }
    assert!(seen_top, "the top bound is sampled too");
    // Bounded by their types alone, each is read (a `u8` of nine digits
    // would be feedback) and the types' ends are reached.
    assert!(
        types_reached.iter().all(|reached| *reached),
        "{types_reached:?}"
    );
    // A signed type open below is offered a sign, alone, with a `max`, and
    // in a list.
    assert_eq!(negatives, [true; 3]);
}

#[test]
fn only_a_signed_whole_number_is_offered_a_sign() {
    let gbnf = twr_runtime::grammar::Grammar::of::<corpus::Bounded>().gbnf();
    assert!(
        gbnf.contains("signed-integer ::= ( \"0\" | [1-9] [0-9]{0,8} | \"-\" [1-9] [0-9]{0,8} ) \"\\n\" \"\\n\"?\n"),
        "{gbnf}"
    );
    assert!(
        gbnf.contains("section-6 ::= \"[Offset]\\n\" signed-integer\n"),
        "{gbnf}"
    );
    let unsigned = twr_runtime::grammar::Grammar::of::<Scalars>().gbnf();
    assert!(
        unsigned.contains("integer ::= ( \"0\" | [1-9] [0-9]{0,8} ) \"\\n\" \"\\n\"?\n"),
        "{unsigned}"
    );
    assert!(!unsigned.contains("signed-integer"), "{unsigned}");
}

/// A whole number of a narrow type is kept within the type: a `u8` score
/// is at most 255 (never `123456789`), an `i16` within its two ends, the
/// same rule whatever the section's bounds add.
#[test]
fn a_narrow_whole_number_type_keeps_to_its_range() {
    let gbnf = twr_runtime::grammar::Grammar::of::<corpus::Bounded>().gbnf();
    let rule = |name: &str| {
        gbnf.lines()
            .find(|line| line.starts_with(&format!("{name} ::= ")))
            .unwrap_or_else(|| panic!("no rule {name} in\n{gbnf}"))
            .to_owned()
    };
    assert_eq!(rule("section-8"), "section-8 ::= \"[Score]\\n\" number-8");
    assert_eq!(
        rule("number-8"),
        "number-8 ::= ( [0-9] | [1-9] [0-9] | \"1\" [0-9]{2} | \"2\" ( [0-4] [0-9] | \"5\" [0-5] ) ) \"\\n\" \"\\n\"?"
    );
    assert_eq!(rule("section-9"), "section-9 ::= \"[Tilt]\\n\" number-9");
    assert_eq!(
        rule("section-3"),
        "section-3 ::= \"[Months]\\n\" ( number-3 | none )"
    );
}

/// A grammar cut to a reply limit: the event of the held-out measurement
/// at `max_tokens` 256. Headers 32 tokens, two numbers 36, two words 8,
/// 8 to spare: 84; the 172 tokens left are 258 characters at 1.5 a
/// token, two shares for the reasoning and one for each text section.
#[test]
fn a_grammar_fits_the_reply_limit() {
    #[derive(Debug, twr_runtime::Sections)]
    #[allow(dead_code)]
    struct Event {
        name: String,
        city: String,
        year: u32,
        attendees: u32,
        free: bool,
        kind: corpus::Pace,
    }
    use twr_runtime::grammar::{Grammar, Limits};
    assert_eq!(
        Grammar::of::<Event>().fit_tokens(256).limits_of(),
        Limits::default().reasoning(128).text(64).list(64)
    );
    // Room enough: the defaults.
    assert_eq!(
        Grammar::of::<Event>().fit_tokens(4096).limits_of(),
        Limits::default()
    );
    // No room for free text at all: each keeps a few words.
    assert_eq!(
        Grammar::of::<Event>().fit_tokens(40).limits_of(),
        Limits::default().reasoning(24).text(24).list(24)
    );
}
