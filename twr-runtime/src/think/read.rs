//! Reading one reply: parse it, merge it with earlier sections, and decide
//! what to send back when it does not parse.

use std::mem::Discriminant;
use std::ops::Range;

use super::attempt::{self, Asking, Full, Patch, Strategy};
use super::bare;
use super::conversation::{single_way, SectionStore};
use super::focus;
use super::junk::{self, Said};
use super::messages::Then;
use super::outcome::{AttemptKind, SectionSource};
use crate::feedback::{Feedback, ProblemKind, Wording};
use crate::grammar::Grammar;
use crate::json::JsonProvenance;
use crate::parse::typed::TypedSections;
use crate::parse::{split_sections, SectionMap};
use crate::phrases::{fill, phrases};
use crate::sections::Lang;
use crate::sections::{Presence, Sections, ValueKind};
use crate::sections::{SectionSpec, WaysSpec};

/// What an answer must be and how a reply is read as one: the parser
/// (which returns, beside its result, how the JSON it read was obtained;
/// given the reply's sections when they were found already), and for
/// `Sections` types the guide and the specs that make patch merges
/// possible. (Not [`grammar::Format`](crate::grammar::Format), a grammar's
/// rendering.)
pub(crate) struct AnswerSpec<F> {
    pub(crate) parse: F,
    pub(crate) guide: Option<String>,
    pub(crate) specs: Option<&'static [SectionSpec]>,
    /// The ways to answer among the specs' sections (empty without).
    pub(crate) ways: &'static [WaysSpec],
    pub(crate) lang: Option<Lang>,
    /// Builds the grammar of a whole answer, for constrained attempts
    /// (`Sections` types only); built when an attempt is first constrained.
    pub(crate) grammar: Option<fn() -> Grammar>,
}

/// What a parser returns: the value or the problems, and how the JSON it
/// read was obtained.
pub(crate) type Parsed<U> = (Result<U, Feedback>, Vec<JsonProvenance>);

/// How a `Sections` type reads a reply: from its sections when the reader
/// has already found them (the reader splits each reply once, for every
/// step that needs its sections), else from the text; a section `typed`
/// holds with the same content is not read again, and the values of the
/// sections read are left there when the type is not.
pub(crate) fn sections_of<'a, T: Sections>(
    raw: &'a str,
    sections: Option<SectionMap<'a>>,
    typed: &mut TypedSections,
) -> Parsed<T> {
    let sections = sections.unwrap_or_else(|| split_sections(raw, T::specs()));
    T::parse_sections_typed(raw, sections, typed)
}

/// What became of one reply.
pub(crate) enum Verdict<U> {
    /// A value: from the reply alone ([`AttemptKind::Accepted`]) or merged
    /// with earlier sections ([`AttemptKind::Merged`]); `answer` is the text
    /// it was parsed from when that is not the reply itself.
    Value {
        value: U,
        kind: AttemptKind,
        answer: Option<String>,
        /// How each JSON section of the value was read.
        json: Vec<JsonProvenance>,
    },
    /// Format problems, and the message that asks for the fix; `kind` is
    /// [`AttemptKind::Rejected`], or [`AttemptKind::Focused`] for the reply
    /// to a focused question.
    Rejected {
        problems: Feedback,
        message: String,
        kind: AttemptKind,
    },
    /// Cut off by the token limit; the message asks for a shorter answer.
    Truncated { message: String },
}

