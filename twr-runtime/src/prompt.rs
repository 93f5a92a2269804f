//! The soft-format guide appended to the prompt: think freely, then answer
//! in sections, with a complete example answer.

use std::fmt::Write as _;

use crate::phrases::{fill, phrases, Lang};
use crate::vocab::{Presence, SectionSpec, Style, ValueKind, WaysSpec};

/// The soft-format instructions for `specs`, with a complete example answer
/// built from the sections' examples (or placeholders for their kinds).
///
/// ```
/// use twr_runtime::prompt::format_guide;
/// use twr_runtime::sections::{Lang, Presence, SectionSpec, ValueKind};
///
/// static SPECS: [SectionSpec; 2] = [
///     SectionSpec::new("plan", "[Plan]", "Plan", ValueKind::List(&ValueKind::Text))
///         .with_description("What to see, in order.")
///         .with_example("1. Fushimi Inari\n2. Gion"),
///     SectionSpec::new("weeks", "[Weeks]", "Weeks", ValueKind::Integer)
///         .with_presence(Presence::Optional),
/// ];
///
/// assert_eq!(
///     format_guide(&SPECS, Lang::En),
///     "Think it through freely first. Then give your final answer in the sections below, \
///      each header on a line of its own followed by its content.
///
/// [Plan]
/// What to see, in order. A list, one item per line.
///
/// [Weeks] (optional: write N/A if it does not apply)
/// A single whole number.
///
/// Example answer:
///
/// [Plan]
/// 1. Fushimi Inari
/// 2. Gion
/// [Weeks]
/// <a single whole number>
///
/// After any thinking, begin your final answer with [Plan] on a line of its own."
/// );
/// ```
pub fn format_guide(specs: &[SectionSpec], lang: Lang) -> String {
    format_guide_with(specs, lang, &[])
}

/// An example content computed when the guide is written: the example table
/// of a `#[section(table)]` field, built from its row type's fields.
pub(crate) type Shape = fn(Lang) -> String;

/// [`format_guide`], with `shapes` giving the example of the sections at
/// their index that have no `example` of their own.
pub(crate) fn format_guide_with(
    specs: &[SectionSpec],
    lang: Lang,
    shapes: &[(usize, Shape)],
) -> String {
    format_guide_styled(specs, lang, Style::Brackets, shapes)
}

/// [`format_guide_with`] in a header `style`: the sections are listed, and
/// the example answer written, with that style's markers (`<plan>` ...
/// `</plan>`, `## Plan`).
pub(crate) fn format_guide_styled(
    specs: &[SectionSpec],
    lang: Lang,
    style: Style,
    shapes: &[(usize, Shape)],
) -> String {
    guide(specs, &[], lang, style, shapes)
}

/// The guide of `specs` with the `ways` of the enums among them: each
/// enum is offered as its ways ("Answer in one of these ways"), each way with
/// its description and sections, and the example answer is given once per
/// way. Without ways, the guide of [`format_guide_styled`].
pub(crate) fn guide(
    specs: &[SectionSpec],
    ways: &[WaysSpec],
    lang: Lang,
    style: Style,
    shapes: &[(usize, Shape)],
) -> String {
    let words = phrases(lang);
    let mut guide = String::from(if style.closes() {
        words.guide_intro_xml
    } else {
        words.guide_intro
    });
    let mut entered = vec![false; ways.len()];
    list(
        &mut guide,
        specs,
        ways,
        0..specs.len(),
        &mut entered,
        lang,
        style,
    );
    let examples = examples(specs, ways);
    let mut first_headers: Vec<String> = Vec::new();
    for example in &examples {
        guide.push_str("\n\n");
        match example.way {
            Some((number, name)) => guide.push_str(&fill(
                words.guide_example_way,
                &[("n", &number.to_string()), ("name", name)],
            )),
            None => guide.push_str(words.guide_example),
        }
        guide.push_str("\n\n");
        guide.push_str(&example_answer_styled(
            specs,
            lang,
            style,
            shapes,
            |index| example.sections.contains(&index),
        ));
        let first = example
            .sections
            .first()
            .and_then(|&index| specs.get(index))
            .map(|spec| style.markers(spec.header, spec.name).open);
        if let Some(first) = first.filter(|first| !first_headers.contains(first)) {
            first_headers.push(first);
        }
    }
    // Where the final answer starts: measured on SmolLM2-135M (70 first
    // replies), this line cut replies with no header at all from 44 to 33
    // and replies cut off by the token limit from 8 to 1.
    if !first_headers.is_empty() {
        let first_headers: Vec<&str> = first_headers.iter().map(String::as_str).collect();
        guide.push_str("\n\n");
        guide.push_str(&fill(
            words.guide_begin,
            &[("h", &words.join_or(&first_headers))],
        ));
    }
    guide
}

