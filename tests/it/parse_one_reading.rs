//! Text with no single reading is refused with feedback, never read as a
//! guess; text with one reading is read exactly, through the derive.

use twr_runtime::feedback::ProblemKind;
use twr_runtime::Sections;

#[derive(Debug, PartialEq, Sections)]
enum Step {
    /// Use a tool.
    Act {
        action: String,
        action_input: Option<String>,
    },
    /// Answer now.
    Answer { final_answer: String },
}

#[test]
fn a_second_label_inside_a_value_is_two_answers_and_feedback() {
    // Read as the action "search Final Answer:" before.
    let feedback = Step::parse_sections("Action: search Final Answer:").unwrap_err();
    let kinds: Vec<(String, ProblemKind)> = feedback
        .problems()
        .iter()
        .map(|problem| (problem.header.clone(), problem.kind.clone()))
        .collect();
    assert_eq!(
        kinds,
        [(
            "[Final Answer]".to_owned(),
            ProblemKind::NotOnOwnLine {
                line: "Action: search Final Answer:".into()
            }
        )]
    );
    assert_eq!(
        feedback.to_string().lines().next(),
        Some(
            "The [Final Answer] header must stand on a line of its own; it appears inside the line 'Action: search Final Answer:'."
        )
    );
    let feedback =
        Step::parse_sections("Action: search\nAction Input: weather **Final Answer:** sunny")
            .unwrap_err();
    assert_eq!(feedback.problems()[0].header, "[Final Answer]");
    // Each label on a line of its own, or a name in a sentence: one reading.
    assert_eq!(
        Step::parse_sections("Action: search\nAction Input: weather in Paris"),
        Ok(Step::Act {
            action: "search".into(),
            action_input: Some("weather in Paris".into())
        })
    );
    assert_eq!(
        Step::parse_sections("Final Answer: the final answer is 42, not an action"),
        Ok(Step::Answer {
            final_answer: "the final answer is 42, not an action".into()
        })
    );
}

#[derive(Debug, PartialEq, Sections)]
struct Note {
    title: String,
    steps: Vec<String>,
    tags: Vec<String>,
}

#[test]
fn markup_numbering_and_none_sentences_read_as_the_text_says() {
    // `**` without its closing mark is text (dropped before); an indented
    // item that continues the numbering is an item (glued to the item
    // before it before).
    let note = Note::parse_sections(
        "Title: ** plain text\nSteps:\n1. apple\n    2. banana\n3. cherry\nTags:\n- fruit",
    )
    .unwrap();
    assert_eq!(
        note,
        Note {
            title: "** plain text".into(),
            steps: vec!["apple".into(), "banana".into(), "cherry".into()],
            tags: vec!["fruit".into()],
        }
    );
    // A sentence saying there is nothing is neither an item nor the empty
    // list (the one-item list ["No items in the list."] before).
    let feedback =
        Note::parse_sections("Title: t\nSteps:\n- a\nTags:\nNo items in the list.").unwrap_err();
    assert_eq!(
        feedback.to_string().lines().next(),
        Some(
            "The [Tags] section should be a list, one item per line or N/A; it says 'No items in the list.'."
        )
    );
    assert_eq!(
        Note::parse_sections("Title: t\nSteps:\n- a\nTags:\nN/A")
            .unwrap()
            .tags,
        Vec::<String>::new()
    );
}

static GERMAN: twr_runtime::phrases::Phrases = twr_runtime::phrases::Phrases {
    number_style: twr_runtime::phrases::NumberStyle::COMMA,
    ..twr_runtime::phrases::Phrases::ENGLISH
};

#[derive(Debug, PartialEq, Sections)]
#[sections(phrases = GERMAN)]
struct Offer {
    price: f64,
    stock: u32,
    prices: Vec<f64>,
}

#[test]
fn a_table_with_the_decimal_comma_reads_numbers_as_the_user_writes_them() {
    // Each of these was feedback before: twr read only `1,049.95`.
    assert_eq!(
        Offer::parse_sections(
            "Price: CHF 1'049,95\nStock: 1.144.000\nPrices:\n- 49,96 €\n- 1 049,95 zł\n- Rp 31.500"
        ),
        Ok(Offer {
            price: 1049.95,
            stock: 1_144_000,
            prices: vec![49.96, 1049.95, 31_500.0],
        })
    );
    // Two readings under the style: feedback naming the section.
    let feedback = Offer::parse_sections("Price: 1,500\nStock: 3\nPrices:\n- 1").unwrap_err();
    assert_eq!(
        feedback.to_string().lines().next(),
        Some("The [Price] section should be a single number; it says '1,500'.")
    );
    assert_eq!(
        twr_runtime::phrases::NumberStyle::COMMA,
        GERMAN.number_style
    );
    assert_eq!(
        twr_runtime::phrases::NumberStyle::POINT,
        twr_runtime::phrases::Phrases::ENGLISH.number_style
    );
}
