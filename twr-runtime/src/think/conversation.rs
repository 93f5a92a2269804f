//! The private retry conversation and the patch merge of sections.

use std::ops::Range;

use super::outcome::SectionSource;
use crate::model::{Message, Role};
use crate::parse::{split_sections, SectionMap};
use crate::sections::{Presence, SectionSpec, WaysSpec};
use crate::text::SharedText;

/// The private conversation of one run.
///
/// Each request is the caller's system message, the demonstrations, the
/// caller's history, the prompt with the format guide, and at most one failed exchange: the latest failed reply
/// and the message sent back about it. Older failures are dropped so the
/// context stays small and the model is not anchored on its earlier
/// mistakes. The full exchange is still kept in a log for the outcome.
pub(crate) struct Conversation {
    base: Vec<Message>,
    /// How many messages of `base`, from the first, every request of the
    /// program repeats (see [`Conversation::sharing`]).
    shared: usize,
    latest: Option<[Message; 2]>,
    log: Vec<Message>,
}

impl Conversation {
    pub(crate) fn new(
        system: Option<&str>,
        demonstrations: &[Message],
        history: &[Message],
        prompt: Message,
    ) -> Self {
        let mut base = Vec::with_capacity(demonstrations.len() + history.len() + 2);
        if let Some(system) = system {
            base.push(Message::system(system));
        }
        base.extend_from_slice(demonstrations);
        base.extend_from_slice(history);
        let shared = base.len();
        base.push(prompt);
        Conversation {
            log: base.clone(),
            base,
            shared,
            latest: None,
        }
    }

    /// The same conversation, where only the first `pairs` demonstrations
    /// are the same for every prompt (the ones after them were picked for
    /// this prompt); `None`: all of them, and the history, are. Everything
    /// before the prompt is shared unless told otherwise.
    pub(crate) fn sharing(mut self, pairs: Option<usize>) -> Self {
        if let Some(pairs) = pairs {
            let system = usize::from(self.base.first().is_some_and(|m| m.role == Role::System));
            self.shared = self.shared.min(system + 2 * pairs);
        }
        self
    }

    /// How many messages of each request, from the first, every request of
    /// the program repeats whatever its prompt ([`Request::shared_prefix`]):
    /// the system text, the demonstrations written for the `Think`, and,
    /// when none was learned for this prompt, the rest of the
    /// demonstrations and the history.
    ///
    /// [`Request::shared_prefix`]: crate::model::Request::shared_prefix
    pub(crate) fn shared_prefix(&self) -> usize {
        self.shared
    }

    /// [`Message::check_attachments`] for every message of the requests
    /// (the retry traffic is text): the first problem.
    pub(crate) fn check_attachments(&self) -> Result<(), crate::model::AttachmentError> {
        self.base.iter().try_for_each(Message::check_attachments)
    }

    /// The messages of the next request: the attachments of the base are
    /// shared, each sent once, in the message that carries it.
    pub(crate) fn request(&self) -> Vec<Message> {
        let mut messages = self.base.clone();
        if let Some(latest) = &self.latest {
            messages.extend_from_slice(latest);
        }
        messages
    }

    /// Logs a reply of the model (shared, not copied).
    pub(crate) fn log_reply(&mut self, raw: &SharedText) {
        self.log.push(Message::assistant(raw));
    }

    /// Replaces the failed exchange with `reply` (the failed reply, or its
    /// bounded form) and the `message` about it.
    pub(crate) fn send_back(&mut self, reply: SharedText, message: &str) {
        let message = Message::user(message);
        self.log.push(message.clone());
        self.latest = Some([Message::assistant(reply), message]);
    }

    /// The full log: base messages, then every reply and message sent back.
    pub(crate) fn into_transcript(self) -> Vec<Message> {
        self.log
    }
}

/// The newest content of each section received so far, for patch retries.
///
/// The merge is done on text, not on typed values: for each section the
/// newest reply that contained it wins, the sections are written out again
/// as `[Header]\ncontent` in declaration order, and the result goes through
/// the type's own parser. Validation therefore runs on exactly what a single
/// complete reply would have given, and cross-section validators still see
/// the whole value.
///
/// With ways to answer (an enum deriving `Sections`), a reply that writes
/// the sections of one way of an enum drops those kept
/// of its other ways: a patch stays within the chosen way, and a reply that
/// switches ways is read as a new answer, not merged with the old way's.
pub(crate) struct SectionStore {
    specs: &'static [SectionSpec],
    ways: &'static [WaysSpec],
    slots: Vec<Option<(String, usize)>>,
}

impl SectionStore {
    pub(crate) fn new(specs: &'static [SectionSpec], ways: &'static [WaysSpec]) -> Self {
        SectionStore {
            specs,
            ways,
            slots: vec![None; specs.len()],
        }
    }

