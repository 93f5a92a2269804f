//! Splitting a reply into sections: one pass over its lines.

use std::borrow::Cow;

use memchr::memchr;

use super::header::{folded, header_line, same_name, strip_brackets};
use super::reply::{is_fence, without_reasoning};
use crate::vocab::SectionSpec;

/// The sections found in a reply, in the order they were asked for.
///
/// Content is trimmed and borrowed from the reply whenever possible. A
/// section given several times holds its last occurrence.
///
/// ```
/// use twr_runtime::parse::{multi_section_parser, MatchMode};
///
/// let map = multi_section_parser("## Plan\nGo east\n[budget]: $500", &["[Plan]", "Budget"], MatchMode::All)?;
/// assert_eq!(map.get("plan"), Some("Go east"));
/// assert_eq!(map.get("[Budget]"), Some("$500"));
/// assert_eq!(map.len(), 2);
/// # Ok::<(), twr_runtime::Feedback>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SectionMap<'a> {
    sections: Vec<Section<'a>>,
    unknown: Vec<UnknownHeader>,
}

/// One asked-for section and what the reply says under it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Section<'a> {
    /// The header as shown to the model, with brackets.
    header: Cow<'static, str>,
    /// Names that select this section: its own, then its aliases.
    names: Names,
    /// The trimmed content; `None` when the header is not in the reply.
    content: Option<Cow<'a, str>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Names {
    Spec(&'static str, &'static [&'static str]),
    Plain(String),
}

impl Names {
    fn matches(&self, header: &str) -> bool {
        match self {
            Names::Spec(name, aliases) => {
                same_name(name, header) || aliases.iter().any(|alias| same_name(alias, header))
            }
            Names::Plain(name) => same_name(name, header),
        }
    }
}

/// A line shaped like a header (`[Schedule]`, `## Schedule`, `**Schedule**`)
/// that names no section: the material of rename hints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownHeader {
    /// The line as written, trimmed.
    pub line: String,
    /// The name it gives, without brackets or decoration.
    pub name: String,
    /// Whether the name was in brackets, as asked (`[Schedule]`, not
    /// `## Schedule`).
    pub bracketed: bool,
    /// The section being read when the line appeared (its index), if any.
    pub(crate) after: Option<usize>,
    /// The section whose header came next after the line, if any.
    pub(crate) before: Option<usize>,
}

/// At most this many unknown header lines are remembered for rename hints;
/// a reply made of thousands of bracketed lines costs no more.
const MAX_UNKNOWN: usize = 32;

impl<'a> SectionMap<'a> {
    /// The trimmed content of the section named `header` (with or without
    /// brackets, any case, or one of its aliases); `None` when the reply does
    /// not have it.
    pub fn get(&self, header: &str) -> Option<&str> {
        self.sections
            .iter()
            .find(|section| section.names.matches(header))
            .and_then(|section| section.content.as_deref())
    }

    /// Whether the reply has the section named `header`.
    pub fn contains(&self, header: &str) -> bool {
        self.get(header).is_some()
    }

    /// The content of the `index`-th asked-for section.
    pub fn content(&self, index: usize) -> Option<&str> {
        self.sections.get(index)?.content.as_deref()
    }

    /// The sections found, in the order they were asked for: `(header,
    /// content)` with the header as shown to the model (`[Plan]`).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.sections
            .iter()
            .filter_map(|section| Some((section.header.as_ref(), section.content.as_deref()?)))
    }

    /// Every asked-for header with its content, if any.
    pub(crate) fn headers_and_contents(&self) -> impl Iterator<Item = (&str, Option<&str>)> + '_ {
        self.sections
            .iter()
            .map(|section| (section.header.as_ref(), section.content.as_deref()))
    }

    /// The headers asked for but not found, in order.
    pub fn missing(&self) -> impl Iterator<Item = &str> + '_ {
        self.sections
            .iter()
            .filter(|section| section.content.is_none())
            .map(|section| section.header.as_ref())
    }

    /// How many of the asked-for sections the reply has.
    pub fn len(&self) -> usize {
        self.sections.iter().filter(|s| s.content.is_some()).count()
    }

    /// True when the reply has none of the asked-for sections.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Header-shaped lines that name no asked-for section (at most 32), in
    /// the order written: `[Schedule]` when `[Timeline]` was asked for.
    pub fn unknown_headers(&self) -> &[UnknownHeader] {
        &self.unknown
    }

    /// Copies borrowed content so the map outlives the reply.
    pub fn into_owned(self) -> SectionMap<'static> {
        SectionMap {
            sections: self
                .sections
                .into_iter()
                .map(|s| Section {
                    header: s.header,
                    names: s.names,
                    content: s.content.map(|c| Cow::Owned(c.into_owned())),
                })
                .collect(),
            unknown: self.unknown,
        }
    }
}

