//! Recognising a header line: `[Plan]`, `## Plan`, `**Plan:**`, `【计划】：`,
//! `[Budget]: $500`, `<plan>`, `</plan>`, ... and comparing header names
//! loosely.

use crate::text::is_zero_width;

/// A line that has the shape of a header, before knowing whether it names a
/// section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HeaderLine<'a> {
    /// The name, without brackets, markdown decoration or colon.
    pub name: &'a str,
    /// Byte offset in the line where content written on the header line
    /// starts (the line's length when there is none).
    pub content_at: usize,
    /// How strongly the line looks like a header on its own: bracketed, a
    /// markdown heading or a bold line. Only these are worth a rename hint
    /// when they name no section; a bare `Note:` is ordinary text.
    pub marked: bool,
    /// Whether the name was in brackets: `[Plan]`, `【计划】`, `[[ ## plan ## ]]`.
    pub bracketed: bool,
    /// Whether the line is an XML-style tag, `<plan>` or `</plan>`.
    pub tag: Tag,
    /// The number written before the name: `## 2. Plan`, `2) Plan`.
    pub number: Option<u32>,
    /// Whether that number is the line's only marking (`1. Plan`,
    /// `2) **Plan**`): the line has the shape of a list item, so it is a
    /// header only where the numbering says so (see
    /// [`LineScan`](super::split::LineScan)). Nothing may follow the name.
    pub listed: bool,
    /// Whether the line is a field marker as DSPy writes them,
    /// `[[ ## plan ## ]]`: its name may join words with `_` or `-`, and
    /// `[[ ## completed ## ]]` ends the last section.
    pub marker: bool,
}

impl HeaderLine<'_> {
    /// Whether the name may join its words with `_` or `-` (`<research_plan>`,
    /// `[[ ## research_plan ## ]]`): tags and markers name fields the way
    /// programs do.
    pub(crate) fn identifier(&self) -> bool {
        self.tag != Tag::No || self.marker
    }

    /// Whether the line is DSPy's closing marker, `[[ ## completed ## ]]`.
    pub(crate) fn completes(&self) -> bool {
        self.marker && same_name(self.name, "completed")
    }
}

/// The XML-style form of a header line (`#[sections(style = "xml")]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    /// Not a tag: `[Plan]`, `## Plan`, `Plan:`.
    No,
    /// `<plan>`: the section starts, its content may follow on the line.
    Open,
    /// `</plan>`: the section ends.
    Close,
}

/// Emphasis characters around a header: `**Plan**`, `__Plan__`, `*Plan*`.
fn is_emphasis(c: char) -> bool {
    matches!(c, '*' | '_')
}

fn is_colon(c: char) -> bool {
    matches!(c, ':' | '：')
}

/// White space, including the ideographic space of Chinese text, and the
/// characters that show nothing (`Name\u{200B}:` is the header `Name:`).
fn is_space(c: char) -> bool {
    c.is_whitespace() || is_zero_width(c)
}

