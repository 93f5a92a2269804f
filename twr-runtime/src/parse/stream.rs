//! The incremental section parser: a reply read chunk by chunk as it
//! streams, each section reported the moment it is complete.
//!
//! Chunks may end anywhere: mid-line, mid-header, inside a `<think>` tag, in
//! the middle of a code fence or between the `\r` and `\n` of a line break.
//! The reader runs the same steps as [`split_sections`](super::split_sections)
//! on a whole reply, each one incremental:
//!
//! 1. each chunk is appended to the reply; when it brings a line break, the
//!    text received since the last one goes through the reasoning-tag
//!    lexer, which passes on only the text outside reasoning blocks, holding
//!    back at most one tag's length (nothing can close before a line ends,
//!    and a stream of small chunks costs one lexer call per line, not per
//!    chunk);
//! 2. that text is the reply itself while it is one stretch of it (no
//!    block, or one before it), else a buffer of its own; each line is read
//!    by the same line scanner the whole-reply parser uses, once, when its
//!    `\n` arrives (the search for the `\n` starts where the last one
//!    stopped);
//! 3. a header line of the struct closes the section being read: that
//!    section is complete and reported; the end of the reply closes the last.
//!
//! So each byte is looked at a bounded number of times whatever the number
//! of chunks, and the text received is never scanned again from the start.
//! `benches/streaming.rs` measures it: a 1.43 MB reply in 100,000 chunks,
//! value included, within 1.5x of one whole `parse_sections`.
//!
//! Some whole-reply rules need the end to decide: the last occurrence of a
//! header wins, and a reply wrapped whole in a code fence loses its closing
//! fence. A section is reported complete when it is closed (its text never
//! changes after that; a later occurrence of the same header is reported
//! again, and the last one reported is the one the value uses). The value is
//! computed once, at the end, from the sections the scanner recorded, by
//! the same rules and the same code as `parse_sections`, without splitting
//! the reply again (for a derived type; a hand-written one parses the
//! reply): it is always exactly what `parse_sections` gives on the whole
//! text.

use std::marker::PhantomData;
use std::ops::Range;

use super::prepare::Offsets;
use super::sections::Sections;
use super::split::{content_range, Keys, LineEvent, LineScan, Scan, SectionMap};
use crate::byte_search::find_byte;
use crate::feedback::Feedback;
use crate::reasoning::{Event, Lexer, Policy};
use crate::vocab::SectionSpec;

/// What the stream can tell after a chunk (or at the end).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// A header line of the struct arrived: its section starts, and its
    /// text follows. For an enum of section sets, the first one tells the
    /// way the reply takes.
    Opened(OpenedSection),
    /// A section is complete: the next header line of the struct arrived,
    /// or the reply ended.
    Closed(ClosedSection),
    /// A closing `</think>` came before any opening tag: everything before
    /// it was reasoning (the chat template opened the block in the prompt),
    /// so the sections reported so far are void and reading starts again.
    Restart,
}

/// A section that is complete; its text is [`SectionStream::content`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClosedSection {
    /// The section's position in `T::specs()`.
    pub index: usize,
    /// The header as shown to the model, with brackets (`[Plan]`).
    pub header: &'static str,
    /// The Rust field name.
    pub field: &'static str,
    /// The trimmed content's byte range in [`SectionStream::text`].
    pub range: Range<usize>,
}

/// A section whose header line arrived; its text is still to come.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OpenedSection {
    /// The section's position in `T::specs()`.
    pub index: usize,
    /// The header as shown to the model, with brackets (`[Plan]`).
    pub header: &'static str,
    /// The Rust field name.
    pub field: &'static str,
}