/// Finds the sections of `specs` (their names and aliases) in `raw`.
///
/// Never fails: a section the reply lacks is `None` in the map. Text before
/// the first header, `<think>` blocks and a code fence around the whole
/// reply are left out.
pub fn split_sections<'a>(raw: &'a str, specs: &[SectionSpec]) -> SectionMap<'a> {
    split(raw, spec_sections(specs))
}

/// The sections of `specs`, none found yet.
fn spec_sections<'a>(specs: &[SectionSpec]) -> Vec<Section<'a>> {
    specs
        .iter()
        .map(|spec| Section {
            header: Cow::Borrowed(spec.header),
            names: Names::Spec(spec.name, spec.aliases),
            content: None,
        })
        .collect()
}

/// Finds the sections named by plain header strings (`"[Plan]"`, `"Plan"`).
pub(crate) fn split_plain<'a>(raw: &'a str, headers: &[&str]) -> SectionMap<'a> {
    let sections = headers
        .iter()
        .map(|header| {
            let name = strip_brackets(header).to_owned();
            Section {
                header: Cow::Owned(format!("[{name}]")),
                names: Names::Plain(name),
                content: None,
            }
        })
        .collect();
    split(raw, sections)
}

/// A name to look for and the section it selects.
struct Key {
    folded: String,
    /// The first character of `folded`.
    first: char,
    section: usize,
}

/// The header names of the sections asked for, ready for the line scan.
pub(crate) struct Keys {
    keys: Vec<Key>,
    /// The most bytes of a line worth reading for a name: the longest name
    /// with room for decoration (`### **[Name]:**`).
    max_name: usize,
    /// How many sections the names select.
    sections: usize,
}

impl Keys {
    fn new(sections: &[Section<'_>]) -> Self {
        let mut keys = Vec::new();
        for (index, section) in sections.iter().enumerate() {
            let mut add = |name: &str| {
                let folded: String = folded(name).collect();
                if let Some(first) = folded.chars().next() {
                    keys.push(Key {
                        folded,
                        first,
                        section: index,
                    });
                }
            };
            match &section.names {
                Names::Spec(name, aliases) => {
                    add(name);
                    aliases.iter().for_each(|alias| add(alias));
                }
                Names::Plain(name) => add(name),
            }
        }
        let longest = keys.iter().map(|k| k.folded.len()).max().unwrap_or(0);
        Keys {
            keys,
            max_name: longest * 2 + 16,
            sections: sections.len(),
        }
    }

    /// The names of the sections of `specs`.
    pub(crate) fn of_specs(specs: &[SectionSpec]) -> Self {
        Keys::new(&spec_sections(specs))
    }
}

fn split<'a>(raw: &'a str, sections: Vec<Section<'a>>) -> SectionMap<'a> {
    let keys = Keys::new(&sections);
    let text = without_reasoning(raw);
    let mut scan = LineScan::new(&keys);
    let bytes = text.as_bytes();
    let mut line_start = 0;
    while line_start < bytes.len() {
        let line_end = memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i);
        scan.line(&keys, &text[line_start..line_end], line_start);
        line_start = line_end + 1;
    }
    let (scan, _) = scan.finish(bytes.len());
    match &text {
        Cow::Borrowed(text) => {
            let text: &'a str = text;
            scan.into_map(sections, text, Cow::Borrowed)
        }
        // The text without reasoning is a local copy: so is the content.
        Cow::Owned(text) => scan.into_map(sections, text, |content| Cow::Owned(content.to_owned())),
    }
}

/// Where each section's last occurrence lies, after the line scan.
pub(crate) struct Scan {
    /// Per section, the byte span of its last occurrence's content.
    spans: Vec<Option<(usize, usize)>>,
    unknown: Vec<UnknownHeader>,
    /// Where the reply's text ends: before a closing fence when the whole
    /// reply is wrapped in one.
    end: usize,
}

