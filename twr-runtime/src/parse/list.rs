//! Lists: items marked `-`, `*`, `+`, `•`, `1.`, `1)`, `(1)`, or one item a
//! line when nothing is marked.

use std::borrow::Cow;

use super::value::{none_sentence, none_word, SectionValue};
use super::value_error::{excerpt, Expected, ValueError};
use crate::phrases::Phrases;
use crate::vocab::ValueKind;

/// One line of a list section.
struct Line<'a> {
    indent: usize,
    /// The text after the marker, or the whole trimmed line.
    text: &'a str,
    /// The whole trimmed line, marker included.
    line: &'a str,
    marked: bool,
    /// The number of a numbered marker and what follows it: `(2, b'.')`
    /// for `2. banana`, `(2, b')')` for `2) banana` and `(2)`.
    number: Option<(u32, u8)>,
}

/// The number of a numbered marker at the start of `line` and the
/// character after it (`.`, `)`, `、`'s first byte).
fn marker_number(line: &str) -> Option<(u32, u8)> {
    let inner = line.strip_prefix('(').unwrap_or(line);
    let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
    let number = inner[..digits].parse().ok()?;
    Some((number, *inner.as_bytes().get(digits)?))
}

/// The text after a list marker at the start of `line` (already trimmed at
/// the start), or `None` when the line has no marker.
pub(super) fn after_marker(line: &str) -> Option<&str> {
    let bytes = line.as_bytes();
    let rest = if let Some(rest) = line.strip_prefix(['-', '*', '+', '•', '·', '–']) {
        rest
    } else if let Some(inner) = line.strip_prefix('(') {
        let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
        if !(1..=9).contains(&digits) {
            return None;
        }
        inner[digits..].strip_prefix(')')?
    } else {
        let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        if !(1..=9).contains(&digits) {
            return None;
        }
        let rest = &line[digits..];
        if let Some(rest) = rest.strip_prefix('、') {
            // Chinese enumeration needs no space: `1、先去寺庙`.
            return Some(rest.trim());
        }
        rest.strip_prefix(['.', ')'])?
    };
    // The marker must stand apart: `-3` and `1.5` are values, `**bold**` text.
    match rest.chars().next() {
        None => Some(rest),
        Some(c) if c.is_whitespace() => Some(rest.trim()),
        Some(_) => None,
    }
}

/// The items of a list section, continuation lines joined to their item;
/// borrowed unless joined.
pub(crate) fn items<'a>(content: &'a str) -> Vec<Cow<'a, str>> {
    // Sized once: a list of many short items otherwise spends more on
    // growing its vectors than on reading its lines.
    let mut lines: Vec<Line<'a>> =
        Vec::with_capacity(memchr::memchr_iter(b'\n', content.as_bytes()).count() + 1);
    lines.extend(crate::byte_search::lines(content).filter_map(|raw| {
        let start_trimmed = raw.trim_start();
        let trimmed = start_trimmed.trim_end();
        if trimmed.is_empty() {
            return None;
        }
        let indent = raw.len() - start_trimmed.len();
        Some(match after_marker(trimmed) {
            Some(text) => Line {
                indent,
                text,
                line: trimmed,
                marked: true,
                number: marker_number(trimmed),
            },
            None => Line {
                indent,
                text: trimmed,
                line: trimmed,
                marked: false,
                number: None,
            },
        })
    }));
    let Some(base) = lines.iter().find(|l| l.marked).map(|l| l.indent) else {
        // Nothing marked: one item a line.
        return lines.iter().map(|l| Cow::Borrowed(l.text)).collect();
    };
    // Each item spans a range of lines: its marked line, then its
    // continuation lines; it is joined when the next one starts.
    let mut items: Vec<Cow<'a, str>> = Vec::with_capacity(lines.len());
    let mut push = |span: &[Line<'a>]| {
        let item = join(span);
        if !item.is_empty() {
            items.push(item);
        }
    };
    let mut current: Option<usize> = None;
    // The number of the list's last item, and whether a nested list has
    // begun under it.
    let mut last_number: Option<(u32, u8)> = None;
    let mut nested = false;
    for (i, line) in lines.iter().enumerate() {
        // A marked line at the list's own depth starts an item; deeper marked
        // lines (a nested list) and unmarked lines continue the current one,
        // except a numbered line that continues the list's own numbering
        // right after its item (`1. apple` / `    2. banana` / `3. cherry`):
        // a nested list starts again at 1, so that line is the list's next
        // item, written indented.
        let continues_numbering = || {
            !nested
                && line.marked
                && matches!(
                    (last_number, line.number),
                    (Some((last, style)), Some((number, same)))
                        if style == same && last.checked_add(1) == Some(number)
                )
        };
        let starts = if line.marked && line.indent <= base + 1 {
            true
        } else if current.is_some() {
            let starts = continues_numbering();
            nested |= line.marked && !starts;
            starts
        } else {
            // Text before the first marker is an item of its own, unless it
            // introduces the list ("Steps:").
            !line.text.ends_with([':', '：'])
        };
        if starts {
            if let Some(start) = current.replace(i) {
                push(&lines[start..i]);
            }
            last_number = line.number;
            nested = false;
        }
    }
    if let Some(start) = current {
        push(&lines[start..]);
    }
    items
}

