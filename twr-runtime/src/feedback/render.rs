//! Renders a [`Feedback`] as the message sent to the model: every problem of
//! the reply in one message, each with what to write and the section's
//! example. The words come from the language's table in `phrases/`.

use std::fmt::{self, Write as _};

use super::{Feedback, Place, Problem, ProblemKind};

use crate::phrases::Lang;
use crate::phrases::{fill, phrases, without_stop, Phrases};
use crate::vocab::Expected;

/// Writes every problem of `feedback`; `closing` adds the request that ends a
/// message sent on its own.
pub(super) fn render(
    feedback: &Feedback,
    f: &mut fmt::Formatter<'_>,
    closing: bool,
) -> fmt::Result {
    let words = phrases(feedback.lang());
    let problems = feedback.problems();
    let numbered = problems.len() > 1;
    let mut out = String::new();
    if numbered {
        out.push_str(words.intro);
        out.push_str("\n\n");
    }
    for (i, problem) in problems.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        let indent = if numbered {
            let _ = write!(out, "{}. ", i + 1);
            "   "
        } else {
            ""
        };
        let such_as = inline_example(words, problem);
        out.push_str(&sentence(words, problem, such_as));
        if such_as.is_none() {
            if let Some(example) = example_block(words, problem) {
                let _ = write!(out, "\n{indent}{}", words.for_example);
                for line in example.lines() {
                    let _ = write!(out, "\n{indent}{line}");
                }
            }
        }
    }
    // A rule across sections counts each section it concerns.
    let sections: usize = problems
        .iter()
        .map(|p| match &p.kind {
            ProblemKind::Rule { headers, .. } => headers.len(),
            _ => usize::from(!p.header.is_empty()),
        })
        .sum();
    if closing && sections > 0 {
        out.push_str("\n\n");
        out.push_str(if sections > 1 {
            words.closing_many
        } else {
            words.closing_one
        });
    }
    f.write_str(&out)
}

/// One problem's sentence as a message in `lang` says it, without its
/// example block: the `Display` of a [`Problem`].
pub(super) fn problem(problem: &Problem, lang: Lang, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let words = phrases(lang);
    f.write_str(&sentence(words, problem, inline_example(words, problem)))
}

