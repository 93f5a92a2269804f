//! A string-aware bracket scan that finds `{...}` and `[...]` candidates in
//! prose, in one pass.

/// Bracket candidates of a text.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Candidates {
    /// Balanced spans not inside another balanced span, as byte ranges
    /// `(start, end)`, in order. They never overlap, so trying each costs
    /// linear time in total.
    pub(crate) balanced: Vec<(usize, usize)>,
    /// Openers never closed (a reply cut off), outermost first.
    pub(crate) unclosed: Vec<usize>,
    /// The last `}` and the last `]` with no opener of their kind open.
    pub(crate) last_stray: [Option<usize>; 2],
}

impl Candidates {
    /// True when the span `start..end` is followed by more JSON (an
    /// opener or a comma) and, later, by a closer of its own kind that
    /// nothing opened: a value closed early and continued (`[]{"a": 1}]`).
    pub(crate) fn closed_early(&self, text: &str, start: usize, end: usize) -> bool {
        let bytes = text.as_bytes();
        if !matches!(bytes.get(start), Some(b'{' | b'[')) {
            return false;
        }
        let next = text[end..].trim_start().as_bytes().first();
        let stray = self.last_stray[usize::from(bytes[start] == b'[')];
        matches!(next, Some(b'{' | b'[' | b',')) && stray.is_some_and(|at| at >= end)
    }
}

/// What a byte means to the scan outside strings.
const OTHER: u8 = 0;
const QUOTE: u8 = 1;
const OPEN: u8 = 2;
const CLOSE: u8 = 3;
const SINGLE: u8 = 4;

const CLASS: [u8; 256] = {
    let mut table = [OTHER; 256];
    table[b'"' as usize] = QUOTE;
    table[b'\'' as usize] = SINGLE;
    table[b'{' as usize] = OPEN;
    table[b'[' as usize] = OPEN;
    table[b'}' as usize] = CLOSE;
    table[b']' as usize] = CLOSE;
    table
};

fn opener_of(close: u8) -> u8 {
    if close == b'}' {
        b'{'
    } else {
        b'['
    }
}

/// Scans `text` for bracket candidates.
///
/// Quotes count only inside brackets (an apostrophe in prose starts no
/// string). A single-quoted string (broken JSON, but common) ends at a quote
/// followed by what ends a value (or a comment, a `+` or a `)`), or at the
/// end of its line: an apostrophe in bracketed prose (`[Bob's notes]`) costs
/// at most that line. A closing bracket that does not match the innermost
/// opener closes the nearest opener it matches, abandoning the ones inside;
/// with no such opener it is ignored.
pub(crate) fn scan(text: &str) -> Candidates {
    let bytes = text.as_bytes();
    // Open brackets: (byte, position).
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let (mut open_objects, mut open_arrays) = (0usize, 0usize);
    // Every closed pair, in the order of its end.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut last_stray = [None; 2];
    // A value closed at the top level, and the last byte that was not
    // white space: after `[1, 2], ` a string is an item of the same list
    // closed early (`[1, 2], "{"]`), and the brackets in it are text, so
    // the last `]` is seen as the stray closer it is.
    let mut top_closed = false;
    let mut last_seen = 0u8;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match CLASS[b as usize] {
            QUOTE if stack.is_empty() && top_closed && last_seen == b',' => {
                // Skip it when it ends on its line; an unmatched quote in
                // prose hides nothing.
                let mut j = i + 1;
                while j < bytes.len() && !matches!(bytes[j], b'"' | b'\n') {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                if bytes.get(j) == Some(&b'"') {
                    i = j;
                }
            }
            QUOTE if !stack.is_empty() => {
                // Skip the string: to the next unescaped quote.
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
            }
            SINGLE if !stack.is_empty() => i = skip_single_quoted(bytes, i + 1),
            OPEN => {
                if b == b'{' {
                    open_objects += 1;
                } else {
                    open_arrays += 1;
                }
                stack.push((b, i));
            }
            CLOSE => {
                let want = opener_of(b);
                let available = if want == b'{' {
                    open_objects
                } else {
                    open_arrays
                };
                if available == 0 {
                    last_stray[usize::from(b == b']')] = Some(i);
                } else {
                    while let Some((opener, start)) = stack.pop() {
                        if opener == b'{' {
                            open_objects -= 1;
                        } else {
                            open_arrays -= 1;
                        }
                        if opener == want {
                            pairs.push((start, i + 1));
                            break;
                        }
                    }
                    top_closed |= stack.is_empty();
                }
            }
            _ => {}
        }
        if let Some(&seen) = bytes.get(i).filter(|b| !b.is_ascii_whitespace()) {
            last_seen = seen;
        }
        i += 1;
    }
    // Pairs sorted by end are nested or disjoint: walking them from the last,
    // a pair is outermost when it ends before the start of the last kept one.
    let mut balanced = Vec::new();
    let mut kept_start = usize::MAX;
    for &(start, end) in pairs.iter().rev() {
        if end <= kept_start {
            balanced.push((start, end));
            kept_start = start;
        }
    }
    balanced.reverse();
    Candidates {
        balanced,
        unclosed: stack.into_iter().map(|(_, at)| at).collect(),
        last_stray,
    }
}

/// From just after an opening `'`: the position of the closing quote, or
/// of the line break or end that stops the string.
fn skip_single_quoted(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            b'\'' => {
                let mut j = i + 1;
                while j < bytes.len() && matches!(bytes[j], b' ' | b'\t' | b'\r') {
                    j += 1;
                }
                match bytes.get(j) {
                    None
                    | Some(
                        b',' | b'}' | b']' | b')' | b':' | b'\n' | b'\'' | b'"' | b';' | b'+'
                        | b'#',
                    ) => return i,
                    Some(b'/') if matches!(bytes.get(j + 1), Some(b'/' | b'*')) => return i,
                    Some(_) => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::{scan, Candidates};

    #[test]
    fn finds_outermost_balanced_spans_in_prose() {
        let text = r#"It's {"a": [1, "]"]} and [2] then {"b": "}{"}"#;
        let c = scan(text);
        let spans: Vec<&str> = c.balanced.iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(spans, [r#"{"a": [1, "]"]}"#, "[2]", r#"{"b": "}{"}"#]);
        assert!(c.unclosed.is_empty());
    }

    #[test]
    fn single_quoted_strings_hide_their_brackets_and_quotes() {
        let text = "{'a': '\"', 'b': 'it's [x'} and ['c']";
        let c = scan(text);
        let spans: Vec<&str> = c.balanced.iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(spans, ["{'a': '\"', 'b': 'it's [x'}", "['c']"]);
        // An apostrophe in bracketed prose costs its line only.
        let text = "[Bob's notes]\n{\"a\": 1}";
        let c = scan(text);
        assert_eq!(c.balanced, [(14, text.len())]);
        assert_eq!(c.unclosed, [0]);
    }

    #[test]
    fn unclosed_opener_leaves_inner_pairs_as_candidates() {
        let text = r#"see [1 for {"a": 1} and {"b": [2"#;
        let c = scan(text);
        let spans: Vec<&str> = c.balanced.iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(spans, [r#"{"a": 1}"#]);
        assert_eq!(c.unclosed, [4, 24, 30]);
    }

    #[test]
    fn mismatched_closer_closes_the_nearest_matching_opener() {
        let text = r#"{"a": [1, 2}"#;
        assert_eq!(
            scan(text),
            Candidates {
                balanced: vec![(0, text.len())],
                unclosed: vec![],
                last_stray: [None; 2],
            }
        );
        assert_eq!(scan("x ] } [1]").balanced, [(6, 9)]);
    }
}
