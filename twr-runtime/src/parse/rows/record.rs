//! `Label: value` lines inside a section: `Total: $30`, `- Total: $30`,
//! `**Total:** $30`, `**Total**: $30`, `Total — $30`, `总计：30`.
//!
//! One pass over the lines. A value may continue on the following lines
//! when its label line has nothing after the separator (`Address:` then the
//! address, or a list) or when they are indented under it. Lines that are
//! not `Label: value` lines are prose; a line that starts with a field's
//! name but has no separator (`Date 2025-05-01`) is kept apart, as a last
//! resort for a field no labelled line gives.

use std::borrow::Cow;

use super::fields::FieldMatcher;
use crate::parse::list::after_marker;
use crate::parse::prepare::is_fence;

/// One `Label: value` line (and its continuation lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry<'a> {
    /// The label as written, without markdown decoration.
    pub label: &'a str,
    /// The value, trimmed; continuation lines joined with `\n`.
    pub value: Cow<'a, str>,
}

/// A label is never longer than this (bytes): a longer line is prose, and
/// each line costs at most this much to look at for a separator.
const MAX_LABEL: usize = 80;

/// The entries of `content`, in order. With known `fields`, a line without a
/// separator that starts with a field's name is read as that field when no
/// labelled line names it: `Date 2025-05-01`.
pub(crate) fn entries<'a>(content: &'a str, fields: Option<&FieldMatcher>) -> Vec<Entry<'a>> {
    let mut entries: Vec<Entry<'a>> = Vec::new();
    let mut loose: Vec<&'a str> = Vec::new();
    // The entry that following lines may continue: its index, the indent of
    // its line, and whether its value started empty.
    let mut open: Option<(usize, usize, bool)> = None;
    for line in crate::byte_search::lines(content) {
        let text = line.trim();
        if text.is_empty() {
            open = None;
            continue;
        }
        if is_fence(text) {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if let Some((label, value)) = label_line(text) {
            open = Some((entries.len(), indent, value.is_empty()));
            entries.push(Entry {
                label,
                value: Cow::Borrowed(value),
            });
            continue;
        }
        match open {
            Some((index, base, started_empty)) if started_empty || indent > base => {
                let value = entries[index].value.to_mut();
                if !value.is_empty() {
                    value.push('\n');
                }
                value.push_str(text);
            }
            _ => {
                open = None;
                loose.push(text);
            }
        }
    }
    if let Some(fields) = fields {
        add_unlabelled(&mut entries, &loose, fields);
    }
    entries
}

/// Reads the loose lines that start with the name of a field no entry names:
/// `Date 2025-05-01` gives `Date` → `2025-05-01`.
fn add_unlabelled<'a>(entries: &mut Vec<Entry<'a>>, loose: &[&'a str], fields: &FieldMatcher) {
    let mut named: Vec<&'static str> = entries
        .iter()
        .filter_map(|entry| fields.find(entry.label))
        .collect();
    for &line in loose {
        let text = after_marker(line).unwrap_or(line);
        // The label is the first one to five words.
        let mut ends = text
            .char_indices()
            .filter(|(_, c)| c.is_whitespace())
            .map(|(i, _)| i)
            .take(5);
        let found = ends.find_map(|end| {
            let field = fields.find(&text[..end])?;
            Some((field, &text[..end], text[end..].trim()))
        });
        if let Some((field, label, value)) = found {
            if !value.is_empty() && !named.contains(&field) {
                named.push(field);
                entries.push(Entry {
                    label: bare_label(label),
                    value: Cow::Borrowed(value),
                });
            }
        }
    }
}

/// Reads `text` (trimmed, one line) as a `Label: value` line.
fn label_line(text: &str) -> Option<(&str, &str)> {
    let text = after_marker(text).unwrap_or(text);
    let (label, value) = emphasised(text).or_else(|| separated(text))?;
    let label = bare_label(label);
    let value = unwrap_bold(value.trim());
    is_label(label).then_some((label, value))
}

/// `**Label:** value`, `**Label**: value`, `__Label__ — value`.
fn emphasised(text: &str) -> Option<(&str, &str)> {
    let marker = ["**", "__", "*", "_"]
        .into_iter()
        .find(|m| text.starts_with(m))?;
    let inner_start = marker.len();
    let window = &text[inner_start..floor(text, MAX_LABEL + inner_start)];
    let close = window.find(marker)? + inner_start;
    let inner = text[inner_start..close].trim();
    let after = &text[close + marker.len()..];
    if let Some(label) = inner.strip_suffix([':', '：']) {
        return Some((label, after));
    }
    let (at, len) = separator(after.trim_start())?;
    let after = after.trim_start();
    (at == 0).then(|| (inner, &after[len..]))
}

/// `Label: value`: the first separator within the label's reach.
fn separated(text: &str) -> Option<(&str, &str)> {
    let (at, len) = separator(&text[..floor(text, MAX_LABEL)])?;
    Some((&text[..at], &text[at + len..]))
}

