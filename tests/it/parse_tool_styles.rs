//! Headers as other tools taught models to write them: DSPy's field markers
//! (`[[ ## answer ## ]]`, closed by `[[ ## completed ## ]]`) and numbered
//! headers on lines of their own (`1. Reasoning`, `2) Answer`), read by the
//! whole-reply parser and the stream alike, without turning the numbered
//! items of a list section into headers; and the feedback for a header
//! written in a style twr does not read.

use twr_runtime::parse::{multi_section_parser, MatchMode, SectionStream, StreamEvent};
use twr_runtime::{feedback::ProblemKind, Sections};

/// A question answered with its reasoning, as a DSPy `ChainOfThought`
/// signature with the outputs `reasoning`, `answer`, `confidence` asks.
#[derive(Debug, Clone, PartialEq, Sections)]
struct Answered {
    reasoning: String,
    answer: String,
    confidence: f64,
}

/// The reply as DSPy's ChatAdapter teaches it (its `format_field_structure`:
/// each output field after `[[ ## name ## ]]`, then `[[ ## completed ## ]]`),
/// the shape of the replies quoted in stanfordnlp/dspy issues #8379 and
/// #8276.
const DSPY: &str = "[[ ## reasoning ## ]]
Light from the sun scatters off the molecules of the air; shorter (blue)
wavelengths scatter the most.