/// One item from its lines: the first line's text, then each continuation
/// line after a space. A nested item keeps its marker: "Lunch - ramen".
fn join<'a>(lines: &[Line<'a>]) -> Cow<'a, str> {
    match lines {
        [] => Cow::Borrowed(""),
        [only] => Cow::Borrowed(only.text),
        [first, rest @ ..] => {
            let len = first.text.len() + rest.iter().map(|l| l.line.len() + 1).sum::<usize>();
            let mut item = String::with_capacity(len);
            item.push_str(first.text);
            for line in rest {
                if !item.is_empty() {
                    item.push(' ');
                }
                item.push_str(line.line);
            }
            Cow::Owned(item)
        }
    }
}

/// A list: each item is read as `T`; a bad item is named by its position.
/// A section that is only one of the table's `none_words` (`N/A`, `None.`,
/// `无`) is the empty list, not a list of that one word. A section that is
/// one unmarked sentence starting with one of the table's `none_words` or
/// `no_words` (`No items in the list.`, `None of the above`) is feedback
/// asking for the items or the none answer: it says there is nothing, or
/// is one item that starts with "no" (`No smoking`), and the text does not
/// say which. Marked (`- No smoking`), or among other lines, it is an
/// item.
///
/// A numbered line indented under an item is a nested item, kept in the
/// item's text, unless it continues the list's numbering right after that
/// item (`1. apple` / `    2. banana` / `3. cherry` is three items): a
/// nested list starts again at 1.
impl<T: SectionValue> SectionValue for Vec<T> {
    const KIND: ValueKind = ValueKind::List(&T::KIND);

    fn parse_section(content: &str) -> Result<Self, ValueError> {
        Self::parse_section_with(content, &Phrases::ENGLISH)
    }

    fn parse_section_with(content: &str, phrases: &Phrases) -> Result<Self, ValueError> {
        if none_word(content, phrases) {
            return Ok(Vec::new());
        }
        let items = items(content);
        if items.is_empty() {
            return Err(ValueError::Empty);
        }
        // `No items in the list.`: one unmarked sentence saying there is
        // nothing, or one item starting with "no"; the text does not say
        // which, and the feedback asks for the items or the none answer.
        let trimmed = content.trim();
        if items.len() == 1 && after_marker(trimmed).is_none() && none_sentence(trimmed, phrases) {
            return Err(ValueError::invalid(
                Expected::Described(format!(
                    "{}{}{}",
                    phrases.list, phrases.or, phrases.none_answer
                )),
                content,
            ));
        }
        // Sized once: collecting `Result`s gives the vector no size hint,
        // and a long list then spends its time growing it.
        let mut values = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let value =
                T::parse_section_with(item, phrases).map_err(|error| ValueError::BadItem {
                    index: i + 1,
                    item: excerpt(item),
                    expected: match error {
                        ValueError::Invalid { expected, .. }
                        | ValueError::BadItem { expected, .. } => expected,
                        ValueError::Empty => Expected::of_kind(&T::KIND),
                        ValueError::Json { message, .. } | ValueError::Message(message) => {
                            Expected::Described(message)
                        }
                        ValueError::Rows(_) => Expected::of_kind(&T::KIND),
                    },
                })?;
            values.push(value);
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<Cow<'static, str>> {
        items.iter().map(|s| Cow::Owned(s.to_string())).collect()
    }

    #[test]
    fn every_marker() {
        for content in [
            "- a\n- b",
            "* a\n* b",
            "+ a\n+ b",
            "• a\n• b",
            "1. a\n2. b",
            "1) a\n2) b",
            "(1) a\n(2) b",
            "1、a\n2、b",
        ] {
            assert_eq!(items(content), strings(&["a", "b"]), "{content:?}");
        }
    }

    #[test]
    fn one_item_a_line_when_nothing_is_marked() {
        assert_eq!(
            items("Kyoto\n\n  Nara \r\nOsaka"),
            strings(&["Kyoto", "Nara", "Osaka"])
        );
    }

    #[test]
    fn continuation_lines_join_their_item() {
        let content =
            "Steps:\n1. Visit the\n   Golden Pavilion\n2. Lunch\n   - ramen\n   - tea\nthen rest";
        assert_eq!(
            items(content),
            strings(&["Visit the Golden Pavilion", "Lunch - ramen - tea then rest"])
        );
    }

