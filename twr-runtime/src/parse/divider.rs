//! [`divider_parser`]: the answer between lines of `=====`.

use memchr::memchr;

use super::prepare::without_reasoning;
use crate::feedback::{Feedback, Problem, ProblemKind};
use crate::phrases::Lang;

/// The text between the last two lines made of five or more `=`, or after
/// the only one (or after the last, when nothing is between the last two);
/// trimmed. `<think>` blocks are ignored.
///
/// ```
/// use twr_runtime::parse::divider_parser;
///
/// let raw = "Draft\n=====\nold\n=====\nThinking again...\n=======\n42\n=======\n";
/// assert_eq!(divider_parser(raw)?, "42");
/// assert_eq!(divider_parser("So:\n=====\n  42 ")?, "42");
/// assert!(divider_parser("42").is_err());
/// # Ok::<(), twr_runtime::Feedback>(())
/// ```
pub fn divider_parser(raw: &str) -> Result<String, Feedback> {
    let text = without_reasoning(raw);
    let bytes = text.as_bytes();
    // The last two divider lines seen: (line start, line end).
    let mut last: Option<(usize, usize)> = None;
    let mut before_last: Option<(usize, usize)> = None;
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let line = text[start..end].trim();
        if line.len() >= 5 && line.bytes().all(|b| b == b'=') {
            before_last = last;
            last = Some((start, end));
        }
        start = end + 1;
    }
    let between = match (before_last, last) {
        (Some((_, open_end)), Some((close_start, _))) => text[open_end..close_start].trim(),
        _ => "",
    };
    // Nothing between the last two (or only one divider): the answer follows
    // the last one.
    let answer = match last {
        Some((_, end)) if between.is_empty() => text[end..].trim(),
        _ => between,
    };
    if answer.is_empty() {
        let mut feedback = Feedback::new(Lang::En);
        feedback.push(Problem::new(String::new(), ProblemKind::MissingDivider));
        return Err(feedback);
    }
    Ok(answer.replace("\r\n", "\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn between_the_last_two_dividers() {
        assert_eq!(
            divider_parser("a\n=====\nb\n=====\nc\n=====\nd\n=====\ne").unwrap(),
            "d"
        );
        assert_eq!(
            divider_parser("=====\r\nx\r\ny\r\n=====\r\n").unwrap(),
            "x\ny"
        );
    }

    #[test]
    fn after_the_only_one() {
        assert_eq!(
            divider_parser("thinking\n  ========  \nanswer\n").unwrap(),
            "answer"
        );
    }

    #[test]
    fn short_or_mixed_lines_are_not_dividers() {
        let err = divider_parser("====\nx\n==-==\n").unwrap_err();
        assert_eq!(err.problems()[0].kind, ProblemKind::MissingDivider);
        assert_eq!(
            divider_parser("x\n=====\n=====\n").unwrap_err().to_string(),
            "Please put your final answer after a line of five or more equals signs (=====), or between two such lines."
        );
        assert_eq!(divider_parser("x\n=====\n=====\ny").unwrap(), "y");
    }

    #[test]
    fn dividers_inside_reasoning_do_not_count() {
        assert_eq!(
            divider_parser("<think>=====\nno\n=====</think>\n=====\nyes").unwrap(),
            "yes"
        );
    }
}
