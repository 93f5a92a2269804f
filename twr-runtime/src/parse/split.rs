//! Splitting a reply into sections: one pass over its lines.

use std::borrow::Cow;
use std::ops::Range;

use memchr::{memchr, memchr_iter};

use super::header::{
    closing_tag_at_end, enumeration, folded, header_line, marker_at, same_name, strip_brackets,
    HeaderLine, Tag,
};
use super::prepare::{is_fence, visible, Offsets};
use crate::vocab::{SectionSpec, ValueKind};

/// The sections found in a reply, in the order they were asked for.
///
/// Content is trimmed and borrowed from the reply whenever possible. A
/// section given several times holds its last occurrence. Each section's
/// place in the reply is a byte range ([`SectionMap::range`]).
///
/// ```
/// use twr_runtime::parse::{multi_section_parser, MatchMode};
///
/// let map = multi_section_parser("## Plan\nGo east\n[budget]: $500", &["[Plan]", "Budget"], MatchMode::All)?;
/// assert_eq!(map.get("plan"), Some("Go east"));
/// assert_eq!(map.get("[Budget]"), Some("$500"));
/// assert_eq!(map.len(), 2);
/// assert_eq!(map.range("Plan"), Some(8..15));
/// # Ok::<(), twr_runtime::Feedback>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SectionMap<'a> {
    sections: Vec<Section<'a>>,
    unknown: Vec<UnknownHeader>,
    /// For a map made to check one section's value alone
    /// ([`SectionMap::only_section`]): that section's index.
    only: Option<usize>,
}

/// One asked-for section and what the reply says under it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Section<'a> {
    /// The header as shown to the model, with brackets.
    header: Cow<'static, str>,
    /// Names that select this section: its own, then its aliases.
    names: Names,
    /// What the reply says under the header; `None` when the header is not
    /// in the reply.
    content: Option<Content<'a>>,
    /// Whether the section holds a list, whose numbered items may name
    /// other sections (see [`LineScan`]).
    list: bool,
    /// Whether the section holds JSON, whose lines may be a bracketed word
    /// (`[true]`, `[null]`): no stray header ends it (see [`LineScan`]).
    json: bool,
}

/// A section's trimmed content and where it lies in the reply.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Content<'a> {
    text: Cow<'a, str>,
    /// From the content's first byte to its last, in the reply.
    range: Range<usize>,
}