/// Reads the replies of one run, remembering what patch merges and
/// escalation need.
pub(crate) struct Reader<F> {
    format: AnswerSpec<F>,
    /// The values of the sections read so far in the run, with the content
    /// each was read from: a section is typed once per run.
    typed: TypedSections,
    /// The newest content of each section, in patch mode only.
    store: Option<SectionStore>,
    /// The problems of the previous rejected reply, to notice repeats.
    previous: Option<Vec<ProblemKey>>,
    /// What the last message asked for: the next attempt's kind.
    asked: Strategy,
    /// Per section: whether a patch retry has asked for it, after which a
    /// section still wrong gets a focused question.
    patched: Vec<bool>,
    /// Whether focused questions are asked (`Think::focused_questions`).
    focused: bool,
    /// Whether the next attempt is sent with a grammar: then a focused
    /// question (whose grammar is one section's value) is asked only when
    /// one section fails, and a patch of every failing section otherwise,
    /// so that a constrained last attempt can finish the answer.
    next_constrained: bool,
    /// Whether the model has shown in this run that it does not follow the
    /// format: it copied the guide, or answered a second time with no
    /// header at all. From then on each failing section gets a focused
    /// question at once, instead of a patch retry it would fumble first.
    struggling: bool,
    /// What the model is shown as its previous reply before the next
    /// request, when not the reply itself: the answer so far, before a
    /// focused question.
    shown: Option<String>,
    /// How feedback is worded (`Think::feedback_wording`).
    wording: Wording,
    /// How the last message about problems was worded; `None` after a
    /// reply that gave a value, was cut off, or only acknowledged.
    worded: Option<Wording>,
    /// The sentences the loop wrote to the model in this run (the guide,
    /// each message sent back): a section whose value repeats one counts
    /// as empty (see think/junk.rs).
    said: Said,
}