/// The sentence naming one problem. `such_as` is the example when it is
/// short enough to be said inline.
fn sentence(words: &Phrases, problem: &Problem, such_as: Option<&str>) -> String {
    let h = problem.header.as_str();
    if let Some(sentence) = problem
        .place
        .as_ref()
        .and_then(|place| in_place(words, problem, place, such_as))
    {
        return sentence;
    }
    let kind = || words.to_write(problem.value_kind.as_ref());
    let list = |items: &[String]| items.join(words.comma);
    match &problem.kind {
        ProblemKind::Missing => fill(words.missing, &[("h", h), ("kind", &kind())]),
        ProblemKind::Empty => fill(words.empty, &[("h", h), ("kind", &kind())]),
        ProblemKind::BadValue { expected, found } => fill(
            words.bad_value,
            &[
                ("h", h),
                ("expected", &words.expected(expected, such_as)),
                ("found", found),
            ],
        ),
        ProblemKind::BadItem {
            index,
            item,
            expected,
        } => fill(
            words.bad_item,
            &[
                ("h", h),
                ("index", &index.to_string()),
                ("expected", &words.expected(expected, None)),
                ("item", item),
            ],
        ),
        ProblemKind::BadJson { path, message } => {
            // From json::extract, the problem is about the whole reply, not
            // a section.
            let template = match (h.is_empty(), path.is_empty()) {
                (true, true) => words.reply_json_shape,
                (true, false) => words.reply_json_at,
                (false, true) => words.json_shape,
                (false, false) => words.json_at,
            };
            fill(
                template,
                &[
                    ("h", h),
                    ("path", path),
                    ("message", &words.sentence_end(message)),
                ],
            )
        }
        ProblemKind::Unreadable { message, found } => fill(
            words.unreadable,
            &[
                ("h", h),
                ("message", without_stop(message)),
                ("found", found),
            ],
        ),
        ProblemKind::Invalid { message } => fill(
            words.invalid,
            &[("h", h), ("message", &words.sentence_end(message))],
        ),
        ProblemKind::NearMiss { wrote } => fill(words.near_miss, &[("h", h), ("wrote", wrote)]),
        ProblemKind::UnreadHeader { wrote } => {
            fill(words.unread_header, &[("h", h), ("wrote", wrote)])
        }
        ProblemKind::NotOnOwnLine { line } => {
            fill(words.not_on_own_line, &[("h", h), ("line", line)])
        }
        ProblemKind::NoneOf { headers } => {
            fill(words.none_of, &[("headers", &headers.join(words.comma))])
        }
        ProblemKind::NoWay { enum_name, ways } => fill(
            words.no_way,
            &[
                ("enum_name", enum_name),
                ("ways", &way_list(words, ways, true)),
            ],
        ),
        ProblemKind::MixedWays {
            enum_name,
            found,
            ways,
        } => fill(
            words.mixed_ways,
            &[
                ("enum_name", enum_name),
                ("found", &way_list(words, found, false)),
                ("ways", &way_list(words, ways, true)),
            ],
        ),
        ProblemKind::MissingDivider => words.missing_divider.to_owned(),
        ProblemKind::NoTable { columns } => {
            fill(words.no_table, &[("h", h), ("columns", &list(columns))])
        }
        ProblemKind::NoRecord { labels } => {
            fill(words.no_record, &[("h", h), ("labels", &list(labels))])
        }
        ProblemKind::NoColumn { column, columns } => fill(
            words.no_column,
            &[("h", h), ("column", column), ("columns", &list(columns))],
        ),
        ProblemKind::UnknownLabel { label, labels } => fill(
            words.unknown_label,
            &[("h", h), ("label", label), ("labels", &list(labels))],
        ),
        ProblemKind::ExtraCells { extra, columns } => fill(
            words.extra_cells,
            &[
                ("h", h),
                ("at", ""),
                ("columns", &columns.to_string()),
                ("extra", extra),
            ],
        ),
        ProblemKind::Omitted { count } => {
            fill(words.omitted, &[("h", h), ("count", &count.to_string())])
        }
        // The user's own words, sent as written.
        ProblemKind::Rule { message, .. }
        | ProblemKind::Check { message }
        | ProblemKind::Other { message } => message.clone(),
    }
}

/// "Search ([Query] and [Reason]) or Answer ([Answer])"; with `and` for
/// `alternatives` false.
fn way_list(words: &Phrases, ways: &[super::Way], alternatives: bool) -> String {
    let items: Vec<String> = ways
        .iter()
        .map(|way| {
            let headers: Vec<&str> = way.headers.iter().map(String::as_str).collect();
            fill(
                words.way_headers,
                &[("name", &way.name), ("headers", &words.join(&headers))],
            )
        })
        .collect();
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    if alternatives {
        words.join_or(&items)
    } else {
        words.join(&items)
    }
}

