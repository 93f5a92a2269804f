//! The messages the loop sends back to the model, in English and Chinese.
//!
//! The problem list itself is the [`Feedback`]'s own rendering; these
//! templates only frame it and say what to send next.

use crate::feedback::{Feedback, Lang};

/// What the model is asked to send after a rejected reply.
pub(crate) enum Request<'h> {
    /// Only these sections (patch retry).
    Sections(&'h [&'h str]),
    /// Every section again.
    Whole,
    /// A new answer, for a free-form parser.
    Free,
}

/// The message sent back after a reply with format problems.
///
/// `escalate` is set when the same problems came twice in a row; it carries
/// the format guide (with its complete example answer) when there is one.
pub(crate) fn format_feedback(
    lang: Lang,
    feedback: &Feedback,
    request: Request<'_>,
    escalate: Option<Option<&str>>,
) -> String {
    // The loop's own request below replaces the feedback's generic closing.
    let mut text = format!("{}\n\n", feedback.problem_list());
    text.push_str(&match (lang, request) {
        (Lang::En, Request::Sections(headers)) => format!(
            "Reply with only the corrected {}; I have kept the rest of your answer.",
            sections_en(headers)
        ),
        (Lang::Zh, Request::Sections(headers)) => format!(
            "请只回复改正后的{}部分，写在各自的标题下；回答的其余部分我已保留。",
            join(lang, headers)
        ),
        (Lang::En, Request::Whole) => {
            "Reply with your whole answer again, every section included and each header on a line of its own, with these fixes made."
                .to_string()
        }
        (Lang::Zh, Request::Whole) => {
            "请重新写出包含所有部分的完整回答，并做好这些修改。".to_string()
        }
        (Lang::En, Request::Free) => "Please answer again with these fixes made.".to_string(),
        (Lang::Zh, Request::Free) => "请做好这些修改后重新回答。".to_string(),
    });
    match (lang, escalate) {
        (_, None) => {}
        (Lang::En, Some(Some(guide))) => {
            text.push_str("\n\nThese are the same problems as in your previous answer. Please follow the format exactly; here it is again, with a complete example answer:\n\n");
            text.push_str(guide);
        }
        (Lang::Zh, Some(Some(guide))) => {
            text.push_str("\n\n这些问题与上一次回答中的相同。请严格按照格式作答；下面再次给出格式说明和完整的示例回答：\n\n");
            text.push_str(guide);
        }
        (Lang::En, Some(None)) => text.push_str(
            "\n\nThese are the same problems as in your previous answer; please read them carefully and change your answer accordingly.",
        ),
        (Lang::Zh, Some(None)) => {
            text.push_str("\n\n这些问题与上一次回答中的相同；请仔细阅读，并据此修改你的回答。")
        }
    }
    text
}

/// The message sent back after a reply cut off by the token limit: the
/// complete sections `kept` are kept and only `remaining` are asked for.
pub(crate) fn truncated_patch(lang: Lang, kept: &[&str], remaining: &[&str]) -> String {
    match lang {
        Lang::En => {
            let mut text =
                String::from("Your answer was cut off by the length limit before it was finished.");
            if !kept.is_empty() {
                text.push_str(&format!(
                    " I have kept the complete {} {}.",
                    join(lang, kept),
                    if kept.len() == 1 {
                        "section"
                    } else {
                        "sections"
                    }
                ));
            }
            text.push_str(&format!(
                " Please write only the {}, and keep it short so that it fits.",
                sections_en(remaining)
            ));
            text
        }
        Lang::Zh => {
            let mut text = String::from("你的回答因长度限制被截断，没有写完。");
            if !kept.is_empty() {
                text.push_str(&format!("我已保留完整的{}部分。", join(lang, kept)));
            }
            text.push_str(&format!(
                "请只写{}部分，每部分写在其标题下，并尽量简短，以免再次被截断。",
                join(lang, remaining)
            ));
            text
        }
    }
}

/// The message sent back after a reply cut off by the token limit, when the
/// whole answer is asked for again.
pub(crate) fn truncated_whole(lang: Lang) -> String {
    match lang {
        Lang::En => "Your answer was cut off by the length limit before it was finished. Please write the whole answer again, shorter, so that it fits: keep each part brief.".to_string(),
        Lang::Zh => "你的回答因长度限制被截断，没有写完。请重新写出完整的回答，但要更简短，每部分都尽量精炼。".to_string(),
    }
}

/// "[A] section, under its header on a line of its own" or "[A] and [B]
/// sections, each under its header on a line of its own".
fn sections_en(headers: &[&str]) -> String {
    if headers.len() == 1 {
        format!(
            "{} section, under its header on a line of its own",
            headers[0]
        )
    } else {
        format!(
            "{} sections, each under its header on a line of its own",
            join(Lang::En, headers)
        )
    }
}

/// "[A]", "[A] and [B]", "[A], [B] and [C]" (or with 、/和 in Chinese).
fn join(lang: Lang, items: &[&str]) -> String {
    let (comma, and) = match lang {
        Lang::En => (", ", " and "),
        Lang::Zh => ("、", "和"),
    };
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{}{and}{last}", init.join(comma)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_headers_for_humans() {
        assert_eq!(join(Lang::En, &["[A]"]), "[A]");
        assert_eq!(join(Lang::En, &["[A]", "[B]"]), "[A] and [B]");
        assert_eq!(join(Lang::En, &["[A]", "[B]", "[C]"]), "[A], [B] and [C]");
        assert_eq!(join(Lang::Zh, &["[A]", "[B]", "[C]"]), "[A]、[B]和[C]");
    }
}