/// Reads `line` (without its line break) as a header line.
///
/// `max_name` bounds the bytes looked at for a name, so a long line costs no
/// more than a short one: a header name is never longer than the longest
/// section name plus its decoration.
pub(crate) fn header_line(line: &str, max_name: usize) -> Option<HeaderLine<'_>> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let start = line.len() - line.trim_start_matches(is_space).len();
    let mut s = &line[start..];
    let first = s.chars().next()?;
    // Cheap rejection of ordinary lines: list items, quotes, numbers, ...
    if !(first.is_alphabetic()
        || first.is_ascii_digit()
        || matches!(first, '[' | '【' | '#' | '*' | '_' | '<'))
    {
        return None;
    }
    if first == '<' {
        return tag_line(line, s, max_name);
    }
    if s.starts_with("[[") {
        return marker_line(line, s, max_name);
    }
    let mut number = None;
    let listed = first.is_ascii_digit();
    if listed {
        // `1. Plan` at the start of a line; indented, it is a nested item.
        if start > 0 {
            return None;
        }
        let (n, rest) = enumeration(s)?;
        number = Some(n);
        s = rest;
    }
    let heading = first == '#';
    let mut marked = false;
    if heading {
        s = s.trim_start_matches('#').trim_start_matches(is_space);
        marked = true;
    }
    let emphasis = s.len() - s.trim_start_matches(is_emphasis).len();
    if emphasis > 0 {
        s = s[emphasis..].trim_start_matches(is_space);
        marked = !listed;
    }
    if marked {
        if let Some((n, rest)) = enumeration(s) {
            number = Some(n);
            s = rest;
        }
    }
    let bound = max_name.min(s.len());
    let mut bracketed = false;
    let (name, after) = if let Some(close) = s
        .strip_prefix('[')
        .map(|_| ']')
        .or_else(|| s.strip_prefix('【').map(|_| '】'))
    {
        let open_len = if close == ']' { 1 } else { '【'.len_utf8() };
        let window = &s.as_bytes()[..floor_boundary(s, bound)];
        let end = find_char(window, close)?;
        marked = !listed;
        bracketed = true;
        (&s[open_len..end], &s[end + close.len_utf8()..])
    } else {
        let window = &s.as_bytes()[..floor_boundary(s, bound)];
        match find_colon(window) {
            Some(colon) => (&s[..colon], &s[colon..]),
            // No colon: the whole line must be the name (`## Plan`, `Plan`).
            None if s.len() <= max_name => (s, ""),
            None => return None,
        }
    };
    let spaced_name = name.trim_matches(is_space);
    let name_emphasis = spaced_name.len() - spaced_name.trim_end_matches(is_emphasis).len();
    let mut name = spaced_name
        .trim_end_matches(is_emphasis)
        .trim_end_matches(is_colon)
        .trim_matches(is_space);
    if heading {
        name = without_closing_hashes(name);
    }
    if name.is_empty() || name.contains(['[', ']', '【', '】']) {
        return None;
    }
    // Right after a bracketed name only a colon, white space or emphasis may
    // follow: `[Plan], [Timeline], [Budget].` and `[Festival] [Lantern]` are
    // text that names headers, not a header.
    if bracketed {
        let next = after.trim_start_matches(is_emphasis).chars().next();
        let tag_list = after.trim_start_matches(is_space).starts_with(['[', '【']);
        if tag_list || next.is_some_and(|c| !(is_space(c) || is_colon(c))) {
            return None;
        }
    }
    // After the name: closing emphasis, an optional colon, emphasis again
    // (`**[Plan]:**`, `**Plan**:`), then the content written on the line.
    // Only as much emphasis closes as opened the line: in `Plan: ** plain`
    // and `Plan: **bold** text` the marks are the content's own.
    let mut closing = emphasis.saturating_sub(name_emphasis);
    let mut close_emphasis = |text: &'_ str| -> usize {
        let marks = text
            .bytes()
            .take(closing)
            .take_while(|&b| matches!(b, b'*' | b'_'))
            .count();
        closing -= marks;
        marks
    };
    let rest = after.trim_start_matches(is_space);
    let rest = rest[close_emphasis(rest)..].trim_start_matches(is_space);
    let rest = rest.strip_prefix(is_colon).unwrap_or(rest);
    let rest = rest.trim_start_matches(is_space);
    let rest = rest[close_emphasis(rest)..].trim_start_matches(is_space);
    // A numbered line with more on it is an item: `1. Budget: $5 for food`.
    if listed && !rest.is_empty() {
        return None;
    }
    Some(HeaderLine {
        name,
        content_at: line.len() - rest.len(),
        marked,
        bracketed,
        tag: Tag::No,
        number,
        listed,
        marker: false,
    })
}

/// The name a line gives a section in a style that is not read as a header
/// (see [`ProblemKind::UnreadHeader`](crate::feedback::ProblemKind::UnreadHeader)),
/// for the hint that says what to write instead: a header of any read
/// style behind one more decoration. Models write these when another tool
/// taught them a format, or when they turn the answer into a list:
///
/// - a list item: `- **Plan:** go east`, `* Plan`, `• [Plan]`, `(2) Plan`,
///   `1. Plan: go east`;
/// - a quote: `> **Plan**`;
/// - a label before the name: `Section: Plan`, `Step 2 - Plan`, `Part 1. Plan`;
/// - a pair around it: `{plan}`, `{{plan}}`, `<<plan>>`, `` `[Plan]` ``,
///   `=== Plan ===`, `--- Plan ---`.
///
/// A numbered line that is read as a list item (`2. Plan` inside a list)
/// is one too: [`header_line`] reads its name. Looks at most `max_name`
/// bytes past the decoration, as [`header_line`] does.
pub(crate) fn unread_header(line: &str, max_name: usize) -> Option<&str> {
    let s = line.trim_matches(is_space);
    if let Some(header) = header_line(s, max_name).filter(|h| h.listed) {
        return Some(header.name);
    }
    let inner = without_bullet(s)
        .or_else(|| s.strip_prefix('>').map(|r| r.trim_start_matches(is_space)))
        .or_else(|| enumeration(s).map(|(_, rest)| rest))
        .or_else(|| parenthesized_number(s))
        .or_else(|| without_label(s))
        .or_else(|| unwrapped(s))?;
    header_line(inner, max_name).map(|header| header.name)
}