/// Reads a reply of `T`'s sections chunk by chunk.
///
/// ```
/// use twr_runtime::parse::{SectionStream, StreamEvent};
/// use twr_runtime::Sections;
///
/// #[derive(Debug, PartialEq, Sections)]
/// struct Trip {
///     plan: String,
///     days: u32,
/// }
///
/// let mut stream = SectionStream::<Trip>::new();
/// let mut closed = Vec::new();
/// for chunk in ["[Pl", "an]\nSee the tem", "ples\n[Da", "ys]\n", "3"] {
///     for event in stream.push(chunk) {
///         if let StreamEvent::Closed(section) = event {
///             closed.push(format!("{} = {:?}", section.header, stream.content(&section)));
///         }
///     }
/// }
/// // [Plan] was complete as soon as the [Days] header line ended.
/// assert_eq!(closed, ["[Plan] = \"See the temples\""]);
/// stream.finish();
/// assert_eq!(stream.value(), Trip::parse_sections("[Plan]\nSee the temples\n[Days]\n3"));
/// ```
pub struct SectionStream<T> {
    reader: StreamReader,
    _value: PhantomData<fn() -> T>,
}

/// The machinery of [`SectionStream`], for any list of sections: the
/// stream is this reader and the type whose sections it reads.
pub(crate) struct StreamReader {
    specs: &'static [SectionSpec],
    keys: Keys,
    lexer: Lexer,
    /// Everything pushed, as received.
    raw: String,
    /// The text outside reasoning blocks, as far as the lexer could tell.
    text: Visible,
    /// Where the stretches of `text` lie in `raw`.
    offsets: Offsets,
    /// How much of `raw` went through the lexer.
    lexed: usize,
    /// Where the line being received starts in `text`.
    line_start: usize,
    /// `text[line_start..searched]` holds no `\n`.
    searched: usize,
    lines: LineScan,
    /// After [`StreamReader::finish`]: what the scan recorded.
    ended: Option<Scan>,
}

impl<T: Sections> Default for SectionStream<T> {
    fn default() -> Self {
        SectionStream::new()
    }
}

impl<T: Sections> SectionStream<T> {
    /// A stream at the start of a reply.
    pub fn new() -> Self {
        SectionStream {
            reader: StreamReader::new(T::specs()),
            _value: PhantomData,
        }
    }

    /// Reads the next chunk; returns the sections it completed, in order.
    /// Chunks pushed after [`SectionStream::finish`] are ignored.
    #[inline]
    pub fn push(&mut self, chunk: &str) -> Vec<StreamEvent> {
        self.reader.push(chunk)
    }

    /// Ends the reply: the last section is complete. Returns what the end
    /// completed (a tag held back by the lexer may still add text). Calling
    /// it again returns nothing.
    pub fn finish(&mut self) -> Vec<StreamEvent> {
        self.reader.finish()
    }

    /// The value: exactly what `T::parse_sections` gives on [`raw`](Self::raw),
    /// the same value or the same problems. Call it after
    /// [`finish`](Self::finish); before, it reads the reply received so far
    /// as if it ended there.
    pub fn value(&self) -> Result<T, Feedback> {
        match self.reader.sections() {
            // The sections the stream found are the ones a whole parse
            // would find: the reply is not split again.
            Some(sections) => T::parse_sections_split(self.reader.raw(), sections).0,
            None => T::parse_sections(self.reader.raw()),
        }
    }

    /// The sections found, as [`split_sections`](super::split_sections)
    /// finds them in the whole reply (their ranges are in
    /// [`raw`](Self::raw)); `None` before [`finish`](Self::finish).
    pub fn sections(&self) -> Option<SectionMap<'_>> {
        self.reader.sections()
    }

    /// The content of a section reported by this stream.
    pub fn content(&self, section: &ClosedSection) -> &str {
        self.reader.content(section)
    }

    /// Everything pushed so far, as received.
    pub fn raw(&self) -> &str {
        self.reader.raw()
    }

    /// The text outside reasoning blocks received so far, up to the last
    /// line break (text after it is read with the rest of its line; a tag
    /// not yet complete is held back).
    pub fn text(&self) -> &str {
        self.reader.text()
    }
}