    /// Takes the sections present in `raw`, the reply of attempt `attempt`.
    ///
    /// With `truncated`, the section that ends the reply is left out: the
    /// token limit may have cut it mid-sentence, and a cut section that still
    /// parses (a list missing its last items, a number missing digits) would
    /// be silently wrong. Returns the headers taken.
    pub(crate) fn absorb(
        &mut self,
        raw: &str,
        attempt: usize,
        truncated: bool,
    ) -> Vec<&'static str> {
        self.absorb_sections(&split_sections(raw, self.specs), attempt, truncated)
    }

    /// As [`absorb`](Self::absorb), from the reply's sections found already
    /// (split with this store's specs).
    pub(crate) fn absorb_sections(
        &mut self,
        map: &SectionMap<'_>,
        attempt: usize,
        truncated: bool,
    ) -> Vec<&'static str> {
        // Each section found, with where its content starts in the reply.
        let found: Vec<(usize, &str, usize)> = (0..self.specs.len())
            .filter_map(|index| Some((index, map.content(index)?, map.range_at(index)?.start)))
            .collect();
        let last = found.iter().map(|&(_, _, start)| start).max();
        let present: Vec<usize> = found.iter().map(|&(index, _, _)| index).collect();
        for enum_ways in self.ways {
            if let Some(chosen) = single_way(enum_ways, &present) {
                for (index, slot) in self.slots.iter_mut().enumerate() {
                    let other_way = enum_ways.way_of(index).is_some_and(|way| way != chosen);
                    if other_way {
                        *slot = None;
                    }
                }
            }
        }
        let mut taken = Vec::new();
        for (index, content, start) in found {
            if truncated && Some(start) == last {
                continue;
            }
            self.slots[index] = Some((content.trim().to_string(), attempt));
            taken.push(self.specs[index].header);
        }
        taken
    }

    /// Takes `content` as the section at `index`, from attempt `attempt`.
    pub(crate) fn put(&mut self, index: usize, content: &str, attempt: usize) {
        if let Some(slot) = self.slots.get_mut(index) {
            *slot = Some((content.trim().to_string(), attempt));
        }
    }

    /// Writes `none` (`N/A`) for every optional section not known, in a
    /// type without ways to answer (where an absent
    /// section may belong to a way not taken).
    pub(crate) fn fill_absent_optional(&mut self, none: &str) {
        if !self.ways.is_empty() {
            return;
        }
        for (spec, slot) in self.specs.iter().zip(&mut self.slots) {
            if slot.is_none() && spec.presence == Presence::Optional {
                *slot = Some((none.to_string(), 0));
            }
        }
    }

    /// True when some section came from an attempt before `attempt`.
    pub(crate) fn has_earlier_than(&self, attempt: usize) -> bool {
        self.slots.iter().flatten().any(|(_, from)| *from < attempt)
    }

    /// The merged answer: each known section under its header, in
    /// declaration order.
    pub(crate) fn render(&self) -> String {
        self.render_except(None)
    }

    /// As [`render`](Self::render), without the section at `skip`.
    pub(crate) fn render_except(&self, skip: Option<usize>) -> String {
        self.write(skip).0
    }

    /// The merged answer, and its sections as [`split_sections`] finds
    /// them in it: the store knows where it wrote each one, so the answer
    /// is not read again to find them.
    pub(crate) fn render_split(&self) -> (String, Vec<Option<Range<usize>>>) {
        self.write(None)
    }

    /// The merged answer without the section at `skip`, and where each
    /// section's content lies in it.
    fn write(&self, skip: Option<usize>) -> (String, Vec<Option<Range<usize>>>) {
        let mut text = String::new();
        let mut ranges = vec![None; self.specs.len()];
        for (index, (spec, slot)) in self.specs.iter().zip(&self.slots).enumerate() {
            if Some(index) == skip {
                continue;
            }
            if let Some((content, _)) = slot {
                if !text.is_empty() {
                    text.push_str("\n\n");
                }
                text.push_str(spec.header);
                text.push('\n');
                ranges[index] = Some(text.len()..text.len() + content.len());
                text.push_str(content);
            }
        }
        (text, ranges)
    }

    /// Where each known section came from.
    pub(crate) fn sources(&self) -> Vec<SectionSource> {
        self.specs
            .iter()
            .zip(&self.slots)
            .filter_map(|(spec, slot)| {
                slot.as_ref().map(|(_, attempt)| SectionSource {
                    header: spec.header,
                    attempt: *attempt,
                })
            })
            .collect()
    }

    /// For each section, its newest text and the attempt it came from.
    pub(crate) fn slots(&self) -> impl Iterator<Item = Option<(&str, usize)>> + '_ {
        self.slots
            .iter()
            .map(|slot| slot.as_ref().map(|(text, from)| (text.as_str(), *from)))
    }

    /// The headers of the sections received so far.
    pub(crate) fn headers_present(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.specs
            .iter()
            .zip(&self.slots)
            .filter(|(_, slot)| slot.is_some())
            .map(|(spec, _)| spec.header)
    }
}

/// The one way of `enum_ways` that sections at positions `present` belong to;
/// `None` when they belong to none of its ways, or to several.
pub(crate) fn single_way(enum_ways: &WaysSpec, present: &[usize]) -> Option<usize> {
    let mut ways = present.iter().filter_map(|&index| enum_ways.way_of(index));
    let first = ways.next()?;
    ways.all(|way| way == first).then_some(first)
}