impl<U, F> Reader<F>
where
    F: for<'a> Fn(&'a str, Option<SectionMap<'a>>, &mut TypedSections) -> Parsed<U>,
{
    /// A reader that merges sections when `patch` is set and the format has
    /// specs.
    pub(crate) fn new(format: AnswerSpec<F>, patch: bool, focused: bool, wording: Wording) -> Self {
        let store = match (patch, format.specs) {
            (true, Some(specs)) => Some(SectionStore::new(specs, format.ways)),
            _ => None,
        };
        let sections = format.specs.map_or(0, <[SectionSpec]>::len);
        let mut said = Said::default();
        if let Some(guide) = &format.guide {
            let examples: Vec<&str> = format
                .specs
                .unwrap_or_default()
                .iter()
                .flat_map(|spec| spec.example.lines())
                .collect();
            said.add(guide, &examples);
        }
        Reader {
            said,
            format,
            typed: TypedSections::default(),
            store,
            previous: None,
            asked: Strategy::first(),
            patched: vec![false; sections],
            focused,
            next_constrained: false,
            // Focused questions from the first feedback on are what the
            // reader asks a model that struggles.
            struggling: wording == Wording::Focused,
            shown: None,
            wording,
            worded: None,
        }
    }

    /// Remembers `message`, sent to the model, so that a value repeating
    /// one of its sentences counts as empty.
    pub(crate) fn sent(&mut self, message: &str) {
        self.said.add(message, &[]);
    }

    /// Parses `text` (whose sections may be found already), each section
    /// whose value is junk left empty (see think/junk.rs).
    fn parse(&mut self, text: &str, sections: Option<SectionMap<'_>>) -> Parsed<U> {
        let sections = scrubbed(&self.format, &self.said, text, sections);
        (self.format.parse)(text, sections, &mut self.typed)
    }

    /// Takes in the values of sections typed elsewhere in the run (as the
    /// reply streamed): for a section both hold, those.
    pub(crate) fn adopt_typed(&mut self, typed: TypedSections) {
        self.typed.absorb(typed);
    }

    /// How the last message about problems was worded (see
    /// [`Reader::worded`]).
    pub(crate) fn worded(&self) -> Option<Wording> {
        self.worded
    }

    /// What a message about problems says after its request: that the
    /// same problems came twice (`repeated`), with the guide; the guide
    /// alone, when the wording shows it from the start; or nothing.
    fn then(&self, repeated: bool) -> Then<'_> {
        let guide = self.format.guide.as_deref();
        match (repeated, guide) {
            (true, guide) => Then::Repeated(guide),
            (false, Some(guide)) if self.wording == Wording::WithExample => Then::Guide(guide),
            (false, _) => Then::Nothing,
        }
    }

    /// The message that asks for `next` after a reply with `problems`
    /// (`headers`, the failing sections; `stopped`, whether it was stopped
    /// as it streamed), which `repeated` the previous reply's problems.
    /// Notes how it is worded, and that `next` is what it asks for.
    fn ask(
        &mut self,
        next: Strategy,
        problems: &Feedback,
        headers: &[&str],
        stopped: bool,
        repeated: bool,
    ) -> String {
        let then = self.then(repeated);
        let worded = next.wording(&then);
        let message = next.ask(Asking {
            lang: self.lang(Some(problems)),
            feedback: problems,
            headers,
            specs: self.format.specs,
            ways: self.format.ways,
            stopped,
            then,
        });
        self.worded = Some(worded);
        self.asked = next;
        message
    }

    /// Reads `raw`, the reply of attempt `number`.
    pub(crate) fn read(&mut self, raw: &str, number: usize, truncated: bool) -> Verdict<U> {
        self.read_split(raw, None, number, truncated)
    }

    /// As [`read`](Self::read), given the reply's sections when they were
    /// found already (as it streamed), with the specs of the format.
    pub(crate) fn read_split<'a>(
        &mut self,
        raw: &'a str,
        found: Option<SectionMap<'a>>,
        number: usize,
        truncated: bool,
    ) -> Verdict<U> {
        self.worded = None;
        let asked = std::mem::replace(&mut self.asked, Strategy::full());
        let kind = |read| asked.outcome(read);
        if truncated {
            self.previous = None;
            return self.read_truncated(raw, number);
        }
        // The reply is split into its sections once, here: each step below
        // that needs them is handed this map.
        let sections = match found {
            Some(found) if self.format.specs.is_some() => Some(found),
            _ => self.format.specs.map(|specs| split_sections(raw, specs)),
        };
        let headerless = match (self.format.specs, &sections) {
            (Some(specs), Some(map)) => specs.iter().all(|spec| map.get(spec.header).is_none()),
            _ => false,
        };
        // Asked for one section, the model may answer with the bare
        // content: read the whole reply as that section; or with the content
        // first and the header after it, empty ("Yes\n[Recommend]"): read
        // what comes before the first header as that section.
        let bare_text = match (asked.one(), self.format.specs) {
            (Some(index), Some(specs)) => specs.get(index).and_then(|spec| {
                let source = if headerless {
                    raw
                } else {
                    bare::before_empty_section(raw, specs, index)?
                };
                let answer = bare::answer_to(source, spec.kind == ValueKind::Bool);
                (!answer.is_empty()).then(|| format!("{}\n{answer}", spec.header))
            }),
            _ => None,
        };
        let text = bare_text.as_deref().unwrap_or(raw);
        // The sections found are those of `text` unless a bare answer was
        // rewritten under its header.
        let sections = if bare_text.is_none() { sections } else { None };
        // A reply to a patch retry or a focused question is part of an
        // answer: read alone, it would drop the sections kept from earlier
        // replies (an optional one silently becoming `None`), so then it is
        // read merged only.
        let partial = asked.asks_part() && self.keeps_sections_beyond(text, sections.as_ref());
        let accepted = |value, json| Verdict::Value {
            value,
            kind: kind(AttemptKind::Accepted),
            answer: bare_text.clone(),
            json,
        };
        let own_problems = if partial {
            None
        } else {
            // The sections serve again after a failed parse: for a patch
            // merge, and to tell whether the reply copied the guide.
            match self.parse(text, sections.clone()) {
                (Ok(value), json) => return accepted(value, json),
                (Err(problems), _) => Some(problems),
            }
        };
        let (merged, json) = self.merge(text, number, sections.as_ref());
        let problems = match (merged, own_problems) {
            (Some(Ok((value, answer))), _) => {
                return Verdict::Value {
                    value,
                    kind: kind(AttemptKind::Merged),
                    answer: Some(answer),
                    json,
                }
            }
            (Some(Err(merged_problems)), _) => merged_problems,
            (None, Some(own_problems)) => own_problems,
            // Nothing earlier to merge with after all: the reply is read
            // alone.
            (None, None) => match self.parse(text, sections.clone()) {
                (Ok(value), json) => return accepted(value, json),
                (Err(problems), _) => problems,
            },
        };
        // A reply that only acknowledges the request gets the request
        // again, not a list of everything missing.
        if let (true, Some(specs)) = (
            headerless && bare::is_acknowledgement(raw),
            self.format.specs,
        ) {
            let message = asked.restate(specs, self.format.ways, self.lang(Some(&problems)));
            let kind = kind(AttemptKind::Rejected);
            self.asked = asked.again();
            return Verdict::Rejected {
                problems,
                message,
                kind,
            };
        }
        let keys = problem_keys(&problems);
        let escalate = self.previous.as_ref() == Some(&keys);
        self.previous = Some(keys);
        let headers = problems.headers();
        let lang = self.lang(Some(&problems));
        let failing = self.indices(&headers);
        let general = has_general_problem(&problems);
        if let Some(specs) = self.format.specs {
            let again_headerless = headerless && asked.headerless_is_struggle();
            let copies_the_guide = match &sections {
                Some(map) => focus::copies_the_guide(map, specs, lang),
                None => focus::copies_the_guide(&split_sections(text, specs), specs, lang),
            };
            if again_headerless || copies_the_guide {
                self.struggling = true;
            }
        }
        // A section still wrong after a patch retry asked for it, or any
        // failing section once the model struggles, gets a plain question
        // of its own; required sections first, then in declaration order.
        let focused = match (&self.store, self.format.specs) {
            (Some(_), Some(specs))
                if self.focused && !general && !(self.next_constrained && failing.len() > 1) =>
            {
                failing
                    .iter()
                    .copied()
                    .filter(|&index| self.struggling || self.patched.get(index) == Some(&true))
                    .filter_map(|index| Some((index, specs.get(index)?)))
                    .min_by_key(|&(index, spec)| (spec.presence != Presence::Required, index))
                    .map(|(index, _)| index)
            }
            _ => None,
        };
        let next = if let Some(index) = focused {
            // The valid sections so far, as the answer the question is about:
            // a broken reply in view invites the model to repeat it. With
            // none yet, the reply itself stays (a message is never empty).
            self.shown = self
                .store
                .as_ref()
                .map(|store| store.render_except(Some(index)))
                .filter(|answer| !answer.is_empty());
            Strategy::focused(index)
        } else if self.format.specs.is_some()
            && !headers.is_empty()
            && !general
            && self.store.as_ref().is_some_and(|store| {
                store
                    .headers_present()
                    .any(|header| !headers.contains(&header))
            })
        {
            // Some sections are valid and kept: ask only for the others.
            for &index in &failing {
                if let Some(patched) = self.patched.get_mut(index) {
                    *patched = true;
                }
            }
            Strategy::patch(failing)
        } else {
            Strategy::full()
        };
        let message = self.ask(next, &problems, &headers, false, escalate);
        Verdict::Rejected {
            problems,
            message,
            kind: kind(AttemptKind::Rejected),
        }
    }

    /// What the last message asked for.
    pub(crate) fn asked(&self) -> &Strategy {
        &self.asked
    }

    /// Whether constrained attempts have a grammar (a `Sections` type).
    pub(crate) fn has_grammar(&self) -> bool {
        self.format.grammar.is_some()
    }

    /// Says whether the next attempt is sent with a grammar (see
    /// [`Reader::next_constrained`]).
    pub(crate) fn set_next_constrained(&mut self, constrained: bool) {
        self.next_constrained = constrained;
    }

    /// The grammar of what the last message asked for, for a constrained
    /// attempt to a model whose replies may hold `reply_limit` tokens (see
    /// [`attempt::constrained_grammar`]). `None` for a type without
    /// sections.
    pub(crate) fn grammar(&self, reply_limit: Option<u32>) -> Option<Grammar> {
        let whole = (self.format.grammar?)();
        Some(attempt::constrained_grammar(
            &self.asked,
            whole,
            reply_limit,
        ))
    }

    /// The text to show the model as its previous reply, when it is not
    /// the reply itself (see [`Reader::shown`]).
    pub(crate) fn take_shown(&mut self) -> Option<String> {
        self.shown.take()
    }

    /// True when sections kept from earlier replies are not all in `text`
    /// (whose `sections` may be found already), so that `text` read alone
    /// would lose them.
    fn keeps_sections_beyond(&self, text: &str, sections: Option<&SectionMap<'_>>) -> bool {
        let (Some(store), Some(specs)) = (&self.store, self.format.specs) else {
            return false;
        };
        let split;
        let map = match sections {
            Some(map) => map,
            None => {
                split = split_sections(text, specs);
                &split
            }
        };
        store
            .headers_present()
            .any(|header| map.get(header).is_none())
    }

    /// The indices in the specs of the sections named by `headers`.
    fn indices(&self, headers: &[&str]) -> Vec<usize> {
        let Some(specs) = self.format.specs else {
            return Vec::new();
        };
        specs
            .iter()
            .enumerate()
            .filter(|(_, spec)| headers.contains(&spec.header))
            .map(|(index, _)| index)
            .collect()
    }

    /// A cut reply gets no format feedback. In patch mode its complete
    /// sections are kept and only the rest is asked for; otherwise the
    /// whole answer is asked for again, shorter.
    fn read_truncated(&mut self, raw: &str, number: usize) -> Verdict<U> {
        let Some(store) = self.store.as_mut() else {
            return Verdict::Truncated {
                message: Full::after_cut(self.lang(None)),
            };
        };
        let kept = store.absorb(raw, number, true);
        let (answer, ranges) = store.render_split();
        let (parsed, json) =
            parse_merged(&self.format, &self.said, &answer, ranges, &mut self.typed);
        let problems = match parsed {
            Ok(value) => {
                return Verdict::Value {
                    value,
                    kind: AttemptKind::Merged,
                    answer: Some(answer),
                    json,
                }
            }
            Err(problems) => problems,
        };
        let remaining = problems.headers();
        let lang = self.lang(Some(&problems));
        let (message, first) = if remaining.is_empty() || has_general_problem(&problems) {
            let first = self.format.specs.and_then(|specs| specs.first());
            (Full::after_cut(lang), first.map(|spec| spec.header))
        } else {
            let failing = self.indices(&remaining);
            // A patch only when something was kept; otherwise it asks for
            // everything, as a first answer does.
            if self
                .store
                .as_ref()
                .is_some_and(|store| store.headers_present().next().is_some())
            {
                for &index in &failing {
                    if let Some(patched) = self.patched.get_mut(index) {
                        *patched = true;
                    }
                }
                self.asked = Strategy::patch(failing);
            }
            (
                Patch::after_cut(lang, &kept, &remaining),
                remaining.first().copied(),
            )
        };
        // Ending on what to write first leaves no room for a reply that
        // only promises to be shorter.
        let message = match first {
            Some(header) => format!(
                "{message}{}{}",
                phrases(lang).sentence_gap,
                fill(phrases(lang).start_with, &[("h", header)])
            ),
            None => message,
        };
        Verdict::Truncated { message }
    }

    /// In patch mode, takes the sections of `raw` (its `sections`, when
    /// found already) and parses the merged answer, once there is something
    /// from an earlier reply to merge with.
    #[allow(clippy::type_complexity)]
    fn merge(
        &mut self,
        raw: &str,
        number: usize,
        sections: Option<&SectionMap<'_>>,
    ) -> (Option<Result<(U, String), Feedback>>, Vec<JsonProvenance>) {
        let Some(store) = self.store.as_mut() else {
            return (None, Vec::new());
        };
        match sections {
            Some(sections) => store.absorb_sections(sections, number, false),
            None => store.absorb(raw, number, false),
        };
        if !store.has_earlier_than(number) {
            return (None, Vec::new());
        }
        let (answer, ranges) = store.render_split();
        let (parsed, json) =
            parse_merged(&self.format, &self.said, &answer, ranges, &mut self.typed);
        (Some(parsed.map(|value| (value, answer))), json)
    }

    /// Reads `raw`, the reply of attempt `number` stopped early because a
    /// section was invalid (`invalid` holds its problem). In patch mode the
    /// complete sections before it are kept; the model is asked for the
    /// invalid section and every one it had not finished.
    pub(crate) fn read_aborted(
        &mut self,
        raw: &str,
        number: usize,
        invalid: Feedback,
    ) -> Verdict<U> {
        self.worded = None;
        self.asked = Strategy::full();
        let lang = self.lang(Some(&invalid));
        let invalid = invalid.with_lang(lang);
        let keys = problem_keys(&invalid);
        let escalate = self.previous.as_ref() == Some(&keys);
        self.previous = Some(keys);
        let bad = invalid.headers();
        let mut wanted: Vec<&str> = Vec::new();
        if let (Some(store), Some(specs)) = (self.store.as_mut(), self.format.specs) {
            // The section the reply was cut in is not complete: left out.
            store.absorb(raw, number, true);
            let kept: Vec<&str> = store.headers_present().collect();
            let in_play = in_play(specs, self.format.ways, &kept);
            wanted = specs
                .iter()
                .enumerate()
                .filter(|&(index, spec)| {
                    in_play[index] && (bad.contains(&spec.header) || !kept.contains(&spec.header))
                })
                .map(|(_, spec)| spec.header)
                .collect();
            // Everything, or sections of several ways of an enum: the whole
            // answer is asked for.
            let all = in_play.iter().filter(|&&play| play).count();
            let several_ways = self.format.ways.iter().any(|enum_ways| {
                let wanted_indices: Vec<usize> = specs
                    .iter()
                    .enumerate()
                    .filter(|(_, spec)| wanted.contains(&spec.header))
                    .map(|(index, _)| index)
                    .collect();
                let mut taken = wanted_indices
                    .iter()
                    .filter_map(|&index| enum_ways.way_of(index));
                taken
                    .next()
                    .is_some_and(|first| taken.any(|way| way != first))
            });
            if wanted.len() == all || several_ways || has_general_problem(&invalid) {
                wanted.clear();
            }
        }
        let next = if wanted.is_empty() {
            Strategy::full()
        } else {
            let failing = self.indices(&wanted);
            for &index in &failing {
                if let Some(patched) = self.patched.get_mut(index) {
                    *patched = true;
                }
            }
            Strategy::patch(failing)
        };
        let message = self.ask(next, &invalid, &wanted, true, escalate);
        Verdict::Rejected {
            problems: invalid,
            message,
            kind: AttemptKind::Aborted,
        }
    }

    /// For each section, the text kept from earlier replies and its attempt
    /// (patch mode; nothing otherwise).
    pub(crate) fn kept(&self) -> Vec<Option<(&str, usize)>> {
        match &self.store {
            Some(store) => store.slots().collect(),
            None => Vec::new(),
        }
    }

    /// The sections of the type read (none for a run of another parser).
    pub(crate) fn specs(&self) -> Option<&'static [SectionSpec]> {
        self.format.specs
    }

    /// The ways to answer among the type's sections (empty without).
    pub(crate) fn ways(&self) -> &'static [WaysSpec] {
        self.format.ways
    }

    /// Where each section of a merged answer came from.
    pub(crate) fn sources(&self) -> Vec<SectionSource> {
        self.store
            .as_ref()
            .map(SectionStore::sources)
            .unwrap_or_default()
    }

    /// The message that asks for the whole answer again after `problems`,
    /// with nothing after the request: for a value the loop's check
    /// refused.
    pub(crate) fn ask_whole(&self, problems: &Feedback) -> String {
        Strategy::full().ask(Asking {
            lang: self.lang(Some(problems)),
            feedback: problems,
            headers: &[],
            specs: self.format.specs,
            ways: self.format.ways,
            stopped: false,
            then: Then::Nothing,
        })
    }

    /// The language of the loop's own messages: the type's, else the
    /// feedback's.
    pub(crate) fn lang(&self, feedback: Option<&Feedback>) -> Lang {
        self.format
            .lang
            .or(feedback.map(Feedback::lang))
            .unwrap_or_default()
    }
}

