//! A header is never glued into a value: a line holding only a bracketed
//! header that names none of the sections ends the section before it.

use std::collections::BTreeMap;

use twr_runtime::Sections;

#[derive(Debug, PartialEq, Sections)]
struct Address {
    street: String,
    city: String,
}

#[derive(Debug, PartialEq, Sections)]
struct Person {
    name: String,
    #[section(flatten)]
    address: Address,
}

#[test]
fn a_group_header_of_flattened_sections_is_not_part_of_the_value_before_it() {
    let person =
        Person::parse_sections("[Name]\nAda\n[Address]\n[Street]\n1 Main St\n[City]\nParis")
            .unwrap();
    assert_eq!(
        person,
        Person {
            name: "Ada".into(),
            address: Address {
                street: "1 Main St".into(),
                city: "Paris".into()
            }
        }
    );
    // The group header is reported: it names no section and is set aside.
    let map = twr_runtime::parse::split_sections(
        "[Name]\nAda\n[Address]\n[Street]\n1 Main St\n[City]\nParis",
        Person::specs(),
    );
    assert_eq!(map.content(0), Some("Ada"));
    let unknown: Vec<&str> = map
        .unknown_headers()
        .iter()
        .map(|header| header.line.as_str())
        .collect();
    assert_eq!(unknown, ["[Address]"]);
}

#[derive(Debug, PartialEq, Sections)]
struct Meeting {
    minutes: String,
    decisions: Vec<String>,
}

#[test]
fn a_stray_header_ends_the_section_and_its_lines_belong_to_none() {
    let meeting = Meeting::parse_sections(
        "[Minutes]\nWe met at noon.\n\n[Extra]\nCoffee was cold.\n[Decisions]\n- Ship it",
    )
    .unwrap();
    assert_eq!(meeting.minutes, "We met at noon.");
    assert_eq!(meeting.decisions, ["Ship it"]);
    // The header is listed for rename hints, its lines set aside.
    let map = twr_runtime::parse::split_sections(
        "[Minutes]\nWe met.\n**[Extra]**\nCoffee.",
        Meeting::specs(),
    );
    assert_eq!(map.content(0), Some("We met."));
    assert_eq!(map.unknown_headers()[0].line, "**[Extra]**");
}

#[test]
fn a_required_section_left_missing_after_a_stray_header_gets_feedback_naming_it() {
    let feedback =
        Meeting::parse_sections("[Minutes]\nWe met.\n[Decision]\n- Ship it").unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "You wrote [Decision]; name it [Decisions], on a line of its own.\n\
         For example:\n[Decisions]\n- <item>\n- <item>\n\n\
         Please write that section again: the header on a line of its own, followed by its content."
    );
}

#[test]
fn bracketed_text_with_more_on_its_line_or_in_code_stays_content() {
    let minutes = "[1] Smith, 2020\nAs noted in [1], we met.\n[1]\n[x]\n- [x] booked\n\
                   [\"a\", \"b\"]\n[{\"k\": true}]\n\
                   ```toml\n[dependencies]\nserde = \"1\"\n```\n[Extra]: kept on its line";
    let meeting =
        Meeting::parse_sections(&format!("[Minutes]\n{minutes}\n[Decisions]\n- Ship it")).unwrap();
    assert_eq!(meeting.minutes, minutes);
}

#[derive(Debug, PartialEq, Sections)]
struct Stock {
    stock: BTreeMap<String, u32>,
}

#[test]
fn a_map_in_another_form_is_told_the_form_it_should_have() {
    let feedback = Stock::parse_sections("[Stock]\napples = 3\npears = 2").unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "The [Stock] section should be one line per entry, written `Name: value`; it says 'apples = 3 / pears = 2'.\n\n\
         Please write that section again: the header on a line of its own, followed by its content."
    );
    assert_eq!(
        Stock::parse_sections("[Stock]\napples: 3").unwrap().stock,
        BTreeMap::from([("apples".to_owned(), 3)])
    );
}

#[derive(Debug, PartialEq, Sections)]
struct Payload {
    #[section(json)]
    flags: Vec<bool>,
    #[section(json)]
    rows: serde_json::Value,
    note: String,
}

#[test]
fn a_json_array_alone_on_its_line_is_the_value_not_a_header() {
    let payload =
        Payload::parse_sections("[Flags]\n[true]\n[Rows]\n[{\"k0\": false}]\n[Note]\nok").unwrap();
    assert_eq!(payload.flags, [true]);
    assert_eq!(payload.rows, serde_json::json!([{"k0": false}]));
    assert_eq!(payload.note, "ok");
}