impl Section<'_> {
    fn text(&self) -> Option<&str> {
        self.content.as_ref().map(|content| content.text.as_ref())
    }
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
#[non_exhaustive]
pub struct UnknownHeader {
    /// The line as written, trimmed.
    pub line: String,
    /// The name it gives, without brackets or decoration.
    pub name: String,
    /// Whether the name was in brackets, as asked (`[Schedule]`, not
    /// `## Schedule`).
    pub bracketed: bool,
    /// The section being read when the line appeared, or else the one
    /// that ended last before it (its index), if any.
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
            .and_then(|section| section.text())
    }

    /// Where the content of the section named `header` lies in the reply:
    /// the byte range from its first byte to its last (trimmed, as
    /// [`get`](Self::get) gives it). `&raw[range]` is the content, unless a
    /// `<think>` block sits inside the section: the range spans the block,
    /// the content leaves it out. An empty section's range is empty, where
    /// content on its header line would start. `None` when the reply does
    /// not have it.
    ///
    /// For a map from [`SectionStream::sections`](super::SectionStream::sections),
    /// the reply is [`SectionStream::raw`](super::SectionStream::raw).
    pub fn range(&self, header: &str) -> Option<Range<usize>> {
        self.sections
            .iter()
            .find(|section| section.names.matches(header))
            .and_then(|section| Some(section.content.as_ref()?.range.clone()))
    }

    /// Where the content of the `index`-th asked-for section lies in the
    /// reply, as [`range`](Self::range).
    pub fn range_at(&self, index: usize) -> Option<Range<usize>> {
        Some(self.sections.get(index)?.content.as_ref()?.range.clone())
    }

    /// Whether the reply has the section named `header`.
    pub fn contains(&self, header: &str) -> bool {
        self.get(header).is_some()
    }

    /// The content of the `index`-th asked-for section.
    pub fn content(&self, index: usize) -> Option<&str> {
        self.sections.get(index)?.text()
    }

    /// The sections found, in the order they were asked for: `(header,
    /// content)` with the header as shown to the model (`[Plan]`).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.sections
            .iter()
            .filter_map(|section| Some((section.header.as_ref(), section.text()?)))
    }

    /// Every asked-for header with its content, if any.
    pub(crate) fn headers_and_contents(&self) -> impl Iterator<Item = (&str, Option<&str>)> + '_ {
        self.sections
            .iter()
            .map(|section| (section.header.as_ref(), section.text()))
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
                    content: s.content.map(|c| Content {
                        text: Cow::Owned(c.text.into_owned()),
                        range: c.range,
                    }),
                    list: s.list,
                    json: s.json,
                })
                .collect(),
            unknown: self.unknown,
            only: self.only,
        }
    }

    /// The map of sections of `specs` whose trimmed contents were found
    /// already (`contents`, by position in `specs`, each with where it lies
    /// in the text it is read from): what [`split_sections`] would find in
    /// that text, without reading it again.
    pub(crate) fn from_contents(
        specs: &[SectionSpec],
        contents: impl IntoIterator<Item = Option<(&'a str, Range<usize>)>>,
    ) -> Self {
        let mut sections = spec_sections(specs);
        for (section, content) in sections.iter_mut().zip(contents) {
            section.content = content.map(|(text, range)| Content {
                text: Cow::Borrowed(text),
                range,
            });
        }
        SectionMap {
            sections,
            unknown: Vec::new(),
            only: None,
        }
    }

    /// The map of one section of `specs`, the `index`-th, whose trimmed
    /// content `text` lies at `range`, made to check that section's value
    /// alone: a reader of it records the problems of that section only
    /// (the others are absent on purpose).
    pub(crate) fn only_section(
        specs: &[SectionSpec],
        index: usize,
        text: &'a str,
        range: Range<usize>,
    ) -> Self {
        let contents = (0..specs.len()).map(|at| (at == index).then(|| (text, range.clone())));
        SectionMap {
            only: Some(index),
            ..SectionMap::from_contents(specs, contents)
        }
    }

    /// Leaves the `index`-th section empty, where its content started: a
    /// value the loop found to be no answer (see `think/junk.rs`) is read
    /// as an empty section.
    pub(crate) fn blank(&mut self, index: usize) {
        if let Some(content) = self
            .sections
            .get_mut(index)
            .and_then(|section| section.content.as_mut())
        {
            content.text = Cow::Borrowed("");
            content.range = content.range.start..content.range.start;
        }
    }

    /// The section this map was made to check alone, if it was
    /// ([`SectionMap::only_section`]).
    pub(crate) fn only(&self) -> Option<usize> {
        self.only
    }
}

/// Finds the sections of `specs` (their names and aliases) in `raw`.
///
/// Never fails: a section the reply lacks is `None` in the map. Text before
/// the first header, `<think>` blocks and a code fence around the whole
/// reply are left out.
///
/// A header is never glued into a value: a line holding only a bracketed
/// name of no section (`[Address]` above flattened sections, a stray
/// `[Extra]`) ends the section before it, and the lines under it, up to the
/// next section's header, belong to no section. They are set aside, not
/// lost: the reply is kept whole, the line is in
/// [`SectionMap::unknown_headers`], and a required section then missing
/// gets feedback naming the line ("You wrote `[Decision]`; name it
/// `[Decisions]`"). Bracketed text with more on its line (`[1] Smith, 2020`),
/// a footnote mark `[1]`, `[x]`, a bracket holding more than a name
/// (`["a", "b"]`), lines inside a code fence and the lines of a JSON
/// section (`[true]`) stay content.
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
            list: matches!(spec.kind, ValueKind::List(_)),
            json: matches!(spec.kind, ValueKind::Json),
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
                list: false,
                json: false,
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
    /// Per section, whether it holds a list.
    lists: Vec<bool>,
    /// Per section, whether it holds JSON.
    json: Vec<bool>,
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
            lists: sections.iter().map(|section| section.list).collect(),
            json: sections.iter().map(|section| section.json).collect(),
        }
    }

    /// The names of the sections of `specs`.
    pub(crate) fn of_specs(specs: &[SectionSpec]) -> Self {
        Keys::new(&spec_sections(specs))
    }
}