impl Scan {
    /// The map of the sections of `specs` in `text`, the text the scan read.
    pub(crate) fn map<'t>(&self, specs: &[SectionSpec], text: &'t str) -> SectionMap<'t> {
        let scan = Scan {
            spans: self.spans.clone(),
            unknown: self.unknown.clone(),
            end: self.end,
        };
        scan.into_map(spec_sections(specs), text, Cow::Borrowed)
    }

    /// The map of `sections` with their trimmed content in `text` (the
    /// text the scan read), made by `content`.
    fn into_map<'a, 't>(
        self,
        mut sections: Vec<Section<'a>>,
        text: &'t str,
        content: impl Fn(&'t str) -> Cow<'a, str>,
    ) -> SectionMap<'a> {
        for (section, span) in sections.iter_mut().zip(&self.spans) {
            if let Some((start, end)) = *span {
                let end = end.min(self.end);
                let start = start.min(end);
                section.content = Some(content(&text[content_range(text, start, end)]));
            }
        }
        SectionMap {
            sections,
            unknown: self.unknown,
        }
    }
}

/// The single pass over the lines of a text, fed one line at a time: by
/// [`split_sections`] over a whole reply, by the
/// [`SectionStream`](super::SectionStream) as each line of a stream ends.
pub(crate) struct LineScan {
    /// Per section, the byte span of its last closed occurrence's content.
    spans: Vec<Option<(usize, usize)>>,
    unknown: Vec<UnknownHeader>,
    /// Unknown headers from this one on still wait for the next known header.
    pending: usize,
    /// The section being read and where its content starts.
    open: Option<(usize, usize)>,
    /// Fence lines seen, where the first and the last start.
    fences: usize,
    fence_starts: [usize; 2],
    first_header: Option<usize>,
    /// Where the last non-blank line starts.
    last_line: usize,
}

impl LineScan {
    pub(crate) fn new(keys: &Keys) -> Self {
        LineScan {
            spans: vec![None; keys.sections],
            unknown: Vec::new(),
            pending: 0,
            open: None,
            fences: 0,
            fence_starts: [0; 2],
            first_header: None,
            last_line: 0,
        }
    }

    /// Reads one line (without its `\n`) that starts `at` bytes into the
    /// text. When it is a header line of a section, the section being read
    /// ends before it: returns that section and the span of its content.
    pub(crate) fn line(
        &mut self,
        keys: &Keys,
        line: &str,
        at: usize,
    ) -> Option<(usize, usize, usize)> {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return None;
        }
        if is_fence(trimmed) {
            if self.fences == 0 {
                self.fence_starts[0] = at;
            }
            self.fences += 1;
            self.fence_starts[1] = at;
        }
        self.last_line = at;
        let header = header_line(line, keys.max_name)?;
        match find_key(&keys.keys, header.name) {
            Some(section) => {
                for header in &mut self.unknown[self.pending..] {
                    header.before = Some(section);
                }
                self.pending = self.unknown.len();
                self.first_header.get_or_insert(at);
                let closed = self.open.map(|(open, start)| {
                    self.spans[open] = Some((start, at));
                    (open, start, at)
                });
                self.open = Some((section, at + header.content_at));
                closed
            }
            None if header.marked && self.unknown.len() < MAX_UNKNOWN => {
                self.unknown.push(UnknownHeader {
                    line: trimmed.to_owned(),
                    name: header.name.to_owned(),
                    bracketed: header.bracketed,
                    after: self.open.map(|(section, _)| section),
                    before: None,
                });
                None
            }
            None => None,
        }
    }

    /// The text ends after `len` bytes: the section being read ends there,
    /// or before a closing fence when the whole reply is wrapped in one.
    /// Returns the scan and the section that ended, with its span.
    pub(crate) fn finish(mut self, len: usize) -> (Scan, Option<(usize, usize, usize)>) {
        // An answer wrapped whole in a fence: closed on the last line, opened
        // by the first fence, before the first header (after a preamble,
        // perhaps), any fences inside paired up. Its closing line is not
        // content of the last section.
        let wrapped = self.fences >= 2
            && self.fences % 2 == 0
            && self.fence_starts[1] == self.last_line
            && self
                .first_header
                .is_some_and(|header| self.fence_starts[0] < header);
        let end = if wrapped { self.last_line } else { len };
        let last = self.open.map(|(section, start)| {
            self.spans[section] = Some((start, len));
            (section, start.min(end), end)
        });
        let scan = Scan {
            spans: self.spans,
            unknown: self.unknown,
            end,
        };
        (scan, last)
    }
}

