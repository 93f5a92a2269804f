//! Chinese feedback (中文反馈).

use super::render::{sentence_end, Words};
use super::{Expected, Problem, ProblemKind};
use crate::sections::ValueKind;

pub(super) static WORDS: Words = Words {
    intro: "谢谢。你的回答有几处需要修改：",
    for_example: "例如：",
    closing_one: "请重新写出这个部分：标题单独占一行，内容写在标题下面。",
    closing_many: "请重新写出这些部分：每个标题单独占一行，内容写在标题下面。",
    sentence,
};

fn sentence(problem: &Problem, such_as: Option<&str>) -> String {
    let h = &problem.header;
    match &problem.kind {
        ProblemKind::Missing => format!(
            "缺少 {h} 部分。请补上：标题 {h} 单独占一行，下面写{}。",
            kind(problem.value_kind.as_ref())
        ),
        ProblemKind::Empty => format!(
            "{h} 部分是空的。请在标题下面写{}。",
            kind(problem.value_kind.as_ref())
        ),
        ProblemKind::BadValue { expected, found } => format!(
            "{h} 部分应该是{}；现在写的是“{found}”。",
            self::expected(expected, such_as)
        ),
        ProblemKind::BadItem {
            index,
            item,
            expected,
        } => format!(
            "{h} 列表的第 {index} 项应该是{}；现在写的是“{item}”。",
            self::expected(expected, None)
        ),
        ProblemKind::BadJson { path, message } if h.is_empty() && path.is_empty() => {
            format!("回复应该是符合要求的 JSON：{}", sentence_end(message, '。'))
        }
        ProblemKind::BadJson { path, message } if h.is_empty() => {
            format!(
                "回复中的 JSON 在 `{path}` 处有误：{}",
                sentence_end(message, '。')
            )
        }
        ProblemKind::BadJson { path, message } if path.is_empty() => format!(
            "{h} 部分应该是符合要求的 JSON：{}",
            sentence_end(message, '。')
        ),
        ProblemKind::BadJson { path, message } => format!(
            "{h} 部分的 JSON 在 `{path}` 处有误：{}",
            sentence_end(message, '。')
        ),
        ProblemKind::Unreadable { message, found } => format!(
            "无法读取 {h} 部分（{}）；现在写的是“{found}”。",
            message.trim().trim_end_matches(['.', '。'])
        ),
        ProblemKind::Invalid { message } => {
            format!("{h} 部分需要修改：{}", sentence_end(message, '。'))
        }
        ProblemKind::NearMiss { wrote } => {
            format!("你写的是 {wrote}；请把它改成 {h}，单独占一行。")
        }
        ProblemKind::NotOnOwnLine { line } => {
            format!("标题 {h} 必须单独占一行，但它出现在这一行里：“{line}”。")
        }
        ProblemKind::NoneOf { headers } => format!(
            "你的回答里没有 {} 中的任何一个部分。请至少写出其中一个，每个标题单独占一行。",
            headers.join("、")
        ),
        ProblemKind::MissingDivider => {
            "请把最终答案写在一行五个或更多等号（=====）之后，或写在两行这样的等号之间。".to_owned()
        }
        ProblemKind::Other { message } => message.clone(),
    }
}

/// "一个整数，例如 6".
pub(crate) fn expected(expected: &Expected, such_as: Option<&str>) -> String {
    let such_as = such_as.map(|e| format!("，例如 {e}")).unwrap_or_default();
    match expected {
        Expected::Text => "一段文字".to_owned(),
        Expected::WholeNumber => format!("一个整数{such_as}"),
        Expected::WholeNumberBetween { min, max } => format!("介于 {min} 和 {max} 之间的一个整数"),
        Expected::Number => format!("一个数字{such_as}"),
        Expected::YesNo => "“是”或“否”".to_owned(),
        Expected::OneCharacter => format!("一个字符{such_as}"),
        Expected::OneOf(values) => format!("以下之一：{}", values.join("、")),
        Expected::Described(text) => text.trim().trim_end_matches(['.', '。']).to_owned(),
    }
}

/// What to write for a section of `kind`: "一个整数".
pub(crate) fn kind(kind: Option<&ValueKind>) -> String {
    match kind {
        None | Some(ValueKind::Text) => "内容".to_owned(),
        Some(ValueKind::Integer) => "一个整数".to_owned(),
        Some(ValueKind::Float) => "一个数字".to_owned(),
        Some(ValueKind::Bool) => "“是”或“否”".to_owned(),
        Some(ValueKind::Char) => "一个字符".to_owned(),
        Some(ValueKind::Choice(values)) => format!("以下之一：{}", values.join("、")),
        Some(ValueKind::List(_)) => "一个列表，每行一项".to_owned(),
        Some(ValueKind::Json) => "JSON 值".to_owned(),
        Some(ValueKind::Custom) => "它的值".to_owned(),
    }
}