fn split<'a>(raw: &'a str, sections: Vec<Section<'a>>) -> SectionMap<'a> {
    let keys = Keys::new(&sections);
    let (text, offsets) = visible(raw);
    let mut scan = LineScan::new(&keys);
    let bytes = text.as_bytes();
    let mut line_start = 0;
    while line_start < bytes.len() {
        let line_end = memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i);
        scan.line(&keys, &text[line_start..line_end], line_start);
        line_start = line_end + 1;
    }
    let (scan, _) = scan.finish(bytes.len());
    scan.into_map(sections, &text, &offsets, |in_text, in_reply| {
        // Content with no reasoning inside is the same bytes in the reply:
        // borrowed from it. Otherwise it is copied from the text read.
        if in_reply.len() == in_text.len() {
            Cow::Borrowed(&raw[in_reply])
        } else {
            Cow::Owned(text[in_text].to_owned())
        }
    })
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
    /// The map of the sections of `specs` in `text`, the text the scan read,
    /// taken from the reply at `offsets`.
    pub(crate) fn map<'t>(
        &self,
        specs: &[SectionSpec],
        text: &'t str,
        offsets: &Offsets,
    ) -> SectionMap<'t> {
        let scan = Scan {
            spans: self.spans.clone(),
            unknown: self.unknown.clone(),
            end: self.end,
        };
        scan.into_map(spec_sections(specs), text, offsets, |in_text, _| {
            Cow::Borrowed(&text[in_text])
        })
    }

    /// The map of `sections` with their trimmed content, made by `content`
    /// from its byte range in the text the scan read and in the reply.
    fn into_map<'a>(
        self,
        mut sections: Vec<Section<'a>>,
        text: &str,
        offsets: &Offsets,
        content: impl Fn(Range<usize>, Range<usize>) -> Cow<'a, str>,
    ) -> SectionMap<'a> {
        for (section, span) in sections.iter_mut().zip(&self.spans) {
            if let Some((start, end)) = *span {
                let end = end.min(self.end);
                let start = start.min(end);
                let in_text = content_range(text, start, end);
                let in_reply = offsets.to_reply(in_text.clone());
                section.content = Some(Content {
                    text: content(in_text, in_reply.clone()),
                    range: in_reply,
                });
            }
        }
        SectionMap {
            sections,
            unknown: self.unknown,
            only: None,
        }
    }
}