fn find_key(keys: &[Key], name: &str) -> Option<usize> {
    // Most lines that reach here are ordinary text ("Morning: ..."): the
    // first letter alone rules them out without folding the whole name.
    let first = name.chars().next()?;
    let first = if first.is_ascii() {
        first.to_ascii_lowercase()
    } else {
        first.to_lowercase().next()?
    };
    keys.iter()
        .filter(|key| key.first == first)
        .find(|key| folded(name).eq(key.folded.chars()))
        .map(|key| key.section)
}

/// The byte range of `text[start..end]` as a section's content: trimmed,
/// without a trailing horizontal rule (`---`) that models put between
/// sections.
pub(crate) fn content_range(text: &str, start: usize, end: usize) -> std::ops::Range<usize> {
    let span = &text[start..end];
    let content = span.trim_start();
    let start = start + (span.len() - content.len());
    let content = content.trim_end();
    let last_line_start = content.rfind('\n').map_or(0, |i| i + 1);
    let last = content[last_line_start..].trim();
    let rule = last.len() >= 3
        && (last.bytes().all(|b| b == b'-')
            || last.bytes().all(|b| b == b'*')
            || last.bytes().all(|b| b == b'_'));
    let content = if rule {
        content[..last_line_start].trim_end()
    } else {
        content
    };
    start..start + content.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{Presence, ValueKind};

    const fn spec(
        header: &'static str,
        name: &'static str,
        aliases: &'static [&'static str],
    ) -> SectionSpec {
        SectionSpec {
            field: name,
            header,
            name,
            aliases,
            description: "",
            example: "",
            kind: ValueKind::Text,
            presence: Presence::Required,
        }
    }

    static SPECS: [SectionSpec; 4] = [
        spec("[Plan]", "Plan", &[]),
        spec("[Timeline]", "Timeline", &["Schedule"]),
        spec("[Budget]", "Budget", &[]),
        spec("[计划]", "计划", &[]),
    ];

    fn sections(raw: &str) -> Vec<Option<String>> {
        let map = split_sections(raw, &SPECS);
        (0..SPECS.len())
            .map(|i| map.content(i).map(str::to_owned))
            .collect()
    }

    fn some(items: [Option<&str>; 4]) -> Vec<Option<String>> {
        items.iter().map(|i| i.map(str::to_owned)).collect()
    }

    #[test]
    fn every_header_variant() {
        let variants = [
            "[Plan]",
            "[plan]",
            "[PLAN]",
            "## Plan",
            "# plan",
            "**[Plan]**",
            "**Plan:**",
            "**Plan**:",
            "__Plan__",
            "*Plan*",
            "Plan:",
            "Plan：",
            "Plan",
            "  [Plan]  ",
            "【Plan】",
            "### **Plan:**",
        ];
        for header in variants {
            let raw = format!("intro\n{header}\nGo east\n[Budget]\n$5");
            assert_eq!(
                sections(&raw),
                some([Some("Go east"), None, Some("$5"), None]),
                "header {header:?}"
            );
        }
    }

    #[test]
    fn content_on_the_header_line() {
        let raw = "[Budget]: $500\n**Plan:** walk\nand eat\nTimeline: two days\n【计划】：先去寺庙";
        assert_eq!(
            sections(raw),
            some([
                Some("walk\nand eat"),
                Some("two days"),
                Some("$500"),
                Some("先去寺庙")
            ])
        );
    }

    #[test]
    fn aliases_count_the_same() {
        assert_eq!(sections("[schedule]\nDay 1")[1].as_deref(), Some("Day 1"));
        let map = split_sections("## Schedule\nDay 1", &SPECS);
        assert_eq!(map.get("Timeline"), Some("Day 1"));
        assert_eq!(map.get("[schedule]"), Some("Day 1"));
    }

    #[test]
    fn last_occurrence_wins() {
        let raw = "[Plan]\ndraft\n[Budget]\n$1\n[Plan]\nfinal\n[Budget]\n$2";
        assert_eq!(sections(raw), some([Some("final"), None, Some("$2"), None]));
    }

    #[test]
    fn a_header_inside_a_sentence_is_not_a_header() {
        let raw = "[Plan]\nSee the [Budget] below and the Timeline: later.\nDay 2: [Budget]\n";
        assert_eq!(
            sections(raw),
            some([
                Some("See the [Budget] below and the Timeline: later.\nDay 2: [Budget]"),
                None,
                None,
                None
            ])
        );
    }

    #[test]
    fn reasoning_blocks_are_ignored() {
        let raw = "<think>\n[Plan]\nmaybe north\n[Budget]\n$9\n</think>\n[Plan]\nsouth\n<thinking>[Budget] is hard</thinking>\n[Budget]\n$5";
        assert_eq!(sections(raw), some([Some("south"), None, Some("$5"), None]));
        let map = split_sections("<think>x</think>\n[Plan]\nGo", &SPECS);
        assert!(matches!(map.sections[0].content, Some(Cow::Borrowed("Go"))));
    }

    #[test]
    fn a_reply_wrapped_in_a_code_fence_is_unwrapped() {
        let raw = "```markdown\n[Plan]\nGo\n[Budget]\n```json\n{\"a\": 1}\n```\n```\n";
        assert_eq!(
            sections(raw),
            some([Some("Go"), None, Some("```json\n{\"a\": 1}\n```"), None])
        );
        // After a preamble.
        let raw = "Here you go:\n~~~\n[Plan]\nGo\n~~~";
        assert_eq!(sections(raw)[0].as_deref(), Some("Go"));
        // Not wrapped whole: the last fence belongs to the section.
        let raw = "[Budget]\n```\n5\n```";
        assert_eq!(sections(raw)[2].as_deref(), Some("```\n5\n```"));
        let raw = "[Plan]\n```\nx\n```\n[Budget]\n```\n5\n```";
        assert_eq!(sections(raw)[2].as_deref(), Some("```\n5\n```"));
    }

    #[test]
    fn crlf_is_normal_text() {
        let raw = "[Plan]\r\nGo\r\nnow\r\n**Budget:** $5\r\n";
        assert_eq!(
            sections(raw),
            some([Some("Go\r\nnow"), None, Some("$5"), None])
        );
    }

    #[test]
    fn text_before_the_first_header_and_trailing_rules_are_dropped() {
        let raw = "Sure! Here is my answer.\n\n[Plan]\nGo\n\n---\n\n[Budget]\n$5\n---";
        assert_eq!(sections(raw), some([Some("Go"), None, Some("$5"), None]));
    }

    #[test]
    fn empty_and_missing_differ() {
        let map = split_sections("[Plan]\n\n[Budget]", &SPECS);
        assert_eq!(map.content(0), Some(""));
        assert_eq!(map.content(1), None);
        assert_eq!(map.get("budget"), Some(""));
        assert_eq!(map.missing().collect::<Vec<_>>(), ["[Timeline]", "[计划]"]);
        assert_eq!(map.len(), 2);
    }

    #[test]
    fn unknown_header_lines_are_remembered() {
        let map = split_sections(
            "[Plan]\nGo\n[Schedule plan]\n## Notes\n**Tip:** x\nNote: y\n[Budget]\n5",
            &SPECS,
        );
        let unknown: Vec<_> = map
            .unknown_headers()
            .iter()
            .map(|u| {
                (
                    u.line.as_str(),
                    u.name.as_str(),
                    u.bracketed,
                    u.after,
                    u.before,
                )
            })
            .collect();
        assert_eq!(
            unknown,
            [
                ("[Schedule plan]", "Schedule plan", true, Some(0), Some(2)),
                ("## Notes", "Notes", false, Some(0), Some(2)),
                ("**Tip:** x", "Tip", false, Some(0), Some(2))
            ]
        );
    }

    #[test]
    fn iter_get_and_into_owned() {
        let raw = String::from("[Budget]\n$5\n[Plan]\nGo");
        let map = split_sections(&raw, &SPECS).into_owned();
        drop(raw);
        assert_eq!(
            map.iter().collect::<Vec<_>>(),
            [("[Plan]", "Go"), ("[Budget]", "$5")]
        );
        assert_eq!(map.get("PLAN"), Some("Go"));
        assert_eq!(map.get("【budget】"), Some("$5"));
        assert_eq!(map.get("Nope"), None);
        assert!(map.contains("Budget"));
    }
}