/// The sentence of a problem at a cell, row or line of a table, record or
/// map section; `None` for kinds that read the same wherever they are.
fn in_place(
    words: &Phrases,
    problem: &Problem,
    place: &Place,
    such_as: Option<&str>,
) -> Option<String> {
    let h = problem.header.as_str();
    let at = match place {
        Place::Cell { row, column } => fill(
            words.at_cell,
            &[("row", &row.to_string()), ("column", column)],
        ),
        Place::Row(row) => fill(words.at_row, &[("row", &row.to_string())]),
        Place::Label(label) => fill(words.at_label, &[("label", label)]),
    };
    Some(match &problem.kind {
        ProblemKind::Empty => fill(words.cell_empty, &[("h", h), ("at", &at)]),
        ProblemKind::BadValue { expected, found } => fill(
            words.cell_bad,
            &[
                ("h", h),
                ("at", &at),
                ("found", found),
                ("expected", &words.expected(expected, such_as)),
            ],
        ),
        ProblemKind::BadItem {
            index,
            item,
            expected,
        } => fill(
            words.cell_bad_item,
            &[
                ("h", h),
                ("at", &at),
                ("index", &index.to_string()),
                ("expected", &words.expected(expected, None)),
                ("item", item),
            ],
        ),
        ProblemKind::Unreadable { message, found } => fill(
            words.cell_unreadable,
            &[
                ("h", h),
                ("at", &at),
                ("found", found),
                ("message", without_stop(message)),
            ],
        ),
        ProblemKind::Missing => match place {
            Place::Label(label) => fill(words.no_line, &[("h", h), ("label", label)]),
            _ => return None,
        },
        ProblemKind::ExtraCells { extra, columns } => fill(
            words.extra_cells,
            &[
                ("h", h),
                ("at", &at),
                ("columns", &columns.to_string()),
                ("extra", extra),
            ],
        ),
        _ => return None,
    })
}

/// How a bad value's example is shown beside what it should be.
#[derive(PartialEq)]
enum Shown {
    /// Inline, "a single whole number such as 6".
    Inline,
    /// Under the sentence, with the header.
    Block,
    /// Not at all: the sentence lists the values already.
    Not,
}

/// How the example of a value that should have been `expected` is shown:
/// the one place feedback decides per kind of value.
#[deny(clippy::wildcard_enum_match_arm)]
fn shown(expected: &Expected) -> Shown {
    match expected {
        Expected::WholeNumber | Expected::Number | Expected::OneCharacter => Shown::Inline,
        Expected::OneOf(_) | Expected::YesNo => Shown::Not,
        Expected::Text
        | Expected::WholeNumberBetween { .. }
        | Expected::Within { .. }
        | Expected::Described(_) => Shown::Block,
    }
}

/// The example, when it is a short single line and the problem is about a
/// scalar: "a single whole number such as 6".
fn inline_example<'p>(words: &Phrases, problem: &'p Problem) -> Option<&'p str> {
    let example = problem.example.as_deref()?.trim();
    if is_slot(words, problem, example) {
        return None;
    }
    let scalar = match &problem.kind {
        ProblemKind::BadValue { expected, .. } => shown(expected) == Shown::Inline,
        _ => false,
    };
    (scalar && !example.is_empty() && !example.contains('\n') && example.chars().count() <= 30)
        .then_some(example)
}

/// The header and example content shown after a problem, when there is one.
fn example_block(words: &Phrases, problem: &Problem) -> Option<String> {
    let example = problem.example.as_deref()?.trim();
    let shows_example = matches!(
        problem.kind,
        ProblemKind::Missing
            | ProblemKind::Empty
            | ProblemKind::BadValue { .. }
            | ProblemKind::BadItem { .. }
            | ProblemKind::BadJson { .. }
            | ProblemKind::Unreadable { .. }
            | ProblemKind::Invalid { .. }
            | ProblemKind::NearMiss { .. }
            | ProblemKind::UnreadHeader { .. }
            | ProblemKind::NotOnOwnLine { .. }
            | ProblemKind::NoTable { .. }
            | ProblemKind::NoRecord { .. }
            | ProblemKind::NoColumn { .. }
            | ProblemKind::UnknownLabel { .. }
    );
    // A Choice value or yes/no lists its values in the sentence already.
    let lists_values = match &problem.kind {
        ProblemKind::BadValue { expected, .. } => shown(expected) == Shown::Not,
        _ => false,
    };
    // A problem at a cell or line says its example inline, if at all.
    let in_place = problem.place.is_some();
    // A slot (`<a single whole number>`, the guide's placeholder for a
    // section without an example) shows where the header goes; under a
    // value that is wrong it would only repeat the sentence.
    let layout = matches!(
        problem.kind,
        ProblemKind::Missing
            | ProblemKind::Empty
            | ProblemKind::NearMiss { .. }
            | ProblemKind::UnreadHeader { .. }
            | ProblemKind::NotOnOwnLine { .. }
    );
    let slot_adds_nothing = !layout && is_slot(words, problem, example);
    (shows_example
        && !lists_values
        && !in_place
        && !slot_adds_nothing
        && !example.is_empty()
        && !problem.header.is_empty())
    .then(|| format!("{}\n{example}", problem.header))
}