/// `- x`, `* x`, `+ x`, `• x`: the item's text.
fn without_bullet(s: &str) -> Option<&str> {
    let rest = s.strip_prefix(['-', '*', '+', '•'])?;
    rest.starts_with(is_space)
        .then(|| rest.trim_start_matches(is_space))
}

/// `(2) x`: the item's text.
fn parenthesized_number(s: &str) -> Option<&str> {
    let rest = s.strip_prefix('(')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let rest = rest[digits..]
        .strip_prefix(')')
        .filter(|_| (1..=3).contains(&digits))?;
    Some(rest.trim_start_matches(is_space))
}

/// `Section: x`, `Section 2 - x`, `Step 1. x`, `Part 3) x`: what follows
/// the label.
fn without_label(s: &str) -> Option<&str> {
    const LABELS: [&str; 5] = ["section", "part", "step", "field", "heading"];
    let word = s.len() - s.trim_start_matches(char::is_alphabetic).len();
    if !LABELS
        .iter()
        .any(|label| s[..word].eq_ignore_ascii_case(label))
    {
        return None;
    }
    let rest = s[word..].trim_start_matches(is_space);
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.trim_start_matches(is_space);
    let rest = rest.strip_prefix([':', '：', '-', '–', '—', '.', ')'])?;
    Some(rest.trim_start_matches(is_space))
}

/// The text between a pair around the whole line: `{x}`, `{{x}}`,
/// `<<x>>`, `` `x` ``, `=== x ===`, `--- x ---`.
fn unwrapped(s: &str) -> Option<&str> {
    const PAIRS: [(&str, &str); 4] = [("{{", "}}"), ("{", "}"), ("<<", ">>"), ("`", "`")];
    for (open, close) in PAIRS {
        if let Some(inner) = s.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            return Some(inner.trim_matches(is_space));
        }
    }
    // A rule on both sides: two or more `=` or `-`.
    let rule = |c: char| c == '=' || c == '-';
    let left = s.len() - s.trim_start_matches(rule).len();
    let right = s.len() - s.trim_end_matches(rule).len();
    (left >= 2 && right >= 2 && left + right < s.len())
        .then(|| s[left..s.len() - right].trim_matches(is_space))
}

/// A DSPy field marker at the start of `s` (`[[ ## plan ## ]] text`), as
/// [`header_line`] reads one on a line of its own: its content offset is
/// where the text after it starts in `s`.
pub(crate) fn marker_at(s: &str, max_name: usize) -> Option<HeaderLine<'_>> {
    marker_line(s, s, max_name)
}

/// `s`, the end of `line` from its `[[`, read as a field marker as DSPy
/// writes them: `[[ ## plan ## ]]`, the `#`s and spaces optional, content
/// allowed after it on the line. The name is read within `max_name` bytes.
fn marker_line<'a>(line: &'a str, s: &'a str, max_name: usize) -> Option<HeaderLine<'a>> {
    let inner = s.strip_prefix("[[")?;
    let window = &inner.as_bytes()[..floor_boundary(inner, max_name.min(inner.len()))];
    let end = memchr::memmem::find(window, b"]]")?;
    let name = inner[..end]
        .trim_matches(is_space)
        .trim_matches('#')
        .trim_matches(is_space);
    if name.is_empty() || name.contains(['[', ']', '#']) {
        return None;
    }
    let rest = inner[end + 2..].trim_start_matches(is_space);
    Some(HeaderLine {
        name,
        content_at: line.len() - rest.len(),
        marked: true,
        bracketed: true,
        tag: Tag::No,
        number: None,
        listed: false,
        marker: true,
    })
}