    #[test]
    fn an_indented_item_that_continues_the_numbering_is_an_item() {
        // Read as ["apple 2. banana", "cherry"] before.
        assert_eq!(
            items("1. apple\n    2. banana\n3. cherry"),
            strings(&["apple", "banana", "cherry"])
        );
        assert_eq!(
            items("1) apple\n   2) banana\n   3) cherry\n4) dates"),
            strings(&["apple", "banana", "cherry", "dates"])
        );
        // A nested list starts again at 1 and stays nested, whatever its
        // numbers; another marker style is nested too.
        assert_eq!(
            items("1. Lunch\n   1. ramen\n   2. tea\n2. Dinner"),
            strings(&["Lunch 1. ramen 2. tea", "Dinner"])
        );
        assert_eq!(
            items("1. Lunch\n   2) ramen\n2. Dinner"),
            strings(&["Lunch 2) ramen", "Dinner"])
        );
        assert_eq!(
            items("1. Lunch\n   - ramen\n   2. tea\n2. Dinner"),
            strings(&["Lunch - ramen 2. tea", "Dinner"])
        );
    }

    #[test]
    fn text_before_the_first_marker_is_an_item_unless_it_introduces() {
        assert_eq!(items("Kyoto\n- Nara"), strings(&["Kyoto", "Nara"]));
        assert_eq!(items("Cities：\n- Nara"), strings(&["Nara"]));
    }

    #[test]
    fn markers_need_a_space_and_values_are_not_markers() {
        assert_eq!(
            items("-3\n1.5\n**bold**"),
            strings(&["-3", "1.5", "**bold**"])
        );
        assert_eq!(items("- \n-\n- a"), strings(&["a"]));
    }

    #[test]
    fn typed_items_and_a_bad_item_named_by_position() {
        assert_eq!(
            Vec::<u32>::parse_section("- 3 days\n- $1,200"),
            Ok(vec![3, 1200])
        );
        assert_eq!(
            Vec::<u32>::parse_section("1. 3\n2. a few\n3. 4"),
            Err(ValueError::BadItem {
                index: 2,
                item: "a few".to_owned(),
                expected: Expected::WholeNumber,
            })
        );
        assert_eq!(
            Vec::<String>::parse_section("-\n- "),
            Err(ValueError::Empty)
        );
        assert_eq!(
            <Vec<u32> as SectionValue>::KIND,
            ValueKind::List(&ValueKind::Integer)
        );
    }

    #[test]
    fn a_section_that_is_only_a_not_applicable_marker_is_an_empty_list() {
        for content in ["None.", "N/A", "**n/a**", "- None", "无", "Not applicable."] {
            assert_eq!(
                Vec::<String>::parse_section(content),
                Ok(vec![]),
                "{content}"
            );
            assert_eq!(Vec::<u32>::parse_section(content), Ok(vec![]), "{content}");
        }
        // A marker among items is an item; a marker with more is text.
        assert_eq!(
            Vec::<String>::parse_section("- Kyoto\n- None"),
            Ok(vec!["Kyoto".to_owned(), "None".to_owned()])
        );
        assert_eq!(Vec::<String>::parse_section("-"), Err(ValueError::Empty));
    }

    #[test]
    fn a_sentence_saying_there_is_nothing_is_feedback() {
        // Read as the one-item lists ["No items in the list."] and
        // ["None of the above"] before.
        let expected = || Expected::Described("a list, one item per line or N/A".to_owned());
        for content in [
            "No items in the list.",
            "None of the above",
            "**No relevant sources.**",
            "no, nothing fits",
            "没有任何项目",
        ] {
            assert_eq!(
                Vec::<String>::parse_section(content),
                Err(ValueError::invalid(expected(), content)),
                "{content}"
            );
        }
        assert_eq!(
            Vec::<String>::parse_section_with("没有任何项目", &Phrases::CHINESE),
            Err(ValueError::invalid(
                Expected::Described("一个列表，每行一项或无".to_owned()),
                "没有任何项目"
            ))
        );
        // Marked, among other items, or a single word that is no "no": items.
        assert_eq!(
            Vec::<String>::parse_section("- No smoking"),
            Ok(vec!["No smoking".to_owned()])
        );
        assert_eq!(
            Vec::<String>::parse_section("No smoking\nNo pets"),
            Ok(vec!["No smoking".to_owned(), "No pets".to_owned()])
        );
        assert_eq!(
            Vec::<String>::parse_section("Nobody came"),
            Ok(vec!["Nobody came".to_owned()])
        );
        assert_eq!(Vec::<bool>::parse_section("No"), Ok(vec![false]));
    }
}