[[ ## answer ## ]]
Blue

[[ ## confidence ## ]]
0.9

[[ ## completed ## ]]
";

fn answered() -> Answered {
    Answered {
        reasoning: "Light from the sun scatters off the molecules of the air; shorter (blue)\n\
                    wavelengths scatter the most."
            .into(),
        answer: "Blue".into(),
        confidence: 0.9,
    }
}

/// Feeds `raw` in `size`-byte pieces (on char boundaries) and returns the
/// value the stream reads.
fn streamed<T: Sections>(raw: &str, size: usize) -> Result<T, twr_runtime::Feedback> {
    let mut stream = SectionStream::<T>::new();
    let mut piece = String::new();
    for c in raw.chars() {
        piece.push(c);
        if piece.len() >= size {
            stream.push(&piece);
            piece.clear();
        }
    }
    stream.push(&piece);
    stream.finish();
    stream.value()
}

#[test]
fn dspy_markers_are_headers_and_completed_ends_the_last_section() {
    assert_eq!(Answered::parse_sections(DSPY), Ok(answered()));
    for size in [1, 3, 7, 64] {
        assert_eq!(
            streamed::<Answered>(DSPY, size),
            Ok(answered()),
            "size {size}"
        );
    }
    // Text after the closing marker belongs to no section, and a marker with
    // its content on the same line (stanfordnlp/dspy PR #7955) reads too.
    let raw = "[[ ## reasoning ## ]] Rayleigh scattering.\n[[ ## answer ## ]]\nBlue\n\
               [[ ## confidence ## ]]\n0.9\n[[ ## completed ## ]]\nLet me know if you need more!";
    assert_eq!(
        Answered::parse_sections(raw),
        Ok(Answered {
            reasoning: "Rayleigh scattering.".into(),
            ..answered()
        })
    );
}

/// A ReAct step as DSPy names its fields: identifiers with underscores.
#[derive(Debug, PartialEq, Sections)]
struct Step {
    next_thought: String,
    next_tool_name: String,
}

#[test]
fn dspy_identifiers_name_sections_with_spaces() {
    let raw =
        "[[ ## next_thought ## ]]\nI should search.\n\n[[ ## next_tool_name ## ]]\nsearch\n\n\
               [[ ## completed ## ]]";
    let expected = Step {
        next_thought: "I should search.".into(),
        next_tool_name: "search".into(),
    };
    assert_eq!(Step::parse_sections(raw), Ok(expected));
    let map =
        multi_section_parser(raw, &["Next Thought", "Next Tool Name"], MatchMode::All).unwrap();
    assert_eq!(map.get("next tool name"), Some("search"));
    // The marker written right after the text it ends, as Gemini 2.5 Pro
    // did in stanfordnlp/dspy#8379; streamed in pieces that split it.
    let raw =
        "[[ ## next_thought ## ]]\nThe user wants the transactions.[[ ## next_tool_name ## ]]\n\
               search[[ ## completed ## ]]";
    let expected = Step {
        next_thought: "The user wants the transactions.".into(),
        next_tool_name: "search".into(),
    };
    assert_eq!(Step::parse_sections(raw), Ok(expected));
    for size in [1, 4, 9] {
        assert_eq!(
            streamed::<Step>(raw, size),
            Step::parse_sections(raw),
            "size {size}"
        );
    }
}

/// The stream's events for `raw` fed in `size`-byte pieces: which section
/// opened and closed, in order.
fn events<T: Sections>(raw: &str, size: usize) -> Vec<String> {
    let mut stream = SectionStream::<T>::new();
    let mut seen = Vec::new();
    let mut note = |events: Vec<StreamEvent>| {
        for event in events {
            seen.push(match event {
                StreamEvent::Opened(section) => format!("opened {}", section.header),
                StreamEvent::Closed(section) => format!("closed {}", section.header),
                other => format!("{other:?}"),
            });
        }
    };
    let bytes: Vec<char> = raw.chars().collect();
    for piece in bytes.chunks(size) {
        note(stream.push(&piece.iter().collect::<String>()));
    }
    note(stream.finish());
    seen
}

#[test]
fn a_stream_reports_markers_along_a_line_in_order() {
    // Each marker closes the section before it and opens its own, also
    // when it follows text on the same line; `completed` only closes.
    let raw =
        "[[ ## next_thought ## ]]\nThe user wants the transactions.[[ ## next_tool_name ## ]]\n\
               search[[ ## completed ## ]]\nThanks!";
    for size in [1, 5, 200] {
        assert_eq!(
            events::<Step>(raw, size),
            [
                "opened [Next Thought]",
                "closed [Next Thought]",
                "opened [Next Tool Name]",
                "closed [Next Tool Name]",
            ],
            "size {size}"
        );
    }
}

#[test]
fn numbered_headers_on_lines_of_their_own() {
    let replies = [
        "1. Reasoning\nBlue light scatters most.\n2. Answer\nBlue\n3. Confidence\n0.9",
        "1) Reasoning:\nBlue light scatters most.\n\n2) Answer:\nBlue\n\n3) Confidence:\n0.9\n",
        "**1. Reasoning**\nBlue light scatters most.\n### 2. Answer\nBlue\n3. **Confidence**\n0.9",
    ];
    let expected = Answered {
        reasoning: "Blue light scatters most.".into(),
        answer: "Blue".into(),
        confidence: 0.9,
    };
    for raw in replies {
        assert_eq!(
            Answered::parse_sections(raw),
            Ok(expected.clone()),
            "{raw:?}"
        );
        assert_eq!(
            streamed::<Answered>(raw, 2),
            Ok(expected.clone()),
            "{raw:?}"
        );
    }
    // Numbered steps inside the reasoning are its text; the answer's
    // numbered header still opens the answer.
    let raw = "1. Reasoning\nSteps:\n1. Sunlight enters the air.\n2. Blue scatters most.\n\
               2. Answer\nBlue\n3. Confidence\n0.9";
    assert_eq!(
        Answered::parse_sections(raw).map(|a| a.reasoning),
        Ok("Steps:\n1. Sunlight enters the air.\n2. Blue scatters most.".to_owned())
    );
}

/// A checklist whose items may name the other sections.
#[derive(Debug, PartialEq, Sections)]
struct Checklist {
    steps: Vec<String>,
    plan: String,
    budget: String,
}

#[test]
fn numbered_items_of_a_list_section_stay_items() {
    // The list's items name sections; the headers' numbering (1, 2, 3)
    // tells the next headers from the items (1, 2).
    let raw = "1. Steps\n1. Plan\n2. Budget\n2. Plan\nWalk east.\n3. Budget\n$50";
    let expected = Checklist {
        steps: vec!["Plan".into(), "Budget".into()],
        plan: "Walk east.".into(),
        budget: "$50".into(),
    };
    assert_eq!(Checklist::parse_sections(raw), Ok(expected));
    assert_eq!(
        streamed::<Checklist>(raw, 1),
        Checklist::parse_sections(raw)
    );
    // Headers in brackets: every numbered line under [Steps] is an item.
    let raw = "[Steps]\n1. Plan\n2. Budget\n3. Plan\n[Plan]\nWalk east.\n[Budget]\n$50";
    assert_eq!(
        Checklist::parse_sections(raw).map(|c| c.steps),
        Ok(vec!["Plan".into(), "Budget".into(), "Plan".into()])
    );
    // Where both numberings fit, the line is an item, and the section it
    // would have opened is missing, with a hint naming the line.
    let raw = "1. Steps\n1. Pack\n2. Plan\nWalk east.\n3. Budget\n$50";
    let feedback = Checklist::parse_sections(raw).unwrap_err();
    assert_eq!(
        feedback.problems()[0].kind,
        ProblemKind::UnreadHeader {
            wrote: "2. Plan".into()
        }
    );
}

/// The feedback for a header written in a style twr does not read names
/// the line as written and the header to write instead.
#[test]
fn headers_in_styles_not_read_get_feedback_naming_the_line() {
    #[derive(Debug, PartialEq, Sections)]
    struct Qa {
        reasoning: String,
        answer: String,
    }
    let cases = [
        // A markdown list of labelled values, as chat models format answers.
        (
            "[Reasoning]\nBlue scatters.\n- **Answer:** Blue",
            "- **Answer:** Blue",
        ),
        // A template placeholder's braces kept (DSPy's and LangChain's
        // prompt templates write `{answer}`).
        ("[Reasoning]\nBlue scatters.\n{answer}\nBlue", "{answer}"),
        (
            "[Reasoning]\nBlue scatters.\nSection: Answer\nBlue",
            "Section: Answer",
        ),
        (
            "[Reasoning]\nBlue scatters.\n> **Answer**\n> Blue",
            "> **Answer**",
        ),
        (
            "[Reasoning]\nBlue scatters.\n=== Answer ===\nBlue",
            "=== Answer ===",
        ),
    ];
    for (raw, wrote) in cases {
        let feedback = Qa::parse_sections(raw).unwrap_err();
        let kinds: Vec<&ProblemKind> = feedback.problems().iter().map(|p| &p.kind).collect();
        assert_eq!(
            kinds,
            [&ProblemKind::UnreadHeader {
                wrote: wrote.into()
            }],
            "{raw:?}"
        );
    }
    let feedback = Qa::parse_sections(cases[0].0).unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "You wrote '- **Answer:** Blue' for the [Answer] section, which is not read as its \
         header: write [Answer] alone on a line of its own, then the content below it.\n\
         For example:\n[Answer]\n<free text>\n\n\
         Please write that section again: the header on a line of its own, followed by its \
         content."
    );
    // The same hint from the free parser.
    let feedback = multi_section_parser(
        "Plan:\nGo\n{budget}\n$5",
        &["Plan", "Budget"],
        MatchMode::All,
    )
    .unwrap_err();
    assert_eq!(
        feedback.problems()[0].kind,
        ProblemKind::UnreadHeader {
            wrote: "{budget}".into()
        }
    );
}