/// `s`, the end of `line` from its first `<`, read as a tag header line:
/// `<plan>`, `<plan> content`, `</plan>`. The name is read within
/// `max_name` bytes, so a long line costs no more than a short one.
fn tag_line<'a>(line: &'a str, s: &'a str, max_name: usize) -> Option<HeaderLine<'a>> {
    let inner = s.strip_prefix('<')?;
    let (tag, inner) = match inner.strip_prefix('/') {
        Some(inner) => (Tag::Close, inner),
        None => (Tag::Open, inner),
    };
    let window = &inner.as_bytes()[..floor_boundary(inner, max_name.min(inner.len()))];
    let end = memchr::memchr(b'>', window)?;
    let name = &inner[..end];
    if !is_tag_name(name) {
        return None;
    }
    let rest = inner[end + 1..].trim_start_matches(is_space);
    Some(HeaderLine {
        name,
        content_at: line.len() - rest.len(),
        marked: true,
        bracketed: false,
        tag,
        number: None,
        listed: false,
        marker: false,
    })
}

/// A tag's name: letters, digits, `_`, `-`, `.` and inner spaces (models
/// write `<research plan>` too), starting with a letter; not a comment, an
/// attribute list or markup.
fn is_tag_name(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_alphabetic)
        && !name.ends_with(' ')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '))
}

/// Where a closing tag ends `line`: `Visit temples</plan>` gives the offset
/// of `</plan>` and `plan`. Only the last `max_name` bytes are looked at.
pub(crate) fn closing_tag_at_end(line: &str, max_name: usize) -> Option<(usize, &str)> {
    let trimmed = line.trim_end_matches(is_space);
    let body = trimmed.strip_suffix('>')?;
    let from = floor_boundary(body, body.len().saturating_sub(max_name));
    let open = memchr::memmem::rfind(&body.as_bytes()[from..], b"</")? + from;
    let name = &body[open + 2..];
    is_tag_name(name).then_some((open, name))
}

/// The number of a line that starts `1.` or `2)` and a space, and the rest
/// of the line after the space: numbered headings (`## 1. Plan`,
/// `**2) Timeline**`) name their section too, and numbered list items are
/// counted. Up to three digits: `2024 Plan` is not numbered.
pub(crate) fn enumeration(s: &str) -> Option<(u32, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if !(1..=3).contains(&digits) {
        return None;
    }
    let rest = s[digits..].strip_prefix(['.', ')'])?;
    if !rest.starts_with(is_space) {
        return None;
    }
    let number = s[..digits].parse().ok()?;
    Some((number, rest.trim_start_matches(is_space)))
}

/// A markdown heading's name without its closing `#`s: `Plan ##` is `Plan`,
/// `C#` stays (the closing run follows a space, as in CommonMark).
fn without_closing_hashes(name: &str) -> &str {
    let open = name.trim_end_matches('#');
    if open.len() < name.len() && open.ends_with(is_space) {
        open.trim_end_matches(is_space)
    } else {
        name
    }
}

/// The first `:` or `：` in `window`.
fn find_colon(window: &[u8]) -> Option<usize> {
    // `：` is EF BC 9A in UTF-8.
    memchr::memchr2_iter(b':', 0xEF, window)
        .find(|&i| window[i] == b':' || window[i..].starts_with("：".as_bytes()))
}

/// The largest char boundary of `s` at or below `at`.
fn floor_boundary(s: &str, mut at: usize) -> usize {
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn find_char(window: &[u8], c: char) -> Option<usize> {
    let mut buf = [0; 4];
    let needle = c.encode_utf8(&mut buf).as_bytes();
    if needle.len() == 1 {
        memchr::memchr(needle[0], window)
    } else {
        memchr::memmem::find(window, needle)
    }
}

/// Whether two header names are the same, ignoring case, surrounding
/// brackets and runs of white space.
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    folded(a).eq(folded(b))
}

/// `name` without brackets, trimmed, lower-cased, with white space runs
/// folded to one space.
pub(crate) fn folded(name: &str) -> impl Iterator<Item = char> + '_ {
    let name = strip_brackets(name);
    let mut space = false;
    name.chars()
        .filter_map(move |c| {
            // A character that shows nothing is no part of a name: `Na\u{200B}me`
            // is `Name`.
            if is_zero_width(c) {
                None
            } else if is_space(c) {
                let first = !space;
                space = true;
                first.then_some(' ')
            } else {
                space = false;
                Some(c)
            }
        })
        .flat_map(char::to_lowercase)
}

