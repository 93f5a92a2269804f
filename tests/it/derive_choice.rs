//! `#[derive(Choice)]`: the allowed values, matching ignoring case and
//! punctuation, and a Choice enum as the value of a section.

use twr_runtime::parse::{SectionValue, ValueError};
use twr_runtime::{feedback::ProblemKind, sections::ValueKind, Choice, Sections};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Choice)]
enum Priority {
    Low,
    Medium,
    High,
    VeryHigh,
}

#[test]
fn variants_are_listed_in_declaration_order() {
    assert_eq!(Priority::VARIANTS, &["Low", "Medium", "High", "VeryHigh"]);
    assert_eq!(
        <Priority as SectionValue>::KIND,
        ValueKind::Choice(&["Low", "Medium", "High", "VeryHigh"])
    );
}

#[test]
fn matching_ignores_case_punctuation_and_spacing() {
    let cases = [
        ("High", Some(Priority::High)),
        ("high", Some(Priority::High)),
        ("HIGH", Some(Priority::High)),
        ("  medium\n", Some(Priority::Medium)),
        ("**Low.**", Some(Priority::Low)),
        ("\"low\"", Some(Priority::Low)),
        ("very high", Some(Priority::VeryHigh)),
        ("very-high", Some(Priority::VeryHigh)),
        ("Very_High!", Some(Priority::VeryHigh)),
        ("Higher", None),
        ("Urgent", None),
        ("", None),
        ("...", None),
    ];
    for (text, expected) in cases {
        assert_eq!(Priority::from_choice(text), expected, "{text:?}");
    }
}

#[test]
fn as_choice_round_trips() {
    for value in [
        Priority::Low,
        Priority::Medium,
        Priority::High,
        Priority::VeryHigh,
    ] {
        let text = value.as_choice();
        assert_eq!(Priority::from_choice(text), Some(value));
    }
    assert_eq!(Priority::VeryHigh.as_choice(), "VeryHigh");
}

#[test]
fn raw_identifiers_show_without_prefix() {
    #[derive(Debug, PartialEq, Choice)]
    enum Keyword {
        r#Type,
        r#Match,
    }
    assert_eq!(Keyword::VARIANTS, &["Type", "Match"]);
    assert_eq!(Keyword::from_choice("type"), Some(Keyword::r#Type));
    assert_eq!(Keyword::r#Match.as_choice(), "Match");
}

#[test]
fn explicit_discriminants_are_fine() {
    #[derive(Debug, PartialEq, Choice)]
    enum Level {
        One = 1,
        Two = 2,
    }
    assert_eq!(Level::from_choice("two"), Some(Level::Two));
    assert_eq!(Level::Two as u8, 2);
}

#[test]
fn section_content_is_read_as_a_choice() {
    assert_eq!(Priority::parse_section("High"), Ok(Priority::High));
    assert_eq!(Priority::parse_section("medium."), Ok(Priority::Medium));
    assert!(matches!(
        Priority::parse_section("Urgent"),
        Err(ValueError::Invalid { .. })
    ));
    assert_eq!(Priority::parse_section("  "), Err(ValueError::Empty));
}

#[derive(Debug, Sections)]
struct Task {
    title: String,
    priority: Priority,
    fallback: Option<Priority>,
}

#[test]
fn a_choice_field_parses_and_its_problem_lists_the_values() {
    let task = Task::parse_sections("[Title]\nBook the ryokan\n[Priority]\n**high**\n").unwrap();
    assert_eq!(task.title, "Book the ryokan");
    assert_eq!(task.priority, Priority::High);
    assert_eq!(task.fallback, None);

    let feedback =
        Task::parse_sections("[Title]\nBook the ryokan\n[Priority]\nurgent\n[Fallback]\nlow")
            .unwrap_err();
    let problems = feedback.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].header, "[Priority]");
    assert_eq!(problems[0].field.as_deref(), Some("priority"));
    match &problems[0].kind {
        ProblemKind::BadValue { found, .. } => assert_eq!(found, "urgent"),
        other => panic!("expected a bad value, got {other:?}"),
    }
    assert_eq!(
        feedback.to_string(),
        "The [Priority] section should be one of: Low, Medium, High, VeryHigh; it says 'urgent'.\n\n\
         Please write that section again: the header on a line of its own, followed by its content."
    );
}
