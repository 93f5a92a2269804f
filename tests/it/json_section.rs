//! The `#[section(json)]` codec: section content through the JSON layers,
//! failures as `ValueError::Json` with the field path.

use serde::Deserialize;
use twr_runtime::parse::ValueError;

#[derive(Debug, Deserialize, PartialEq)]
struct Budget {
    total: u32,
    currency: String,
}

fn codec(content: &str) -> Result<Budget, ValueError> {
    <Budget as twr_runtime::parse::SerdeValue>::json(content, &mut Default::default())
}

#[test]
fn section_content_goes_through_every_layer() {
    let want = Budget {
        total: 500,
        currency: "USD".into(),
    };
    assert_eq!(codec(r#"{"total": 500, "currency": "USD"}"#).unwrap(), want);
    assert_eq!(
        codec("```json\n{\"total\": 500, \"currency\": \"USD\"}\n```").unwrap(),
        want
    );
    assert_eq!(
        codec("About this: {total: 500, currency: 'USD',}").unwrap(),
        want
    );
}

#[test]
fn wrong_shape_is_a_json_error_with_its_path() {
    assert_eq!(
        codec(r#"{"total": "lots", "currency": "USD"}"#).unwrap_err(),
        ValueError::Json {
            path: "total".into(),
            message: r#"it should be a whole number (0 or more), not "lots""#.into(),
        }
    );
    assert_eq!(
        codec(r#"{"total": 5}"#).unwrap_err(),
        ValueError::Json {
            path: "currency".into(),
            message: "this required field is missing".into(),
        }
    );
}

#[test]
fn prose_is_a_json_error_at_the_root() {
    assert_eq!(
        codec("about five hundred dollars").unwrap_err(),
        ValueError::Json {
            path: String::new(),
            message: "there is no JSON in it; write the value as JSON, such as an object in { } or an array in [ ]".into(),
        }
    );
}

#[derive(Debug, twr_runtime::Sections)]
#[allow(dead_code)]
struct Trip {
    #[section(json)]
    budget: Budget,
}

#[test]
fn derived_struct_names_section_path_and_type() {
    use twr_runtime::Sections;
    let trip = Trip::parse_sections("[Budget]\n{total: 500, currency: 'USD',}").unwrap();
    assert_eq!(trip.budget.total, 500);
    let feedback = Trip::parse_sections(
        "[Budget]\n```json\n{\"total\": \"lots\", \"currency\": \"USD\"}\n```",
    )
    .unwrap_err();
    assert!(
        feedback.to_string().starts_with(
            "The JSON in the [Budget] section is wrong at `total`: \
             it should be a whole number (0 or more), not \"lots\"."
        ),
        "{feedback}"
    );
}