/// The single pass over the lines of a text, fed one line at a time: by
/// [`split_sections`] over a whole reply, by the
/// [`SectionStream`](super::SectionStream) as each line of a stream ends.
///
/// A numbered line that only names a section (`1. Reasoning`, `2) Answer`)
/// is a header, except inside a list section, where numbered lines are the
/// list's items: there it is a header only when its number follows the
/// header before it (that header's own number, `1. Steps`, or else its
/// position among the headers read, `[Steps]` first is 1) and does not
/// continue the list's own numbering (the list's last numbered line, not
/// indented, is not one less). So in `1. Steps` / `1. Plan` / `2. Budget` /
/// `2. Plan`, the first two lines under Steps are its items and the last is
/// the header of Plan; when both numberings fit (`1. Steps` / `1. Pack` /
/// `2. Plan`), the line is an item: a list keeps its items, and the section
/// left missing gets feedback naming the line.
///
/// A bracketed name of no section alone on its line (a stray `[Extra]`)
/// ends the section being read, except inside a code fence or a JSON
/// section (see [`split_sections`]).
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
    /// How many header lines opened a section so far.
    headers_read: u32,
    /// The number of the last header line: its own (`## 2. Plan`), or its
    /// position among the headers read.
    header_number: Option<u32>,
    /// The number of the last numbered line (at the start of its line, not
    /// indented) of the section being read.
    item_number: Option<u32>,
    /// Whether a code fence opened in the section being read is still
    /// open: a bracketed line there is code (`[dependencies]`), no header.
    fenced: bool,
    /// The section that ended last, for unknown headers after it.
    closed: Option<usize>,
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
            headers_read: 0,
            header_number: None,
            item_number: None,
            fenced: false,
            closed: None,
        }
    }

    /// Reads one line (without its `\n`) that starts `at` bytes into the
    /// text. Returns the sections that ended on it, each with the span of
    /// its content, and those that began on it, in order: the section being
    /// read ends before a header line of
    /// another, at a DSPy marker written later in the line
    /// (`...transactions.[[ ## next_tool ## ]]`), and at its closing tag
    /// (`</plan>`, on a line of its own or at the end of the content);
    /// `<plan>x</plan>` on one line ends a section that starts there too.
    pub(crate) fn line(&mut self, keys: &Keys, line: &str, at: usize) -> LineEvents {
        let mut events = LineEvents::new();
        let header = self.header(keys, line, at, &mut events);
        // Models that drop the line break before a marker (Gemini 2.5 Pro in
        // stanfordnlp/dspy#8379) write it after the text it ends.
        let after_header = header.map_or(0, |(_, content_at)| content_at);
        if find_marker_start(&line.as_bytes()[after_header..]).is_some() {
            self.markers(keys, line, at, after_header, &mut events);
        }
        // A closing tag at the end of the line ends the section it names,
        // when that section is the one being read.
        if header.map(|(tag, _)| tag) != Some(Tag::Close) {
            if let Some((open, start)) = self.open {
                let close = closing_tag_at_end(line, keys.max_name)
                    .filter(|(_, name)| find_key(&keys.keys, name, true) == Some(open));
                if let Some((offset, _)) = close {
                    let end = (at + offset).max(start);
                    self.close(open, start, end, &mut events);
                }
            }
        }
        events
    }

    /// Reads `line` as a header line: opens the section it names, or for a
    /// closing tag `</plan>` ends the section being read if it names that
    /// one. A section that ends is put in `events`. Returns the line's tag
    /// form and where its content starts, or `None` when the line is not a
    /// header of the sections.
    fn header(
        &mut self,
        keys: &Keys,
        line: &str,
        at: usize,
        events: &mut LineEvents,
    ) -> Option<(Tag, usize)> {
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
            self.fenced = !self.fenced;
        }
        self.last_line = at;
        let Some(header) = header_line(line, keys.max_name) else {
            if line.as_bytes().first().is_some_and(u8::is_ascii_digit) {
                if let Some((number, _)) = enumeration(line) {
                    self.item_number = Some(number);
                }
            }
            return None;
        };
        let section = find_key(&keys.keys, header.name, header.identifier());
        if header.tag == Tag::Close {
            // `</plan>` ends Plan when Plan is being read; any other closing
            // tag is text.
            let (open, start) = self.open.filter(|(open, _)| Some(*open) == section)?;
            self.close(open, start, at, events);
            return Some((Tag::Close, header.content_at));
        }
        if section.is_none() && header.completes() {
            // `[[ ## completed ## ]]` ends the section being read; what
            // follows belongs to no section.
            let (open, start) = self.open?;
            self.close(open, start, at, events);
            return Some((Tag::Close, header.content_at));
        }
        if header.listed {
            let number = header.number?;
            if section.is_none() || !self.numbered_header_fits(keys, number) {
                self.item_number = Some(number);
                return None;
            }
        }
        match section {
            Some(section) => {
                self.open_section(section, at, at + header.content_at, header.number, events);
                Some((header.tag, header.content_at))
            }
            None => {
                if header.marked && self.unknown.len() < MAX_UNKNOWN {
                    self.unknown.push(UnknownHeader {
                        line: trimmed.to_owned(),
                        name: header.name.to_owned(),
                        bracketed: header.bracketed,
                        after: self.open.map(|(section, _)| section).or(self.closed),
                        before: None,
                    });
                }
                // A header of no section alone on its line (`[Address]`
                // before `[Street]`, a stray `[Extra]`) is never glued into
                // the section before it: that section ends here, and what
                // follows up to the next section's header belongs to none.
                // In a JSON section a bracketed line is JSON (`[true]`).
                if !self.fenced && stray_header(&header, line) {
                    if let Some((open, start)) = self.open.filter(|&(open, _)| !keys.json[open]) {
                        self.close(open, start, at, events);
                    }
                }
                None
            }
        }
    }

    /// Reads the DSPy markers of `line` from byte `from` on: each that
    /// names a section ends the one being read and opens it, with the text
    /// after it; `[[ ## completed ## ]]` ends the one being read.
    fn markers(
        &mut self,
        keys: &Keys,
        line: &str,
        at: usize,
        from: usize,
        events: &mut LineEvents,
    ) {
        let mut from = from;
        while let Some(found) = find_marker_start(&line.as_bytes()[from..]) {
            let start = from + found;
            let Some(marker) = marker_at(&line[start..], keys.max_name) else {
                from = start + 2;
                continue;
            };
            from = start + marker.content_at;
            match find_key(&keys.keys, marker.name, true) {
                Some(section) => self.open_section(section, at + start, at + from, None, events),
                None if marker.completes() => {
                    if let Some((open, content)) = self.open {
                        self.close(open, content, at + start, events);
                    }
                }
                None => {}
            }
        }
    }

    /// Opens `section`, whose header starts at `header_at` (the start of
    /// its line, or of a marker further along it) and whose content starts
    /// at `content_at`, with the header's own `number` if it has one; the
    /// section being read ends where the header starts.
    fn open_section(
        &mut self,
        section: usize,
        header_at: usize,
        content_at: usize,
        number: Option<u32>,
        events: &mut LineEvents,
    ) {
        for header in &mut self.unknown[self.pending..] {
            header.before = Some(section);
        }
        self.pending = self.unknown.len();
        self.first_header.get_or_insert(header_at);
        if let Some((open, start)) = self.open {
            self.close(open, start, header_at, events);
        }
        self.open = Some((section, content_at));
        self.fenced = false;
        events.push(LineEvent::Opened(section));
        self.headers_read = self.headers_read.saturating_add(1);
        self.header_number = number.or(Some(self.headers_read));
        self.item_number = None;
    }

    /// Ends `section`, being read since `start`, at `end`.
    fn close(&mut self, section: usize, start: usize, end: usize, events: &mut LineEvents) {
        let end = end.max(start);
        self.spans[section] = Some((start, end));
        self.open = None;
        self.closed = Some(section);
        events.push(LineEvent::Closed(section, start, end));
    }

    /// Whether a numbered line naming a section, `number. Name`, is its
    /// header here (see [`LineScan`]): always outside a list section; inside
    /// one, when the number continues the headers' numbering and not the
    /// list's.
    fn numbered_header_fits(&self, keys: &Keys, number: u32) -> bool {
        let in_list = self.open.is_some_and(|(open, _)| keys.lists[open]);
        !in_list
            || number.checked_sub(1).is_some_and(|before| {
                self.header_number == Some(before) && self.item_number != Some(before)
            })
    }

    /// The text ends after `len` bytes: the section being read ends there,
    /// or before a closing fence when the whole reply is wrapped in one.
    /// Returns the scan and the sections that ended here, with their spans:
    /// the one being read, and any closed on the closing fence's own line
    /// (`` ```</weeks> ``), whose content now ends before that line.
    pub(crate) fn finish(mut self, len: usize) -> (Scan, Vec<(usize, usize, usize)>) {
        // An answer wrapped whole in a fence: closed on the last line, opened
        // by the first fence, before the first header (after a preamble,
        // perhaps), any fences inside paired up. Its closing line is not
        // content of the last section.
        let wrapped = self.fences >= 2
            && self.fences.is_multiple_of(2)
            && self.fence_starts[1] == self.last_line
            && self
                .first_header
                .is_some_and(|header| self.fence_starts[0] < header);
        let end = if wrapped { self.last_line } else { len };
        // Reported as closed past the fence line, they end before it now,
        // as the map says; told again (only a section closed on the last
        // line can be).
        let mut last: Vec<(usize, usize, usize)> = self
            .spans
            .iter()
            .enumerate()
            .filter_map(|(section, span)| {
                let (start, closed_end) = (*span)?;
                (closed_end > end).then_some((section, start.min(end), end))
            })
            .collect();
        if let Some((section, start)) = self.open {
            self.spans[section] = Some((start, len));
            last.retain(|&(closed, _, _)| closed != section);
            last.push((section, start.min(end), end));
        }
        let scan = Scan {
            spans: self.spans,
            unknown: self.unknown,
            end,
        };
        (scan, last)
    }
}

