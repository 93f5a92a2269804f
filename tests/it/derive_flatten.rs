//! `#[section(flatten)]`: a field whose type derives `Sections` gives its
//! sections to the parent, in place, with their own headers, examples,
//! validators and table shapes.

use serde::Deserialize;
use twr_runtime::{feedback::ProblemKind, sections::Lang, Sections};

fn plausible_email(email: &str) -> Result<(), String> {
    if email.contains('@') {
        Ok(())
    } else {
        Err(format!("'{email}' is not an email address"))
    }
}

/// Who wrote in; shared by several kinds of ticket.
#[derive(Debug, PartialEq, Sections)]
#[sections(lang = "zh")]
struct Customer {
    /// The customer's full name.
    #[section(example = "Ada Lovelace")]
    name: String,
    #[section(validate = plausible_email, aliases = ["Mail"])]
    email: String,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Line {
    item: String,
    price: f64,
}

#[derive(Debug, PartialEq, Sections)]
struct Order {
    #[section(table)]
    lines: Vec<Line>,
}

#[derive(Debug, PartialEq, Sections)]
struct Ticket {
    /// What went wrong.
    summary: String,
    #[section(flatten)]
    customer: Customer,
    #[section(flatten)]
    order: Order,
    refund: Option<f64>,
    #[section(skip)]
    seen: bool,
}

#[test]
fn the_flattened_sections_are_the_parents_in_place() {
    let headers: Vec<(&str, &str)> = Ticket::specs()
        .iter()
        .map(|spec| (spec.field, spec.header))
        .collect();
    assert_eq!(
        headers,
        [
            ("summary", "[Summary]"),
            ("name", "[Name]"),
            ("email", "[Email]"),
            ("lines", "[Lines]"),
            ("refund", "[Refund]"),
        ]
    );
    assert_eq!(Ticket::specs()[1].description, "The customer's full name.");
    assert_eq!(Ticket::specs()[2].aliases, ["Mail"]);
    assert!(Ticket::ways().is_empty());
}

#[test]
fn a_reply_reads_into_the_nested_value() {
    let reply = "[Summary]\nThe kettle leaks.\n[Name]\nAda\n**Mail:** ada@example.com\n\
                 [Lines]\n| Item | Price |\n|---|---|\n| Kettle | $40 |\n[Refund]\n$40";
    assert_eq!(
        Ticket::parse_sections(reply),
        Ok(Ticket {
            summary: "The kettle leaks.".into(),
            customer: Customer {
                name: "Ada".into(),
                email: "ada@example.com".into(),
            },
            order: Order {
                lines: vec![Line {
                    item: "Kettle".into(),
                    price: 40.0,
                }],
            },
            refund: Some(40.0),
            seen: false,
        })
    );
}

#[test]
fn feedback_uses_the_flattened_types_examples_validators_and_the_parents_language() {
    let reply = "[Summary]\nThe kettle leaks.\n[Email]\nada at example\n[Lines]\nnothing here";
    let feedback = Ticket::parse_sections(reply).unwrap_err();
    let problems: Vec<(&str, Option<&str>, &ProblemKind)> = feedback
        .problems()
        .iter()
        .map(|p| (p.header.as_str(), p.field.as_deref(), &p.kind))
        .collect();
    assert_eq!(
        problems,
        [
            ("[Name]", Some("name"), &ProblemKind::Missing),
            (
                "[Email]",
                Some("email"),
                &ProblemKind::Invalid {
                    message: "'ada at example' is not an email address".into()
                }
            ),
            (
                "[Lines]",
                Some("lines"),
                &ProblemKind::NoTable {
                    columns: vec!["Item".into(), "Price".into()]
                }
            ),
        ]
    );
    // The parent's language (English), not the flattened type's (Chinese);
    // the example of [Name] is its own, the one of [Lines] built from Line.
    assert_eq!(feedback.lang(), Lang::En);
    assert_eq!(
        feedback.to_string(),
        "Thank you. A few parts of your answer need fixing:

1. The [Name] section is missing. Please add it: the header [Name] on a line of its own, then its content.
   For example:
   [Name]
   Ada Lovelace

2. The [Email] section needs a change: 'ada at example' is not an email address.

3. The [Lines] section should hold a table with the columns Item, Price; there is none.
   For example:
   [Lines]
   | Item | Price |
   |---|---|
   | <free text> | <a single number> |

Please write those sections again: each header on a line of its own, followed by its content."
    );
}

#[test]
fn the_guide_lists_the_flattened_sections_with_their_descriptions_and_shapes() {
    assert_eq!(
        Ticket::format_guide(),
        "Think it through freely first. Then give your final answer in the sections below, each header on a line of its own followed by its content.

[Summary]
What went wrong.

[Name]
The customer's full name.

[Email]
Free text.

[Lines]
A table with a header row and one row per entry (a markdown table, CSV or TSV).

[Refund] (optional: write N/A if it does not apply)
A single number.

Example answer:

[Summary]
<free text>
[Name]
Ada Lovelace
[Email]
<free text>
[Lines]
| Item | Price |
|---|---|
| <free text> | <a single number> |
[Refund]
<a single number>

After any thinking, begin your final answer with [Summary] on a line of its own."
    );
}

/// Flattening nests: a type that flattens a type that flattens another.
#[derive(Debug, PartialEq, Sections)]
struct Escalation {
    #[section(flatten)]
    ticket: Ticket,
    /// Who takes it over.
    owner: String,
}

#[test]
fn flattening_nests() {
    let headers: Vec<&str> = Escalation::specs().iter().map(|s| s.header).collect();
    assert_eq!(
        headers,
        [
            "[Summary]",
            "[Name]",
            "[Email]",
            "[Lines]",
            "[Refund]",
            "[Owner]"
        ]
    );
    let reply = "[Summary]\nLeak\n[Name]\nAda\n[Email]\na@b.c\n[Lines]\nitem,price\nKettle,40\n[Refund]\nN/A\n[Owner]\nLinus";
    let escalation = Escalation::parse_sections(reply).unwrap();
    assert_eq!(escalation.owner, "Linus");
    assert_eq!(escalation.ticket.customer.email, "a@b.c");
    assert_eq!(escalation.ticket.refund, None);
    let feedback = Escalation::parse_sections("[Summary]\nLeak").unwrap_err();
    assert_eq!(
        feedback.headers(),
        ["[Name]", "[Email]", "[Lines]", "[Owner]"]
    );
}

/// A generic parent flattens a concrete type.
#[derive(Debug, PartialEq, Sections)]
struct Tagged<T> {
    tag: T,
    #[section(flatten)]
    customer: Customer,
}

#[test]
fn a_generic_struct_flattens_a_concrete_type() {
    let tagged = Tagged::<u32>::parse_sections("[Tag]\n7\n[Name]\nAda\n[Email]\na@b.c").unwrap();
    assert_eq!(tagged.tag, 7);
    assert_eq!(tagged.customer.name, "Ada");
    let kinds: Vec<_> = Tagged::<bool>::specs().iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            twr_runtime::sections::ValueKind::Bool,
            twr_runtime::sections::ValueKind::Text,
            twr_runtime::sections::ValueKind::Text
        ]
    );
    // Each instance writes its own guide (a type without parameters writes
    // its guide once and keeps it; one with parameters cannot share it).
    for _ in 0..2 {
        let (number, yes_no) = (
            Tagged::<u32>::format_guide(),
            Tagged::<bool>::format_guide(),
        );
        assert!(
            number.contains("[Tag]\n<a single whole number>"),
            "{number}"
        );
        assert!(yes_no.contains("[Tag]\n<yes or no>"), "{yes_no}");
    }
}