impl StreamReader {
    /// A reader of `specs` at the start of a reply.
    pub(crate) fn new(specs: &'static [SectionSpec]) -> Self {
        let keys = Keys::of_specs(specs);
        StreamReader {
            specs,
            lines: LineScan::new(&keys),
            keys,
            lexer: Lexer::new(Policy::SECTIONS),
            raw: String::new(),
            text: Visible::default(),
            offsets: Offsets::default(),
            line_start: 0,
            lexed: 0,
            searched: 0,
            ended: None,
        }
    }

    /// Reads the next chunk; returns the sections it completed, in order.
    /// Chunks pushed after [`SectionStream::finish`] are ignored.
    #[inline]
    pub(crate) fn push(&mut self, chunk: &str) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        if self.ended.is_some() {
            return events;
        }
        self.raw.push_str(chunk);
        // A section can only close when a line ends: until a chunk brings a
        // line break, its text waits in `raw` and is read with the chunks
        // after it, which saves a lexer call per small chunk. Text with no
        // `<` in it needs no lexer at all.
        if find_byte(b'\n', chunk.as_bytes()).is_some() {
            self.lex(&mut events);
            self.read_lines(&mut events);
        }
        events
    }

    /// Passes the text received since the last call through the lexer.
    fn lex(&mut self, events: &mut Vec<StreamEvent>) {
        let fresh = &self.raw[self.lexed..];
        self.lexed = self.raw.len();
        let mut restart = false;
        self.lexer.feed(
            fresh,
            &mut visible_text(&self.raw, &mut self.text, &mut self.offsets, &mut restart),
        );
        if restart {
            self.restart(events);
        }
    }

    /// Ends the reply: the last section is complete. Returns what the end
    /// completed (a tag held back by the lexer may still add text). Calling
    /// it again returns nothing.
    pub(crate) fn finish(&mut self) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        if self.ended.is_some() {
            return events;
        }
        self.lex(&mut events);
        let lexer = std::mem::replace(&mut self.lexer, Lexer::new(Policy::SECTIONS));
        let mut restart = false;
        lexer.finish(&mut visible_text(
            &self.raw,
            &mut self.text,
            &mut self.offsets,
            &mut restart,
        ));
        if restart {
            self.restart(&mut events);
        }
        self.read_lines(&mut events);
        let text_len = self.text.len();
        if self.line_start < text_len {
            let start = self.line_start;
            let line = &self.text.get(&self.raw)[start..];
            let found = self.lines.line(&self.keys, line, start);
            let text = self.text.get(&self.raw);
            line_events(self.specs, text, found, &mut events);
            self.line_start = text_len;
        }
        let lines = std::mem::replace(&mut self.lines, LineScan::new(&self.keys));
        let (scan, last) = lines.finish(text_len);
        for last in last {
            events.push(self.closed(last));
        }
        self.ended = Some(scan);
        events
    }

    /// The sections found, as [`split_sections`](super::split_sections)
    /// finds them in the whole reply (their ranges are in
    /// [`raw`](Self::raw)); `None` before [`finish`](Self::finish).
    pub(crate) fn sections(&self) -> Option<SectionMap<'_>> {
        let scan = self.ended.as_ref()?;
        Some(scan.map(self.specs, self.text.get(&self.raw), &self.offsets))
    }

    /// The content of a section reported by this stream.
    pub(crate) fn content(&self, section: &ClosedSection) -> &str {
        self.text
            .get(&self.raw)
            .get(section.range.clone())
            .unwrap_or_default()
    }

    /// Everything pushed so far, as received.
    pub(crate) fn raw(&self) -> &str {
        &self.raw
    }

    /// The text outside reasoning blocks received so far (a tag not yet
    /// complete is held back).
    pub(crate) fn text(&self) -> &str {
        self.text.get(&self.raw)
    }

    /// The text so far was reasoning: read from the start again.
    fn restart(&mut self, events: &mut Vec<StreamEvent>) {
        self.line_start = 0;
        self.searched = 0;
        self.lines = LineScan::new(&self.keys);
        events.push(StreamEvent::Restart);
    }

    /// Reads every line that ended since the last call.
    fn read_lines(&mut self, events: &mut Vec<StreamEvent>) {
        let text = self.text.get(&self.raw);
        while let Some(found) = find_byte(b'\n', &text.as_bytes()[self.searched..]) {
            let end = self.searched + found;
            let start = self.line_start;
            let found = self.lines.line(&self.keys, &text[start..end], start);
            line_events(self.specs, text, found, events);
            self.line_start = end + 1;
            self.searched = end + 1;
        }
        self.searched = text.len();
    }

    fn closed(&self, found: (usize, usize, usize)) -> StreamEvent {
        closed(self.specs, self.text.get(&self.raw), found)
    }
}

