//! Looking past a position without reading it: what comes next decides
//! between two readings of a bracket, and whether a value is whole.
//!
//! Each look reads white space and at most one token (a key on its line),
//! and starts where the pass stands; the pass then reads the same bytes
//! once, so the whole stays linear.

/// What follows a position, after white space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    /// The end of the input, or a code fence.
    End,
    /// A closing bracket.
    Closer(u8),
    /// A `,` and then a member (`"key":`, `key:`).
    Member,
    /// A `,` and then an array item.
    Item,
    /// Anything else.
    Other,
}

/// Past spaces, tabs and line breaks from `at`.
pub(super) fn skip_space(src: &[u8], mut at: usize) -> usize {
    while at < src.len() && matches!(src[at], b' ' | b'\t' | b'\r' | b'\n') {
        at += 1;
    }
    at
}

/// Past spaces, tabs, line breaks and Unicode spaces from `at`.
pub(super) fn skip_any_space(src: &[u8], mut at: usize) -> usize {
    loop {
        let next = skip_space(src, at);
        let len = unicode_space(&src[next..]);
        if len == 0 {
            return next;
        }
        at = next + len;
    }
}

/// Past spaces and tabs from `at` (not line breaks).
pub(super) fn skip_blank(src: &[u8], mut at: usize) -> usize {
    while at < src.len() && matches!(src[at], b' ' | b'\t') {
        at += 1;
    }
    at
}

/// True when a code fence starts at `at`.
pub(super) fn fence_at(src: &[u8], at: usize) -> bool {
    let rest = &src[at.min(src.len())..];
    rest.starts_with(b"```") || rest.starts_with(b"~~~")
}

/// The length of the Unicode space at the start of `rest` (0 if none): a
/// no-break space (U+00A0), the Mongolian vowel separator (U+180E, a space
/// until Unicode 6.3), U+2000 to U+200B, U+202F, U+205F, U+3000.
pub(super) fn unicode_space(rest: &[u8]) -> usize {
    match rest {
        [0xC2, 0xA0, ..] => 2,
        [0xE1, 0xA0, 0x8E, ..] => 3,
        [0xE2, 0x80, 0x80..=0x8B | 0xAF, ..] | [0xE2, 0x81, 0x9F, ..] | [0xE3, 0x80, 0x80, ..] => 3,
        _ => 0,
    }
}

/// True when a comment (`//`, `/*`, `#`) starts at `at`.
pub(super) fn comment_at(src: &[u8], at: usize) -> bool {
    match src.get(at) {
        Some(b'#') => true,
        Some(b'/') => matches!(src.get(at + 1), Some(b'/' | b'*')),
        _ => false,
    }
}

/// Bytes of a bare key (`{name: 1}`); bytes of non-ASCII characters count.
pub(super) fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'-' || b >= 0x80
}

/// What follows `at`: the end, a closer, or after a comma a member or an
/// item.
pub(super) fn next(src: &[u8], at: usize) -> Next {
    let at = skip_space(src, at);
    match src.get(at) {
        None => Next::End,
        Some(b'}' | b']' | b')') => Next::Closer(src[at]),
        Some(b',') => {
            if member_at(src, skip_space(src, at + 1)) {
                Next::Member
            } else {
                Next::Item
            }
        }
        Some(_) if fence_at(src, at) => Next::End,
        Some(_) => Next::Other,
    }
}

/// True when a member starts at `at`: a key in quotes (ending on its line)
/// or a bare word, then `:` (a `://` is a URL's, not a member's).
pub(super) fn member_at(src: &[u8], at: usize) -> bool {
    let end = match src.get(at) {
        Some(&quote @ (b'"' | b'\'')) => {
            let mut i = at + 1;
            loop {
                match src.get(i) {
                    None | Some(b'\n') => return false,
                    Some(b'\\') => i += 2,
                    Some(&b) if b == quote => break i + 1,
                    Some(_) => i += 1,
                }
            }
        }
        Some(&b) if is_key_byte(b) => {
            let mut i = at;
            while i < src.len() && is_key_byte(src[i]) {
                i += 1;
            }
            i
        }
        _ => return false,
    };
    let colon = skip_blank(src, end);
    src.get(colon) == Some(&b':') && !src[colon..].starts_with(b"://")
}

/// True when an item that is no string starts at `at`: an object, a list,
/// a number, or a literal ending where a word ends (`true`, `None`).
pub(super) fn item_at(src: &[u8], at: usize) -> bool {
    match src.get(at) {
        Some(b'{' | b'[' | b'0'..=b'9') => true,
        Some(b'-' | b'+' | b'.') => src.get(at + 1).is_some_and(u8::is_ascii_digit),
        Some(_) => {
            let end = at
                + src[at..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphabetic())
                    .count();
            matches!(
                &src[at..end],
                b"true" | b"false" | b"null" | b"True" | b"False" | b"None"
            ) && !src.get(end).is_some_and(|&b| is_key_byte(b))
        }
        None => false,
    }
}