/// Parses `answer`, a merged answer whose sections lie at `ranges` (by
/// position in the specs, as the store wrote them): handed to the parser as
/// found, so the merged answer is not split again.
fn parse_merged<U, F>(
    format: &AnswerSpec<F>,
    said: &Said,
    answer: &str,
    ranges: Vec<Option<Range<usize>>>,
    typed: &mut TypedSections,
) -> Parsed<U>
where
    F: for<'a> Fn(&'a str, Option<SectionMap<'a>>, &mut TypedSections) -> Parsed<U>,
{
    let sections = format.specs.map(|specs| {
        let contents = ranges
            .into_iter()
            .map(|range| range.and_then(|range| Some((answer.get(range.clone())?, range))));
        SectionMap::from_contents(specs, contents)
    });
    let sections = scrubbed(format, said, answer, sections);
    (format.parse)(answer, sections, typed)
}

/// The sections of `text` (found already, or found now), each whose value
/// is junk left empty: a placeholder, or a sentence the loop wrote
/// (`said`). `None` for a format without sections.
fn scrubbed<'a, F>(
    format: &AnswerSpec<F>,
    said: &Said,
    text: &'a str,
    sections: Option<SectionMap<'a>>,
) -> Option<SectionMap<'a>> {
    let specs = format.specs?;
    let mut map = sections.unwrap_or_else(|| split_sections(text, specs));
    junk::scrub(&mut map, specs, said);
    Some(map)
}