/// `[Plan]`, `【计划】` or ` Plan ` → `Plan`.
pub(crate) fn strip_brackets(name: &str) -> &str {
    let name = name.trim_matches(is_space);
    let inner = name
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .or_else(|| name.strip_prefix('【').and_then(|n| n.strip_suffix('】')));
    inner.unwrap_or(name).trim_matches(is_space)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_and_content(line: &str) -> Option<(&str, &str, bool)> {
        header_line(line, 64).map(|h| (h.name, line[h.content_at..].trim_end(), h.marked))
    }

    #[test]
    fn zero_width_characters_hide_no_header() {
        // Between the name and its colon, before the name, inside it.
        assert_eq!(
            name_and_content("City\u{200B}: Lisbon"),
            Some(("City", "Lisbon", false))
        );
        assert_eq!(
            name_and_content("\u{FEFF}[City]\u{2060}"),
            Some(("City", "", true))
        );
        assert!(same_name("City\u{200B}", "city"));
        assert!(same_name("Ci\u{200C}ty", "[City]"));
        assert!(same_name("Start\u{200D} Date", "start date"));
        assert!(!same_name("Ci\u{200B}ty", "Cit"));
    }

    #[test]
    fn header_variants() {
        let cases = [
            ("[Plan]", "Plan", "", true),
            ("[plan]", "plan", "", true),
            ("  [Plan]  ", "Plan", "", true),
            ("## Plan", "Plan", "", true),
            ("#Plan", "Plan", "", true),
            ("### **Plan**", "Plan", "", true),
            ("**[Plan]**", "Plan", "", true),
            ("**Plan:**", "Plan", "", true),
            ("**Plan**:", "Plan", "", true),
            ("__Plan__", "Plan", "", true),
            ("*Plan*", "Plan", "", true),
            ("Plan:", "Plan", "", false),
            ("Plan：", "Plan", "", false),
            ("Plan", "Plan", "", false),
            ("【计划】", "计划", "", true),
            ("【计划】：先去寺庙", "计划", "先去寺庙", true),
            ("[Budget]: $500", "Budget", "$500", true),
            ("[Budget] $500", "Budget", "$500", true),
            ("**[Budget]:** $500", "Budget", "$500", true),
            ("Budget: $500", "Budget", "$500", false),
            ("[Plan]\r", "Plan", "", true),
            ("[ Research  Plan ]", "Research  Plan", "", true),
            ("## 1. Plan", "Plan", "", true),
            ("**2) Plan:** go", "Plan", "go", true),
            ("### 10. [Plan]", "Plan", "", true),
            ("## 2024 Plan", "2024 Plan", "", true),
            ("## Plan ##", "Plan", "", true),
            ("# C#", "C#", "", true),
            // Emphasis that no mark opened is the content's own: `**`
            // was dropped from `** plain text` and `**bold**` before.
            ("Plan: ** plain text", "Plan", "** plain text", false),
            ("Plan: **bold** text", "Plan", "**bold** text", false),
            ("**Plan**: **bold**", "Plan", "**bold**", true),
            ("**Plan:** **bold**", "Plan", "**bold**", true),
            ("[Plan] __init__", "Plan", "__init__", true),
        ];
        for (line, name, content, marked) in cases {
            assert_eq!(
                name_and_content(line),
                Some((name, content, marked)),
                "line {line:?}"
            );
        }
    }

    #[test]
    fn not_header_lines() {
        for line in [
            "",
            "   ",
            "- [Plan]",
            "1. Plan: go east",
            "  1. Plan",
            "2024 Plan",
            "1.Plan",
            "Visit temples. [Timeline]",
            "[]",
            "[Plan",
            "**",
            "> [Plan]",
            "$500",
            "[Plan], [Timeline], [Budget].",
            "[Festival] [Lanter] [Gaien]",
            "[Plan](https://example.com)",
            "[x]y",
        ] {
            assert_eq!(name_and_content(line), None, "line {line:?}");
        }
    }

    #[test]
    fn tag_lines() {
        let tag = |line| header_line(line, 64).map(|h| (h.name, &line[h.content_at..], h.tag));
        assert_eq!(tag("<plan>"), Some(("plan", "", Tag::Open)));
        assert_eq!(
            tag("  <research_plan>  go"),
            Some(("research_plan", "go", Tag::Open))
        );
        assert_eq!(
            tag("<plan>Go east</plan>"),
            Some(("plan", "Go east</plan>", Tag::Open))
        );
        assert_eq!(tag("</Plan>"), Some(("Plan", "", Tag::Close)));
        assert_eq!(tag("<计划>先去"), Some(("计划", "先去", Tag::Open)));
        for line in [
            "<>",
            "</>",
            "<a href=\"x\">",
            "<!-- x -->",
            "<plan",
            "< plan>",
            "<1st>",
            "<b/>",
        ] {
            assert_eq!(tag(line), None, "line {line:?}");
        }
        assert_eq!(
            closing_tag_at_end("Go east</plan>  ", 64),
            Some((7, "plan"))
        );
        assert_eq!(closing_tag_at_end("</plan>", 64), Some((0, "plan")));
        assert_eq!(closing_tag_at_end("a > b", 64), None);
        assert_eq!(closing_tag_at_end("<b>x</b >", 64), None);
        let long = format!("</plan>{}", "x".repeat(100));
        assert_eq!(
            closing_tag_at_end(&format!("{long}</plan>"), 16),
            Some((107, "plan"))
        );
        assert_eq!(
            closing_tag_at_end(&format!("</{}>", "p".repeat(100)), 16),
            None
        );
    }

    #[test]
    fn a_long_line_is_not_scanned_past_the_bound() {
        let line = format!("Plan {}", "word ".repeat(100));
        assert_eq!(header_line(&line, 16), None);
        let bracket = format!("[{}]", "x".repeat(100));
        assert_eq!(header_line(&bracket, 16), None);
    }

    #[test]
    fn numbered_lines_say_their_number_and_whether_it_is_their_only_mark() {
        let numbered = |line| {
            header_line(line, 64).map(|h| (h.name, h.number, h.listed, h.marked, h.content_at))
        };
        assert_eq!(
            numbered("1. Reasoning"),
            Some(("Reasoning", Some(1), true, false, 12))
        );
        assert_eq!(
            numbered("2) Answer:"),
            Some(("Answer", Some(2), true, false, 10))
        );
        assert_eq!(
            numbered("3. **Answer**"),
            Some(("Answer", Some(3), true, false, 13))
        );
        assert_eq!(
            numbered("4. [Answer]"),
            Some(("Answer", Some(4), true, false, 11))
        );
        assert_eq!(
            numbered("**1. Reasoning**"),
            Some(("Reasoning", Some(1), false, true, 16))
        );
        assert_eq!(
            numbered("### 2. Answer"),
            Some(("Answer", Some(2), false, true, 13))
        );
        assert_eq!(
            numbered("## Answer"),
            Some(("Answer", None, false, true, 9))
        );
        assert_eq!(enumeration("12) x"), Some((12, "x")));
        assert_eq!(enumeration("1.5 kg"), None);
        assert_eq!(enumeration("1000. x"), None);
    }

    #[test]
    fn dspy_field_markers() {
        let marker = |line| {
            header_line(line, 64).map(|h| (h.name, &line[h.content_at..], h.marker, h.identifier()))
        };
        assert_eq!(
            marker("[[ ## answer ## ]]"),
            Some(("answer", "", true, true))
        );
        assert_eq!(
            marker("[[## next_thought ##]] I should"),
            Some(("next_thought", "I should", true, true))
        );
        assert_eq!(marker("  [[ answer ]]"), Some(("answer", "", true, true)));
        assert!(header_line("[[ ## completed ## ]]", 64)
            .unwrap()
            .completes());
        assert!(!header_line("[[ ## answer ## ]]", 64).unwrap().completes());
        assert!(!header_line("[completed]", 64).unwrap().completes());
        for line in ["[[ ## ## ]]", "[[ ## answer ##", "[[a]b]]", "[[ # a # b ]]"] {
            assert_eq!(marker(line), None, "line {line:?}");
        }
        let long = format!("[[ ## {} ## ]]", "x".repeat(100));
        assert_eq!(header_line(&long, 16), None);
    }

    #[test]
    fn names_compare_loosely() {
        assert!(same_name("[Research Plan]", "research  plan"));
        assert!(same_name("【计划】", "计划"));
        assert!(same_name("PLAN", "plan"));
        assert!(!same_name("Plan", "Plans"));
    }
}