/// True when the text after a value that ended at `end` is more of that
/// value: a closing bracket (the value was closed early, or by a bracket of
/// the wrong kind), or a member (`, "b": 2`, or `"b": 2` on the next line).
/// Prose after a value is not (`{"a": 1}, which is all`).
pub(crate) fn continues_value(src: &[u8], end: usize) -> bool {
    let at = skip_space(src, end);
    match src.get(at) {
        Some(b'}' | b']') => true,
        Some(b',') => {
            let item = skip_space(src, at + 1);
            member_at(src, item) || last_item_at(src, item)
        }
        // `["a,"]"]`: a quote never closed, then only closers: a stray
        // quote ended the value early.
        Some(b'"') => member_at(src, at) || last_item_at(src, at) || quote_then_closers(src, at),
        // `{"a"}: 1}`: a closer between a key and its `:`, the member's
        // value after it, then a `,` or a closer; not prose after an
        // object (`{"a": 1}: six weeks`).
        Some(b':') => last_item_at(src, skip_space(src, at + 1)),
        // `[1, 2] 3, 4]`: a number and its comma or closer, the comma
        // before it left out; so a literal (a word and a comma is prose:
        // `True story,`).
        // `{"a": n}ull`: letters glued to the closer are more of it.
        Some(b) if at == end && b.is_ascii_alphanumeric() => true,
        Some(b'0'..=b'9' | b'-' | b'+' | b'.') => last_item_at(src, at),
        Some(_) => item_at(src, at) && last_item_at(src, at),
        None => false,
    }
}

/// True when quotes, closing brackets and white space, a closer among
/// them, are all that follows `at` to the end of the text, within a short
/// tail (bounded, as `only_closers_after`): no string and no prose, a
/// piece of the value before them.
fn quote_then_closers(src: &[u8], at: usize) -> bool {
    const TAIL: usize = 64;
    let tail = &src[at..];
    tail.len() <= TAIL
        && tail.iter().any(|&b| matches!(b, b'}' | b']'))
        && tail
            .iter()
            .all(|b| matches!(b, b'"' | b'\'' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'))
}

/// True when only closing brackets and white space follow `end` to the
/// end of the text, within a short tail (the look stays bounded, so
/// calling it at every closer stays linear): after a value that is valid
/// JSON as written (`{"a": 1}}`), closers one too many, not more of it.
/// After a repaired value they may be what is left of a stray closer
/// inside it, so the caller asks this of valid JSON only.
pub(crate) fn only_closers_after(src: &[u8], end: usize) -> bool {
    const TAIL: usize = 64;
    let at = skip_space(src, end);
    src.len() - end <= TAIL
        && matches!(src.get(at), Some(b'}' | b']'))
        && src[at..]
            .iter()
            .all(|b| matches!(b, b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'))
}

/// True when a `,` and an object or a list follow `end`: after a value the
/// repair closed, more of it (`[[1}], 2], {"a": 1}]`), as likely as a
/// second value.
pub(crate) fn comma_and_container(src: &[u8], end: usize) -> bool {
    let at = skip_space(src, end);
    src.get(at) == Some(&b',') && matches!(src.get(skip_space(src, at + 1)), Some(b'{' | b'['))
}

/// True when a `:` and then an object or a list follow `end`: after braces
/// that are no JSON, a closer between a key and its `:` (`{"a"}: [1]}`),
/// the member's value after it. After a valid object it may be prose
/// (`{"a": 1}: [1, 2] are the items`).
pub(crate) fn colon_then_container(text: &[u8], end: usize) -> bool {
    let colon = skip_space(text, end);
    text.get(colon) == Some(&b':')
        && matches!(text.get(skip_space(text, colon + 1)), Some(b'{' | b'['))
}

/// True when a number, a literal or a string on its line starts at `at`
/// and a `,` or a closing bracket follows it: an item of a list (`[1, 2],
/// 3]`), not prose (`{"a": 1}, 2 more`).
pub(super) fn last_item_at(src: &[u8], at: usize) -> bool {
    let end = match src.get(at) {
        Some(b'"') => {
            let mut i = at + 1;
            loop {
                match src.get(i) {
                    None | Some(b'\n') => return false,
                    Some(b'\\') => i += 2,
                    Some(b'"') => break i + 1,
                    Some(_) => i += 1,
                }
            }
        }
        Some(b) if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.') => {
            let mut i = at;
            while i < src.len()
                && (src[i].is_ascii_alphanumeric() || matches!(src[i], b'-' | b'+' | b'.'))
            {
                i += 1;
            }
            i
        }
        _ => return false,
    };
    matches!(src.get(skip_space(src, end)), Some(b',' | b']' | b'}'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_follows_a_position() {
        let next = |s: &str| next(s.as_bytes(), 0);
        assert_eq!(next("  "), Next::End);
        assert_eq!(next("\n```\nDone"), Next::End);
        assert_eq!(next(" }"), Next::Closer(b'}'));
        assert_eq!(next(", \"n\": 2}"), Next::Member);
        assert_eq!(next(",\n n : 2}"), Next::Member);
        assert_eq!(next(", 'n': 2}"), Next::Member);
        assert_eq!(next(", {\"b\": 2}]"), Next::Item);
        assert_eq!(next(", \"b\"]"), Next::Item);
        assert_eq!(next(", https://x"), Next::Item);
        assert_eq!(next(" and more"), Next::Other);
    }

    #[test]
    fn a_value_continued_or_followed_by_prose() {
        let continues = |s: &str| continues_value(s.as_bytes(), 0);
        assert!(continues(", \"b\": 2}"));
        assert!(continues("\n\"b\": 2}"));
        assert!(continues(" ]"));
        assert!(continues(", b: 2}"));
        assert!(continues(", 3]"));
        assert!(continues(", \"x\", \"y\"]"));
        assert!(continues(":\"[\"}"));
        assert!(continues(": 1, \"b\": 2}"));
        assert!(continues("\"]"));
        assert!(continues(" \"\n]}"));
        assert!(!continues(": [1, 2] are the items"));
        assert!(!continues(", 2 more"));
        assert!(!continues(", which is all."));
        assert!(!continues(" and \"b\": 2"));
        assert!(!continues(", see http://x"));
        assert!(!continues(": six weeks."));
        assert!(!continues("\n\"quoted\" prose"));
        assert!(!continues("\""));
        assert!(!continues(""));
    }
}