/// What makes two replies' problems "the same": the section and the kind of
/// problem, not the quoted text (which changes as the model rewrites).
type ProblemKey = (String, Discriminant<ProblemKind>);

fn problem_keys(feedback: &Feedback) -> Vec<ProblemKey> {
    feedback
        .problems()
        .iter()
        .map(|p| (p.header.clone(), std::mem::discriminant(&p.kind)))
        .collect()
}

/// True when a problem concerns the reply as a whole (no section named).
fn has_general_problem(feedback: &Feedback) -> bool {
    feedback.problems().iter().any(|p| p.header.is_empty())
}

/// Per section of `specs`: whether an answer still needs it, given the
/// sections `kept`: a section of a way of an enum is out of play when the
/// kept sections took another way of that enum.
fn in_play(specs: &[SectionSpec], ways: &[WaysSpec], kept: &[&str]) -> Vec<bool> {
    let kept: Vec<usize> = specs
        .iter()
        .enumerate()
        .filter(|(_, spec)| kept.contains(&spec.header))
        .map(|(index, _)| index)
        .collect();
    (0..specs.len())
        .map(|index| {
            ways.iter().all(|enum_ways| {
                match (enum_ways.way_of(index), single_way(enum_ways, &kept)) {
                    (Some(way), Some(chosen)) => way == chosen,
                    _ => true,
                }
            })
        })
        .collect()
}