/// Lists the sections at positions `range` of `specs`: one entry each, and
/// where an enum of ways starts, its ways, each with its sections (an enum
/// inside a way is listed inside it). `entered` marks the enums listed
/// already.
fn list(
    guide: &mut String,
    specs: &[SectionSpec],
    ways: &[WaysSpec],
    range: std::ops::Range<usize>,
    entered: &mut [bool],
    lang: Lang,
    style: Style,
) {
    let words = phrases(lang);
    let mut index = range.start;
    while index < range.end {
        let starts = ways.iter().enumerate().find(|(number, enum_ways)| {
            !entered[*number]
                && enum_ways.start == index
                && !enum_ways.range().is_empty()
                && enum_ways.range().end <= range.end
        });
        let Some((number, enum_ways)) = starts else {
            if let Some(spec) = specs.get(index) {
                section_entry(guide, spec, lang, style);
            }
            index += 1;
            continue;
        };
        entered[number] = true;
        guide.push_str("\n\n");
        guide.push_str(words.guide_ways);
        for (position, way) in enum_ways.ways.iter().enumerate() {
            guide.push_str("\n\n");
            guide.push_str(&fill(
                words.guide_way,
                &[("n", &(position + 1).to_string()), ("name", way.name)],
            ));
            let description = way.description.trim();
            if !description.is_empty() {
                guide.push_str(words.sentence_gap);
                guide.push_str(&words.sentence_end(description));
            }
            if let Some(sections) = enum_ways.way_range(position) {
                list(guide, specs, ways, sections, entered, lang, style);
            }
        }
        index = enum_ways.range().end;
    }
}

/// The guide's entry for one section: its header (in `style`), whether it
/// may be left out, its description and what kind of value it holds.
fn section_entry(guide: &mut String, spec: &SectionSpec, lang: Lang, style: Style) {
    let words = phrases(lang);
    guide.push_str("\n\n");
    guide.push_str(&style.markers(spec.header, spec.name).open);
    match spec.presence {
        Presence::Required => {}
        Presence::Optional => guide.push_str(words.guide_optional),
        Presence::Default => guide.push_str(words.guide_may_omit),
    }
    guide.push('\n');
    let description = spec.description.trim();
    if !description.is_empty() {
        guide.push_str(description);
        if !description.ends_with(['.', '!', '?', '。', '！', '？', ':', '：']) {
            guide.push(words.stop);
        }
    }
    // The kind is said once: by the example's slot when the section has
    // no example of its own, here otherwise. Free text needs no words
    // when the description says what to write (the table's `says_kind`).
    let slot_says_it = spec.example.trim().is_empty() && !description.is_empty();
    let description_says_it = words.says_kind(description, &spec.kind);
    if !slot_says_it && !description_says_it {
        if !description.is_empty() {
            guide.push_str(words.sentence_gap);
        }
        match words.guide_bounds(&spec.kind, &spec.bounds) {
            // A bounded number: its sentence says the kind and the bounds.
            Some(bounded) if !matches!(spec.kind, ValueKind::List(_)) => {
                guide.push_str(&bounded);
                return;
            }
            _ => guide.push_str(&words.guide_kind(&spec.kind)),
        }
        if let Some(bounded) = words.guide_bounds(&spec.kind, &spec.bounds) {
            guide.push_str(words.sentence_gap);
            guide.push_str(&bounded);
        }
        return;
    }
    // The slot or the description said the kind; the bounds are said here
    // (the slot is the kind's alone, which the parser and the feedback
    // know a copied slot by).
    if let Some(bounded) = words.guide_bounds(&spec.kind, &spec.bounds) {
        if !guide.ends_with('\n') {
            guide.push_str(words.sentence_gap);
        }
        guide.push_str(&bounded);
    }
}

/// One example answer of a guide: the positions of its sections, and with
/// ways, the way it shows (its number and name).
struct Example<'c> {
    sections: Vec<usize>,
    way: Option<(usize, &'c str)>,
}

/// The example answers of `specs`: one, or one per way of its enums (the
/// `n`-th example takes the `n`-th way of every enum, or its last way
/// when it has fewer), labelled by the enum with the most ways.
fn examples<'c>(specs: &[SectionSpec], ways: &'c [WaysSpec]) -> Vec<Example<'c>> {
    let widest = ways
        .iter()
        .filter(|enum_ways| !enum_ways.ways.is_empty())
        .reduce(|widest, enum_ways| {
            if enum_ways.ways.len() > widest.ways.len() {
                enum_ways
            } else {
                widest
            }
        });
    let Some(widest) = widest else {
        return vec![Example {
            sections: (0..specs.len()).collect(),
            way: None,
        }];
    };
    (0..widest.ways.len())
        .map(|way| Example {
            sections: sections_of_way(specs.len(), ways, way),
            way: Some((way + 1, widest.ways[way].name)),
        })
        .collect()
}

/// The complete answers `specs` allow, as the guide's examples show them:
/// one, or one per way of its enums, each with the name of its way.
pub(crate) fn answers<'c>(
    specs: &[SectionSpec],
    ways: &'c [WaysSpec],
) -> Vec<(Option<&'c str>, Vec<usize>)> {
    examples(specs, ways)
        .into_iter()
        .map(|example| (example.way.map(|(_, name)| name), example.sections))
        .collect()
}