/// Whether `header`, naming no section, is a header line in the style the
/// guide asks for: a bracketed name (`[Extra]`, `【备注】`, a DSPy marker)
/// with nothing after it on the line, written as names are (two letters or
/// more; otherwise only digits, spaces and the joiners `-`, `_`, `'`, `&`,
/// `/`). `[1] Smith, 2020`, `[1]` alone (a footnote), `[x]` and a JSON
/// array on one line (`["a", "b"]`, `[{"k": 1}]`) are content.
fn stray_header(header: &HeaderLine<'_>, line: &str) -> bool {
    header.bracketed
        && header.tag == Tag::No
        && !header.listed
        && header.number.is_none()
        && line
            .get(header.content_at..)
            .is_some_and(|rest| rest.trim().is_empty())
        && header.name.chars().all(|c| {
            c.is_alphanumeric()
                || c.is_whitespace()
                || matches!(c, '-' | '_' | '\'' | '’' | '&' | '/')
        })
        && header
            .name
            .chars()
            .filter(|c| c.is_alphabetic())
            .nth(1)
            .is_some()
}

/// The sections that ended and began on one line, in text order (see
/// [`LineScan::line`]): usually none or one of each, more when markers
/// follow each other on the line.
pub(crate) type LineEvents = Vec<LineEvent>;

/// What a line did to the sections, in the order of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineEvent {
    /// Section `.0` ended; its content spans bytes `.1` to `.2`, untrimmed.
    Closed(usize, usize, usize),
    /// Section `.0` began (its header, or a marker, is on the line).
    Opened(usize),
}