/// The events of one line, in text order: the sections it closed and
/// opened (a header line closes the section being read and opens its own; a
/// closing tag at its end closes one; DSPy markers along it do both).
fn line_events(
    specs: &[SectionSpec],
    text: &str,
    found: super::split::LineEvents,
    events: &mut Vec<StreamEvent>,
) {
    for event in found {
        match event {
            LineEvent::Closed(index, start, end) => {
                events.push(closed(specs, text, (index, start, end)));
            }
            LineEvent::Opened(index) => {
                if let Some(spec) = specs.get(index) {
                    events.push(StreamEvent::Opened(OpenedSection {
                        index,
                        header: spec.header,
                        field: spec.field,
                    }));
                }
            }
        }
    }
}

/// The event of the section at `index` of `specs`, whose content spans
/// `start..end` of `text`, untrimmed.
fn closed(
    specs: &[SectionSpec],
    text: &str,
    (index, start, end): (usize, usize, usize),
) -> StreamEvent {
    let spec = &specs[index];
    StreamEvent::Closed(ClosedSection {
        index,
        header: spec.header,
        field: spec.field,
        range: content_range(text, start, end),
    })
}

/// The text outside reasoning blocks. While it is one stretch of the reply
/// (no tags at all, or only a block before it) it is that slice of the
/// reply, not a copy: a long reply is held once. It becomes a text of its
/// own the first time a block cuts it in two.
#[derive(Default)]
struct Visible {
    /// Where the slice starts in the reply, and its length.
    start: usize,
    len: usize,
    /// The text, once it is not one slice of the reply.
    owned: Option<String>,
}

impl Visible {
    fn get<'a>(&'a self, raw: &'a str) -> &'a str {
        match &self.owned {
            Some(text) => text,
            None => raw
                .get(self.start..self.start + self.len)
                .unwrap_or_default(),
        }
    }

    fn len(&self) -> usize {
        self.owned.as_ref().map_or(self.len, String::len)
    }

    /// Adds `piece`, found at `at` in `raw`.
    fn push(&mut self, raw: &str, piece: &str, at: usize) {
        match &mut self.owned {
            Some(text) => text.push_str(piece),
            None if self.len == 0 => {
                self.start = at;
                self.len = piece.len();
            }
            None if at == self.start + self.len => self.len += piece.len(),
            None => {
                let mut text = String::with_capacity(self.len + piece.len());
                text.push_str(self.get(raw));
                text.push_str(piece);
                self.owned = Some(text);
            }
        }
    }

    fn clear(&mut self) {
        *self = Visible::default();
    }
}

/// What the lexer reports, kept as the visible text: content appended
/// (with where it lies in the reply), reasoning dropped, and on a lone
/// closing tag the text so far dropped too (it was reasoning), with
/// `restart` set.
fn visible_text<'a>(
    raw: &'a str,
    text: &'a mut Visible,
    offsets: &'a mut Offsets,
    restart: &'a mut bool,
) -> impl FnMut(Event<'_>) + 'a {
    move |event| match event {
        Event::Content { text: piece, at } => {
            offsets.push(text.len(), at);
            text.push(raw, piece, at);
        }
        Event::LoneClose => {
            text.clear();
            offsets.clear();
            *restart = true;
        }
        Event::Reasoning { .. } | Event::Open | Event::Close => {}
    }
}
