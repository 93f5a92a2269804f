//! `#[sections(style = "xml")]` and `style = "markdown"`: the guide asks for
//! tag pairs or markdown headings, and the parser reads every style, since
//! models mix them.

use twr_runtime::{sections::Style, Sections};

/// A trip, answered in tags.
#[derive(Debug, Clone, PartialEq, Sections)]
#[sections(style = "xml")]
struct Trip {
    /// What to see, one stop per line.
    #[section(header = "[Research Plan]", example = "- Fushimi Inari\n- Gion")]
    plan: Vec<String>,
    /// The total in US dollars.
    budget: u32,
    notes: Option<String>,
}

/// The same sections, asked for as markdown headings.
#[derive(Debug, PartialEq, Sections)]
#[sections(style = "markdown", lang = "zh")]
struct Note {
    /// 一句话总结。
    summary: String,
    days: u32,
}

#[test]
fn the_xml_guide_asks_for_tag_pairs() {
    assert_eq!(Trip::style(), Style::Xml);
    assert_eq!(
        Trip::format_guide(),
        "Think it through freely first. Then give your final answer in the sections below, \
         each inside its pair of tags: the opening tag, the content, then the closing tag.

<research_plan>
What to see, one stop per line.

<budget>
The total in US dollars.

<notes> (optional: write N/A if it does not apply)
Free text.

Example answer:

<research_plan>
- Fushimi Inari
- Gion
</research_plan>
<budget>
<a single whole number>
</budget>
<notes>
<free text>
</notes>

After any thinking, begin your final answer with <research_plan> on a line of its own."
    );
}

#[test]
fn the_markdown_guide_asks_for_headings() {
    assert_eq!(Note::style(), Style::Markdown);
    assert_eq!(
        Note::format_guide(),
        "请先自由地思考。然后按下面的部分给出最终答案：每个标题单独占一行，内容写在标题下面。

## Summary
一句话总结。

## Days
一个整数。

示例答案：

## Summary
<自由文字>
## Days
<一个整数>

思考之后，请以单独一行的## Summary开始你的最终答案。"
    );
    assert_eq!(
        Note::parse_sections("## Summary\n很好\n## Days\n3"),
        Ok(Note {
            summary: "很好".into(),
            days: 3
        })
    );
}

#[test]
fn tag_pairs_are_read_in_every_layout_and_mixed_with_brackets() {
    let expected = Trip {
        plan: vec!["Fushimi Inari".into(), "Gion".into()],
        budget: 500,
        notes: None,
    };
    let replies = [
        // As the guide asks.
        "<research_plan>\n- Fushimi Inari\n- Gion\n</research_plan>\n<budget>\n$500\n</budget>\n<notes>\nN/A\n</notes>",
        // Content on the tag lines, prose around and between the pairs.
        "Sure.\n<research_plan>- Fushimi Inari\n- Gion</research_plan>\nThat is the plan.\n<budget>$500</budget>",
        // Other spellings of the tag name, and a bracket header.
        "<Research Plan>\n- Fushimi Inari\n- Gion\n</research-plan>\n[Budget]\n$500",
        // The model answers in the default style anyway.
        "[Research Plan]\n- Fushimi Inari\n- Gion\n[Budget] $500",
    ];
    for reply in replies {
        assert_eq!(Trip::parse_sections(reply), Ok(expected.clone()), "{reply}");
    }
}

#[test]
fn a_tag_pair_left_open_runs_to_the_next_header() {
    // `<budget>` never closed: the section ends at the next header, and a
    // wrong value is named as usual.
    let feedback = Trip::parse_sections(
        "<research_plan>\n- Gion\n</research_plan>\n<budget>\nabout 500 or 600\n<notes>\nbring cash",
    )
    .unwrap_err();
    assert_eq!(
        feedback.to_string(),
        "The [Budget] section should be a single whole number; it says 'about 500 or 600'.\n\nPlease write that section again: the header on a line of its own, \
         followed by its content."
    );
}