/// Where `[[`, the start of a DSPy marker, first occurs in `bytes`. Every
/// line is searched, so the search is a byte scan for `[`: `memmem::find`
/// builds a searcher on each call, which cost more than the rest of the
/// line scan on a reply of short lines.
fn find_marker_start(bytes: &[u8]) -> Option<usize> {
    memchr_iter(b'[', bytes).find(|&at| bytes.get(at + 1) == Some(&b'['))
}

/// The section whose name or alias is `name`; in a tag (`tag`), `_` and `-`
/// count as spaces (`<research_plan>` names Research Plan).
fn find_key(keys: &[Key], name: &str, tag: bool) -> Option<usize> {
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
        .find(|key| {
            if tag {
                let spaced = |c: char| if matches!(c, '_' | '-') { ' ' } else { c };
                folded(name).map(spaced).eq(key.folded.chars().map(spaced))
            } else {
                folded(name).eq(key.folded.chars())
            }
        })
        .map(|key| key.section)
}

/// The byte range of `text[start..end]` as a section's content: trimmed,
/// without a trailing horizontal rule (`---`) that models put between
/// sections. Empty content is the empty range at `start`, right after the
/// header: where blank lines end depends on what else was removed (a
/// reasoning block among them), where the header ends does not.
pub(crate) fn content_range(text: &str, start: usize, end: usize) -> std::ops::Range<usize> {
    let span = &text[start..end];
    let content = span.trim_start();
    if content.is_empty() {
        return start..start;
    }
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
            bounds: crate::vocab::Bounds::NONE,
            signed: false,
            type_range: crate::vocab::Bounds::NONE,
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
    fn numbered_headers_on_lines_of_their_own() {
        let raw = "1. Plan\nGo east\n2) Timeline\nDay 1\n**3. Budget**\n$5";
        assert_eq!(
            sections(raw),
            some([Some("Go east"), Some("Day 1"), Some("$5"), None])
        );
        // A numbered list inside a section that is not a list: its items
        // name no section, and the next numbered header is read.
        let raw = "1. Plan\nSteps:\n1. Walk\n2. Eat\n2. Budget:\n$5";
        assert_eq!(
            sections(raw),
            some([Some("Steps:\n1. Walk\n2. Eat"), None, Some("$5"), None])
        );
        // With content on the line it is a list item, as is an indented one.
        let raw = "[Plan]\n1. Budget: $5 for food\n  2. Budget\n";
        assert_eq!(
            sections(raw)[0].as_deref(),
            Some("1. Budget: $5 for food\n  2. Budget")
        );
    }

    /// Steps is a list; Plan and Budget are text.
    static LISTED: [SectionSpec; 3] = [
        SectionSpec::new(
            "steps",
            "[Steps]",
            "Steps",
            ValueKind::List(&ValueKind::Text),
        ),
        spec("[Plan]", "Plan", &[]),
        spec("[Budget]", "Budget", &[]),
    ];

    fn listed(raw: &str) -> [Option<String>; 3] {
        let map = split_sections(raw, &LISTED);
        [0, 1, 2].map(|i| map.content(i).map(str::to_owned))
    }

    fn three(items: [Option<&str>; 3]) -> [Option<String>; 3] {
        items.map(|i| i.map(str::to_owned))
    }

    #[test]
    fn a_numbered_line_in_a_list_section_is_an_item_unless_the_headers_numbering_says_otherwise() {
        // The items name sections; the next numbered header continues the
        // headers' numbering (1 -> 2) and not the list's (2 -> 3).
        let raw = "1. Steps\n1. Plan\n2. Budget\n2. Plan\nGo east\n3. Budget\n$5";
        assert_eq!(
            listed(raw),
            three([Some("1. Plan\n2. Budget"), Some("Go east"), Some("$5")])
        );
        // Headers not numbered: a header counts as its position, so the
        // list's items stay items, and a numbered header after a list of
        // another kind follows [Steps], the first header.
        let raw = "[Steps]\n1. Plan\n2. Budget\n3. Plan\n[Plan]\nGo";
        assert_eq!(
            listed(raw),
            three([Some("1. Plan\n2. Budget\n3. Plan"), Some("Go"), None])
        );
        let raw = "[Steps]\n- Walk\n- Eat\n2. Plan\nGo\n[Budget]\n$5";
        assert_eq!(
            listed(raw),
            three([Some("- Walk\n- Eat"), Some("Go"), Some("$5")])
        );
        let raw = "Intro:\n[Budget]\n$5\n[Steps]\n1. Walk\n2. Plan";
        assert_eq!(
            listed(raw),
            three([Some("1. Walk\n2. Plan"), None, Some("$5")])
        );
        // Both numberings fit (one item, then 2): the line is an item.
        let raw = "1. Steps\n1. Walk\n2. Plan\nGo";
        assert_eq!(
            listed(raw),
            three([Some("1. Walk\n2. Plan\nGo"), None, None])
        );
        // Nested items do not count: the list's own numbering is 1.
        let raw = "1. Steps\n1. Walk\n   1. north\n   2. east\n2. Plan\nGo";
        assert_eq!(
            listed(raw),
            three([
                Some("1. Walk\n   1. north\n   2. east\n2. Plan\nGo"),
                None,
                None
            ])
        );
        let raw = "1. Steps\n1. Walk\n2. Eat\n   1. ramen\n2. Plan\nGo";
        assert_eq!(
            listed(raw),
            three([Some("1. Walk\n2. Eat\n   1. ramen"), Some("Go"), None])
        );
        // After a list section, a text section reads numbered headers again.
        let raw = "## 1. Steps\n- Walk\n2. Plan\nGo\n1. Budget\n$5";
        assert_eq!(listed(raw), three([Some("- Walk"), Some("Go"), Some("$5")]));
    }

    #[test]
    fn dspy_markers_and_the_completed_marker() {
        let raw = "[[ ## plan ## ]]\nGo east\n\n[[ ## schedule ## ]]\nDay 1\n\n\
                   [[ ## budget ## ]]\n$5\n\n[[ ## completed ## ]]\nHope this helps!";
        assert_eq!(
            sections(raw),
            some([Some("Go east"), Some("Day 1"), Some("$5"), None])
        );
        // Names written as identifiers, content on the marker's line.
        let map = split_sections(
            "[[ ## research_plan ## ]] Go\n[[ ## completed ## ]]",
            &[SectionSpec::new(
                "plan",
                "[Research Plan]",
                "Research Plan",
                ValueKind::Text,
            )],
        );
        assert_eq!(map.content(0), Some("Go"));
        // Markers written after the text they end, with no line break
        // (stanfordnlp/dspy#8379), several on one line.
        let raw = "[[ ## plan ## ]]\nGo east.[[ ## schedule ## ]]\nDay 1[[ ## budget ## ]] $5 \
                   [[ ## completed ## ]] Done.";
        assert_eq!(
            sections(raw),
            some([Some("Go east."), Some("Day 1"), Some("$5"), None])
        );
        let map = split_sections(raw, &SPECS);
        assert_eq!(&raw[map.range("Budget").unwrap()], "$5");
        // A marker naming no section is text.
        let raw = "[Plan]\nSee [[ ## other ## ]] and [[wiki]].\n";
        assert_eq!(
            sections(raw)[0].as_deref(),
            Some("See [[ ## other ## ]] and [[wiki]].")
        );
        // A section named Completed is a section, not the end.
        let map = split_sections(
            "[[ ## completed ## ]]\nyes",
            &[SectionSpec::new(
                "completed",
                "[Completed]",
                "Completed",
                ValueKind::Bool,
            )],
        );
        assert_eq!(map.content(0), Some("yes"));
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
    fn tag_pairs_are_section_boundaries() {
        // Content over several lines, on the tag lines, and text between
        // the pairs that belongs to no section.
        let raw = "Here it is.\n<plan>\nGo east\nthen north\n</plan>\nSome words between.\n\
                   <budget>$500</budget>\n<timeline>Day 1\nDay 2</timeline> trailing";
        assert_eq!(
            sections(raw),
            some([
                Some("Go east\nthen north"),
                Some("Day 1\nDay 2</timeline> trailing"),
                Some("$500"),
                None
            ])
        );
        // Aliases, case, `_`/`-` for spaces, and a closing tag indented.
        let raw = "<Schedule>\n  Day 1\n  </schedule>\n<计划>先去寺庙</计划>";
        assert_eq!(
            sections(raw),
            some([None, Some("Day 1"), None, Some("先去寺庙")])
        );
    }

    #[test]
    fn tags_mix_with_other_headers_and_stay_lenient() {
        // A bracket header after a tag pair, a tag after a bracket section
        // (which it ends), and `</plan>` at the end of a content line.
        let raw = "<plan>\nGo east</plan>\n[Budget]\n$5\n<timeline>\nDay 1";
        assert_eq!(
            sections(raw),
            some([Some("Go east"), Some("Day 1"), Some("$5"), None])
        );
        // An unclosed tag runs to the next header; a closing tag of another
        // section, or of none, is text; the last occurrence wins.
        let raw = "<plan>\ndraft\n</budget>\n</other>\n<plan>final\n[Budget] $1";
        assert_eq!(sections(raw), some([Some("final"), None, Some("$1"), None]));
        let raw = "<plan>\nA\n</budget>\n</other>\n[Budget] $1";
        assert_eq!(
            sections(raw),
            some([Some("A\n</budget>\n</other>"), None, Some("$1"), None])
        );
        // Markup that is not a tag pair of a section stays text.
        let raw = "[Plan]\n<b>bold</b>\n<a href=\"x\">link</a>\n<!-- note -->";
        assert_eq!(
            sections(raw)[0].as_deref(),
            Some("<b>bold</b>\n<a href=\"x\">link</a>\n<!-- note -->")
        );
    }

    #[test]
    fn an_unknown_tag_is_remembered_for_a_rename_hint() {
        let map = split_sections("<plan>Go</plan>\n<costs>\n$5\n</costs>", &SPECS);
        let names: Vec<&str> = map
            .unknown_headers()
            .iter()
            .map(|h| h.name.as_str())
            .collect();
        assert_eq!(names, ["costs"]);
        assert_eq!(map.unknown_headers()[0].line, "<costs>");
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
        assert!(matches!(
            map.sections[0].content.as_ref().map(|c| &c.text),
            Some(Cow::Borrowed("Go"))
        ));
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

    /// Each section's range in the reply and content, in spec order.
    fn ranges(raw: &str) -> Vec<Option<(Range<usize>, String)>> {
        let map = split_sections(raw, &SPECS);
        (0..SPECS.len())
            .map(|i| Some((map.range_at(i)?, map.content(i)?.to_owned())))
            .collect()
    }

    fn found(range: Range<usize>, content: &str) -> Option<(Range<usize>, String)> {
        Some((range, content.to_owned()))
    }

    #[test]
    fn ranges_locate_the_last_occurrence_in_the_reply_across_crlf_and_reasoning() {
        // A reasoning block with a header in it, a draft, then the final
        // sections with CRLF, a block inside [Plan] and a trailing rule.
        let raw = "<think>\r\n[Plan]\r\nnot this\r\n</think>\r\n[Plan]\r\ndraft\r\n\
                   [Budget]: $1\r\n## Plan\r\nGo<think>or west?</think> east\r\n\r\n\
                   **Budget:** $5 \r\n---\r\n";
        assert_eq!(
            ranges(raw),
            [found(75..105, "Go east"), None, found(121..123, "$5"), None]
        );
        // The range spans the block inside [Plan]; the content leaves it out.
        assert_eq!(&raw[75..105], "Go<think>or west?</think> east");
        let map = split_sections(raw, &SPECS);
        // Content with no block inside is borrowed from the reply, even
        // when the reply had a block elsewhere.
        assert!(matches!(
            map.sections[2].content.as_ref().map(|c| &c.text),
            Some(Cow::Borrowed("$5"))
        ));
        assert_eq!(map.range("budget"), Some(121..123));
        assert_eq!(map.range("Timeline"), None);
        assert_eq!(map.into_owned().range("[Plan]"), Some(75..105));
    }

    #[test]
    fn ranges_after_a_leading_block_point_into_the_reply() {
        let raw = "<think>\n[Budget]\n$9\n</think>\n\n[Plan]\r\nGo\r\n[Budget]\r\n\r\n$5\r\n";
        assert_eq!(
            ranges(raw),
            [found(38..40, "Go"), None, found(54..56, "$5"), None]
        );
        // A lone closing tag: everything before it was reasoning.
        let raw = "draft [Plan] x\n</think>\n[Plan]\nfinal";
        assert_eq!(ranges(raw)[0], found(31..36, "final"));
        // A block right after the content is not part of its range.
        let raw = "[Plan]\nGo<think>x</think>\n[Budget]\n5";
        assert_eq!(ranges(raw)[0], found(7..9, "Go"));
    }

    #[test]
    fn an_empty_section_has_an_empty_range_right_after_its_header() {
        assert_eq!(
            ranges("[Plan]\n\n[Budget]"),
            [found(6..6, ""), None, found(16..16, ""), None]
        );
        // The same whatever blank lines and blocks follow.
        let raw = "[Plan]:  \n\n<think>\n[Budget]\n9\n</think>\n\n";
        assert_eq!(ranges(raw)[0], found(9..9, ""));
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