/// The positions of the sections an answer in the `way`-th way of every
/// enum has (the last way of an enum with fewer).
pub(crate) fn sections_of_way(len: usize, ways: &[WaysSpec], way: usize) -> Vec<usize> {
    (0..len)
        .filter(|&index| {
            ways.iter().all(|enum_ways| match enum_ways.way_of(index) {
                Some(taken) => taken == way.min(enum_ways.ways.len().saturating_sub(1)),
                None => true,
            })
        })
        .collect()
}

/// The complete example answer of the guide: each section's header and its
/// example (or its shape, or a slot for its kind), in declaration order.
pub(crate) fn example_answer(
    specs: &[SectionSpec],
    lang: Lang,
    shapes: &[(usize, Shape)],
) -> String {
    example_answer_styled(specs, lang, Style::Brackets, shapes, |_| true)
}

/// The example answer in the first way of every enum, as the guide's
/// first example gives it.
pub(crate) fn first_example(specs: &[SectionSpec], ways: &[WaysSpec], lang: Lang) -> String {
    let sections = sections_of_way(specs.len(), ways, 0);
    example_answer_styled(specs, lang, Style::Brackets, &[], |index| {
        sections.contains(&index)
    })
}

/// [`example_answer`] with the markers of `style`, of the sections at the
/// positions `include` accepts.
fn example_answer_styled(
    specs: &[SectionSpec],
    lang: Lang,
    style: Style,
    shapes: &[(usize, Shape)],
    include: impl Fn(usize) -> bool,
) -> String {
    let mut answer = String::new();
    for (index, spec) in specs.iter().enumerate() {
        if !include(index) {
            continue;
        }
        let example = spec.example.trim();
        let shape = shapes.iter().find(|(i, _)| *i == index);
        let example = match shape {
            _ if !example.is_empty() => example.to_owned(),
            Some((_, shape)) => shape(lang),
            None => placeholder(&spec.kind, lang),
        };
        if !answer.is_empty() {
            answer.push('\n');
        }
        let markers = style.markers(spec.header, spec.name);
        let _ = write!(answer, "{}\n{example}", markers.open);
        if let Some(close) = markers.close {
            let _ = write!(answer, "\n{close}");
        }
    }
    answer
}

/// The example content shown for a section of `kind` that has none: a slot
/// naming what to write, `<a single whole number>`, or `- <item>` lines for
/// a list.
pub(crate) fn placeholder(kind: &ValueKind, lang: Lang) -> String {
    phrases(lang).slot(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn spec(
        header: &'static str,
        description: &'static str,
        example: &'static str,
        kind: ValueKind,
        presence: Presence,
    ) -> SectionSpec {
        SectionSpec::new("f", header, "", kind)
            .with_description(description)
            .with_example(example)
            .with_presence(presence)
    }

    static SPECS: [SectionSpec; 5] = [
        spec(
            "【计划】",
            "研究的步骤",
            "",
            ValueKind::List(&ValueKind::Text),
            Presence::Required,
        ),
        spec("[周数]", "", "", ValueKind::Integer, Presence::Required),
        spec("[可行]", "", "", ValueKind::Bool, Presence::Required),
        spec(
            "[优先级]",
            "",
            "",
            ValueKind::Choice(&["低", "中", "高"]),
            Presence::Default,
        ),
        spec(
            "[备注]",
            "其他说明。",
            "无",
            ValueKind::Text,
            Presence::Optional,
        ),
    ];

    #[test]
    fn chinese_guide() {
        assert_eq!(
            format_guide(&SPECS, Lang::Zh),
            "请先自由地思考。然后按下面的部分给出最终答案：每个标题单独占一行，内容写在标题下面。

【计划】
研究的步骤。

[周数]
一个整数。

[可行]
“是”或“否”。

[优先级]（可选）
以下之一：低、中、高。

[备注]（可选：不适用时写“无”）
其他说明。

示例答案：

【计划】
- <条目>
- <条目>
[周数]
<一个整数>
[可行]
<“是”或“否”>
[优先级]
<以下之一：低、中、高>
[备注]
无

思考之后，请以单独一行的【计划】开始你的最终答案。"
        );
    }

    #[test]
    fn placeholders_by_kind() {
        let cases = [
            (ValueKind::Text, "<free text>"),
            (ValueKind::Integer, "<a single whole number>"),
            (ValueKind::Float, "<a single number>"),
            (ValueKind::Bool, "<yes or no>"),
            (ValueKind::Char, "<a single character>"),
            (ValueKind::Choice(&["Low", "High"]), "<one of: Low, High>"),
            (
                ValueKind::List(&ValueKind::Integer),
                "- <a single whole number>\n- <a single whole number>",
            ),
            (
                ValueKind::List(&ValueKind::List(&ValueKind::Text)),
                "- <item>\n- <item>",
            ),
            (ValueKind::List(&ValueKind::Text), "- <item>\n- <item>"),
            (ValueKind::Json, "<a JSON value>"),
            (ValueKind::Custom, "<a single value>"),
        ];
        for (kind, placeholder) in cases {
            assert_eq!(super::placeholder(&kind, Lang::En), placeholder, "{kind:?}");
        }
    }
}
