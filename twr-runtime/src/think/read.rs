//! Reading one reply: parse it, merge it with earlier sections, and decide
//! what to send back when it does not parse.

use std::mem::Discriminant;

use super::conversation::SectionStore;
use super::messages::{self, Request};
use super::outcome::{AttemptKind, SectionSource};
use crate::feedback::{Feedback, Lang, ProblemKind};
use crate::json::JsonProvenance;
use crate::sections::SectionSpec;

/// How a reply is read: the parser (which returns, beside its result, how
/// the JSON it read was obtained), and for `Sections` types the guide and the
/// specs that make patch merges possible.
pub(crate) struct Format<F> {
    pub(crate) parse: F,
    pub(crate) guide: Option<String>,
    pub(crate) specs: Option<&'static [SectionSpec]>,
    pub(crate) lang: Option<Lang>,
}

/// What a parser returns: the value or the problems, and how the JSON it
/// read was obtained.
pub(crate) type Parsed<U> = (Result<U, Feedback>, Vec<JsonProvenance>);

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
    /// Format problems, and the message that asks for the fix.
    Rejected { problems: Feedback, message: String },
    /// Cut off by the token limit; the message asks for a shorter answer.
    Truncated { message: String },
}

/// Reads the replies of one run, remembering what patch merges and
/// escalation need.
pub(crate) struct Reader<F> {
    format: Format<F>,
    /// The newest content of each section, in patch mode only.
    store: Option<SectionStore>,
    /// The problems of the previous rejected reply, to notice repeats.
    previous: Option<Vec<ProblemKey>>,
}

impl<U, F> Reader<F>
where
    F: Fn(&str) -> Parsed<U>,
{
    /// A reader that merges sections when `patch` is set and the format has
    /// specs.
    pub(crate) fn new(format: Format<F>, patch: bool) -> Self {
        let store = match (patch, format.specs) {
            (true, Some(specs)) => Some(SectionStore::new(specs)),
            _ => None,
        };
        Reader {
            format,
            store,
            previous: None,
        }
    }

    /// Reads `raw`, the reply of attempt `number`.
    pub(crate) fn read(&mut self, raw: &str, number: usize, truncated: bool) -> Verdict<U> {
        if truncated {
            self.previous = None;
            return self.read_truncated(raw, number);
        }
        let (parsed, json) = (self.format.parse)(raw);
        let own_problems = match parsed {
            Ok(value) => {
                return Verdict::Value {
                    value,
                    kind: AttemptKind::Accepted,
                    answer: None,
                    json,
                }
            }
            Err(problems) => problems,
        };
        let (merged, json) = self.merge(raw, number);
        let problems = match merged {
            Some(Ok((value, answer))) => {
                return Verdict::Value {
                    value,
                    kind: AttemptKind::Merged,
                    answer: Some(answer),
                    json,
                }
            }
            Some(Err(merged_problems)) => merged_problems,
            None => own_problems,
        };
        let keys = problem_keys(&problems);
        let escalate = self.previous.as_ref() == Some(&keys);
        self.previous = Some(keys);
        let headers = problems.headers();
        let request = if self.format.specs.is_none() {
            Request::Free
        } else if !headers.is_empty()
            && !has_general_problem(&problems)
            && self.store.as_ref().is_some_and(|store| {
                store
                    .headers_present()
                    .any(|header| !headers.contains(&header))
            })
        {
            // Some sections are valid and kept: ask only for the others.
            Request::Sections(&headers)
        } else {
            Request::Whole
        };
        let message = messages::format_feedback(
            self.lang(Some(&problems)),
            &problems,
            request,
            escalate.then_some(self.format.guide.as_deref()),
        );
        Verdict::Rejected { problems, message }
    }

    /// A cut reply gets no format feedback. In patch mode its complete
    /// sections are kept and only the rest is asked for; otherwise the
    /// whole answer is asked for again, shorter.
    fn read_truncated(&mut self, raw: &str, number: usize) -> Verdict<U> {
        let Some(store) = self.store.as_mut() else {
            return Verdict::Truncated {
                message: messages::truncated_whole(self.lang(None)),
            };
        };
        let kept = store.absorb(raw, number, true);
        let answer = store.render();
        let (parsed, json) = (self.format.parse)(&answer);
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
        let message = if remaining.is_empty() || has_general_problem(&problems) {
            messages::truncated_whole(lang)
        } else {
            messages::truncated_patch(lang, &kept, &remaining)
        };
        Verdict::Truncated { message }
    }

    /// In patch mode, takes the sections of `raw` and parses the merged
    /// answer, once there is something from an earlier reply to merge with.
    #[allow(clippy::type_complexity)]
    fn merge(
        &mut self,
        raw: &str,
        number: usize,
    ) -> (Option<Result<(U, String), Feedback>>, Vec<JsonProvenance>) {
        let Some(store) = self.store.as_mut() else {
            return (None, Vec::new());
        };
        store.absorb(raw, number, false);
        if !store.has_earlier_than(number) {
            return (None, Vec::new());
        }
        let answer = store.render();
        let (parsed, json) = (self.format.parse)(&answer);
        (Some(parsed.map(|value| (value, answer))), json)
    }

    /// Where each section of a merged answer came from.
    pub(crate) fn sources(&self) -> Vec<SectionSource> {
        self.store
            .as_ref()
            .map(SectionStore::sources)
            .unwrap_or_default()
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