/// True when `example` is the guide's slot for the problem's kind of value
/// rather than an example of the section's own.
fn is_slot(words: &Phrases, problem: &Problem, example: &str) -> bool {
    // The slots of the feedback's own table, and of the shipped ones (a
    // feedback may be rendered in another language than its guide's).
    problem.value_kind.as_ref().is_some_and(|kind| {
        [phrases(Lang::En), phrases(Lang::Zh), words]
            .into_iter()
            .any(|table| table.slot(kind) == example)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phrases::Lang;
    use crate::vocab::ValueKind;

    #[test]
    fn problem_list_is_the_message_without_its_closing_request() {
        let mut feedback = Feedback::new(Lang::En);
        feedback.push(Problem::new("[Days]", ProblemKind::Missing));
        let list = feedback.problem_list().to_string();
        assert_eq!(
            list,
            "The [Days] section is missing. Please add it: the header [Days] on a line of its own, then its content."
        );
        assert_eq!(
            feedback.to_string(),
            format!("{list}\n\n{}", phrases(Lang::En).closing_one)
        );
    }

    fn one(lang: Lang, problem: Problem) -> String {
        let mut feedback = Feedback::new(lang);
        feedback.push(problem);
        // Only the sentence and example block: the closing is tested apart.
        let text = feedback.to_string();
        let closing = [phrases(Lang::En).closing_one, phrases(Lang::Zh).closing_one];
        closing
            .iter()
            .find_map(|c| text.strip_suffix(c))
            .map_or(text.clone(), |t| t.trim_end().to_owned())
    }

    fn section(kind: ProblemKind) -> Problem {
        Problem::new("[Weeks]", kind)
            .with_example("6")
            .with_value_kind(ValueKind::Integer)
    }

    #[test]
    fn every_kind_in_english_and_chinese() {
        let cases: Vec<(ProblemKind, &str, &str)> = vec![
            (
                ProblemKind::Missing,
                "The [Weeks] section is missing. Please add it: the header [Weeks] on a line of its own, then a single whole number.\nFor example:\n[Weeks]\n6",
                "缺少 [Weeks] 部分。请补上：标题 [Weeks] 单独占一行，下面写一个整数。\n例如：\n[Weeks]\n6",
            ),
            (
                ProblemKind::Empty,
                "The [Weeks] section is empty. Please write a single whole number under its header.\nFor example:\n[Weeks]\n6",
                "[Weeks] 部分是空的。请在标题下面写一个整数。\n例如：\n[Weeks]\n6",
            ),
            (
                ProblemKind::BadValue { expected: Expected::WholeNumber, found: "about six".into() },
                "The [Weeks] section should be a single whole number such as 6; it says 'about six'.",
                "[Weeks] 部分应该是一个整数，例如 6；现在写的是“about six”。",
            ),
            (
                ProblemKind::BadValue {
                    expected: Expected::WholeNumberBetween { min: "0".into(), max: "255".into() },
                    found: "300".into(),
                },
                "The [Weeks] section should be a single whole number from 0 to 255; it says '300'.\nFor example:\n[Weeks]\n6",
                "[Weeks] 部分应该是介于 0 和 255 之间的一个整数；现在写的是“300”。\n例如：\n[Weeks]\n6",
            ),
            (
                ProblemKind::BadItem { index: 2, item: "a few".into(), expected: Expected::WholeNumber },
                "Item 2 of the [Weeks] list should be a single whole number; it says 'a few'.\nFor example:\n[Weeks]\n6",
                "[Weeks] 列表的第 2 项应该是一个整数；现在写的是“a few”。\n例如：\n[Weeks]\n6",
            ),
            (
                ProblemKind::BadJson { path: "budget.total".into(), message: "expected a number".into() },
                "The JSON in the [Weeks] section is wrong at `budget.total`: expected a number.\nFor example:\n[Weeks]\n6",
                "[Weeks] 部分的 JSON 在 `budget.total` 处有误：expected a number。\n例如：\n[Weeks]\n6",
            ),
            (
                ProblemKind::Unreadable { message: "invalid date.".into(), found: "soon".into() },
                "The [Weeks] section could not be read (invalid date); it says 'soon'.\nFor example:\n[Weeks]\n6",
                "无法读取 [Weeks] 部分（invalid date）；现在写的是“soon”。\n例如：\n[Weeks]\n6",
            ),
            (
                ProblemKind::Invalid { message: "must be at most 52!".into() },
                "The [Weeks] section needs a change: must be at most 52!\nFor example:\n[Weeks]\n6",
                "[Weeks] 部分需要修改：must be at most 52!\n例如：\n[Weeks]\n6",
            ),
            (
                ProblemKind::NearMiss { wrote: "## Duration".into() },
                "You wrote ## Duration; name it [Weeks], on a line of its own.\nFor example:\n[Weeks]\n6",
                "你写的是 ## Duration；请把它改成 [Weeks]，单独占一行。\n例如：\n[Weeks]\n6",
            ),
        ];
        for (kind, english, chinese) in cases {
            assert_eq!(one(Lang::En, section(kind.clone())), english, "{kind:?}");
            assert_eq!(one(Lang::Zh, section(kind.clone())), chinese, "{kind:?}");
        }
    }

    #[test]
    fn reply_wide_problems_have_no_closing() {
        let none_of = Problem::new(
            "",
            ProblemKind::NoneOf {
                headers: vec!["[Plan]".into(), "[Budget]".into()],
            },
        );
        let mut feedback = Feedback::new(Lang::En);
        feedback.push(none_of.clone());
        assert_eq!(
            feedback.to_string(),
            "None of the sections [Plan], [Budget] is in your answer. Please give at least one of them, each header on a line of its own."
        );
        assert_eq!(
            feedback.clone().with_lang(Lang::Zh).to_string(),
            "你的回答里没有 [Plan]、[Budget] 中的任何一个部分。请至少写出其中一个，每个标题单独占一行。"
        );
        assert_eq!(
            Feedback::message("Say it in one word.").to_string(),
            "Say it in one word."
        );
        let mut divider = Feedback::new(Lang::Zh);
        divider.push(Problem::new("", ProblemKind::MissingDivider));
        assert_eq!(
            divider.to_string(),
            "请把最终答案写在一行五个或更多等号（=====）之后，或写在两行这样的等号之间。"
        );
    }

    #[test]
    fn several_problems_are_numbered_with_indented_examples() {
        let mut feedback = Feedback::new(Lang::Zh);
        feedback.push(section(ProblemKind::Missing));
        feedback.push(
            Problem::new(
                "[Priority]",
                ProblemKind::BadValue {
                    expected: Expected::OneOf(&["Low", "High"]),
                    found: "urgent".into(),
                },
            )
            .with_example("Low | High"),
        );
        assert_eq!(
            feedback.to_string(),
            "谢谢。你的回答有几处需要修改：

1. 缺少 [Weeks] 部分。请补上：标题 [Weeks] 单独占一行，下面写一个整数。
   例如：
   [Weeks]
   6

2. [Priority] 部分应该是以下之一：Low、High；现在写的是“urgent”。

请重新写出这些部分：每个标题单独占一行，内容写在标题下面。"
        );
    }
}