/// The first separator in `text`: `:` (not in `10:30` or `https://`), `：`,
/// `—`, `–`, or ` - `. Returns its position and length.
fn separator(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        match c {
            ':' => {
                let next = bytes.get(i + 1).copied();
                let prev = i.checked_sub(1).map(|p| bytes[p]);
                let url = next == Some(b'/');
                let time = prev.is_some_and(|b| b.is_ascii_digit())
                    && next.is_some_and(|b| b.is_ascii_digit());
                if !url && !time {
                    return Some((i, 1));
                }
            }
            '：' | '—' | '–' => return Some((i, c.len_utf8())),
            '-' if i > 0 && bytes[i - 1] == b' ' && bytes.get(i + 1) == Some(&b' ') => {
                return Some((i, 1))
            }
            _ => {}
        }
    }
    None
}

/// A label without markdown or quotes around it: `**Total**` → `Total`.
fn bare_label(label: &str) -> &str {
    label
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '_' | '`' | '"' | '\'' | '“' | '”'))
        .trim()
}

/// A value wrapped whole in bold loses it: `**$30**` → `$30`.
fn unwrap_bold(value: &str) -> &str {
    ["**", "__"]
        .into_iter()
        .find_map(|m| value.strip_prefix(m)?.strip_suffix(m))
        .filter(|inner| !inner.is_empty())
        .map_or(value, str::trim)
}

/// Whether `label` reads as a label rather than a sentence: it has a letter,
/// at most six words, and no sentence punctuation.
fn is_label(label: &str) -> bool {
    label.chars().any(char::is_alphabetic)
        && label.split_whitespace().count() <= 6
        && !label.contains(['.', '?', '!', ',', '。', '，', '？', '！'])
}

/// The largest char boundary of `text` at or below `max`.
fn floor(text: &str, max: usize) -> usize {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(content: &str, fields: Option<&[&'static str]>) -> Vec<(String, String)> {
        let matcher = fields.map(|f| {
            let leaked: &'static [&'static str] = Box::leak(f.to_vec().into_boxed_slice());
            FieldMatcher::new(leaked)
        });
        entries(content, matcher.as_ref())
            .into_iter()
            .map(|e| (e.label.to_owned(), e.value.into_owned()))
            .collect()
    }

    fn want(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(l, v)| (l.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn every_line_shape() {
        let content = "Number: INV-7\n- Date: 2025-05-01\n* **Customer:** ACME\n**Total**: **$30**\nDue — June 1\n1. Status – paid\nNote - none\n币种：人民币\n__Terms:__ 30 days";
        assert_eq!(
            pairs(content, None),
            want(&[
                ("Number", "INV-7"),
                ("Date", "2025-05-01"),
                ("Customer", "ACME"),
                ("Total", "$30"),
                ("Due", "June 1"),
                ("Status", "paid"),
                ("Note", "none"),
                ("币种", "人民币"),
                ("Terms", "30 days"),
            ])
        );
    }

    #[test]
    fn times_and_urls_are_values_not_separators() {
        assert_eq!(
            pairs(
                "Start: 10:30\nSite: https://example.com/a:b\nhttps://x.y\n12:30 lunch",
                None
            ),
            want(&[("Start", "10:30"), ("Site", "https://example.com/a:b")])
        );
    }

    #[test]
    fn values_continue_under_an_empty_label_or_indented() {
        let content = "Here are the details:\nAddress:\n12 Main St\nSpringfield\nItems:\n- tea\n- cake\nNotes: call first\n  then ring twice\nThanks!\n  indented prose";
        assert_eq!(
            pairs(content, None),
            want(&[
                ("Here are the details", ""),
                ("Address", "12 Main St\nSpringfield"),
                ("Items", "- tea\n- cake"),
                ("Notes", "call first\nthen ring twice"),
            ])
        );
        // A blank line ends a value.
        assert_eq!(
            pairs("Address:\n12 Main St\n\nSee you soon", None),
            want(&[("Address", "12 Main St")])
        );
    }

    #[test]
    fn sentences_are_not_labels() {
        assert_eq!(
            pairs("I think this is right, mostly: yes\nWhy not? because\nThe total was large. Total: 3", None),
            want(&[])
        );
    }

    #[test]
    fn a_line_without_a_separator_fills_a_field_no_label_names() {
        let fields: &[&'static str] = &["invoice_number", "date", "total"];
        assert_eq!(
            pairs(
                "Invoice Number INV-7\nDate: 2025-05-01\nDate tomorrow\n- total 30",
                Some(fields)
            ),
            want(&[
                ("Date", "2025-05-01"),
                ("Invoice Number", "INV-7"),
                ("total", "30"),
            ])
        );
        // Prose that starts with no field name stays prose.
        assert_eq!(pairs("We agreed on it.", Some(fields)), want(&[]));
    }

    #[test]
    fn long_lines_cost_a_bounded_look() {
        let long = format!("{}: x", "a".repeat(200));
        assert_eq!(pairs(&long, None), want(&[]));
        assert_eq!(
            pairs("**unclosed: value", None),
            want(&[("unclosed", "value")])
        );
        assert_eq!(pairs("**", None), want(&[]));
        assert_eq!(pairs(":", None), want(&[]));
    }
}
