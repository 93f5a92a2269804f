//! The kinds of attempt the loop makes, one file each, and [`Strategy`],
//! the one enum naming them.
//!
//! An attempt is one request and what is made of its reply. What the loop
//! asks for decides the rest: the message that asks, the grammar a
//! constrained attempt is held to, how the reply is read (a patch's reply
//! is merged with the sections kept, the answer to a focused question may
//! be bare), what the ledger records it as and what the trace calls it.
//! Written per concern (a message table, a grammar table, a reading table,
//! a trace table), one idea was spread over six enums and every table had
//! to learn a new kind; written per kind, a kind is read in one file:
//!
//! - `first.rs`: the opening request, the whole answer with the guide,
//!   the one kind asked several times at once ([`Think::samples`](crate::Think::samples));
//! - `full.rs`: the whole answer again;
//! - `patch.rs`: only the sections that failed, merged with those kept;
//! - `focused.rs`: one section as a plain question, answered bare.
//!
//! Two ways of sending cut across them, each in its file too:
//! `constrained.rs` (the request carries a grammar: when, and which one)
//! and `escalated.rs` (the request goes to the stronger model). The trace
//! names an attempt by what it asks unless it is sent one of these ways
//! ([`Strategy::trace_name`]).
//!
//! The loop (`think/driver.rs`) and the reader (`think/read.rs`) call through
//! [`Strategy`] and never match on a kind: adding one is its file and one
//! line in the enum, and the compiler then names the arms of the dispatch
//! below, in this file, and nothing else.

mod constrained;
mod escalated;
mod first;
mod focused;
mod full;
mod patch;

pub(crate) use constrained::{grammar as constrained_grammar, read_json, Constraining};
pub(crate) use escalated::escalates;
pub(crate) use first::First;
pub(crate) use focused::Focused;
pub(crate) use full::Full;
pub(crate) use patch::Patch;

use super::messages::Then;
use super::outcome::AttemptKind;
use crate::feedback::{Feedback, Wording};
use crate::grammar::Grammar;
use crate::sections::{Lang, SectionSpec, WaysSpec};

/// What one attempt asks the model for: the kind of attempt, as the loop
/// chose it after the reply before (see the module's docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Strategy {
    /// The opening request.
    First(First),
    /// The whole answer again.
    Full(Full),
    /// Only the sections that failed.
    Patch(Patch),
    /// One section, as a plain question.
    Focused(Focused),
}

/// How an attempt is sent, beyond what it asks: what the trace names it by
/// when it is sent so.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Sent {
    /// To the stronger model ([`Think::escalate_to`](crate::Think::escalate_to)).
    pub(crate) escalated: bool,
    /// With a grammar the model is held to.
    pub(crate) constrained: bool,
}

/// What the message that asks for an attempt after a rejected reply is
/// written from.
pub(crate) struct Asking<'a> {
    /// The language of the loop's messages.
    pub(crate) lang: Lang,
    /// The problems of the reply.
    pub(crate) feedback: &'a Feedback,
    /// The sections asked for by header, in the order the message names
    /// them (a patch's).
    pub(crate) headers: &'a [&'a str],
    /// The type's sections (`None` for a free-form parser).
    pub(crate) specs: Option<&'a [SectionSpec]>,
    /// The ways to answer among the sections (empty without).
    pub(crate) ways: &'a [WaysSpec],
    /// Whether the reply was stopped as it streamed, at the invalid
    /// section.
    pub(crate) stopped: bool,
    /// What follows the request.
    pub(crate) then: Then<'a>,
}

/// What every kind of attempt says of itself. Each file implements it; the
/// enum dispatches to it.
trait Kind {
    /// Its name as the trace's `twr.attempt.kind` gives it.
    const NAME: &'static str;

    /// Whether the trace names it so however it is sent (see
    /// [`Strategy::trace_name`]).
    const NAMED_SO_HOWEVER_SENT: bool = false;

    /// The one section it asks for, which a bare reply is read as.
    fn one(&self) -> Option<usize> {
        None
    }

    /// The section a focused question asks about, which the journal counts
    /// the feedback's effect on.
    fn focus(&self) -> Option<usize> {
        None
    }

    /// Whether it may be asked several times at once, the answer the
    /// replies agree on read as its reply ([`Think::samples`](crate::Think::samples)).
    fn may_sample(&self) -> bool {
        false
    }

    /// Whether its reply is a part of an answer, read merged with the
    /// sections kept from earlier replies and never alone.
    fn asks_part(&self) -> bool {
        false
    }

    /// Whether a reply to it with no header at all shows a model that does
    /// not follow the format (it already saw the guide and feedback).
    fn headerless_is_struggle(&self) -> bool {
        false
    }

    /// What the ledger records its reply as, when the reader made
    /// `read` of it (a value, or problems).
    fn outcome(&self, read: AttemptKind) -> AttemptKind {
        read
    }

    /// The grammar of what it asks for, from that of the whole answer.
    fn grammar(&self, whole: Grammar) -> Grammar {
        whole
    }

    /// The message that asks for it after a rejected reply.
    fn ask(&self, asking: Asking<'_>) -> String;

    /// How that message is worded, as the journal counts it
    /// ([`Wording`]), when it is followed by `then`.
    fn wording(&self, then: &Then<'_>) -> Wording {
        then.wording()
    }

    /// The request again, for a reply that only acknowledged it: what to
    /// write, with an example, and nothing about problems.
    fn restate(&self, specs: &[SectionSpec], ways: &[WaysSpec], lang: Lang) -> String;

    /// What the same request is, asked again.
    fn again(self) -> Strategy;
}

/// Calls `$method` on the kind inside `$strategy`: the dispatch, the one
/// place that names every kind.
macro_rules! dispatch {
    ($strategy:expr, $kind:ident => $body:expr) => {
        match $strategy {
            Strategy::First($kind) => $body,
            Strategy::Full($kind) => $body,
            Strategy::Patch($kind) => $body,
            Strategy::Focused($kind) => $body,
        }
    };
}

/// The name of a kind, and whether it is its name however it is sent.
fn name_of<K: Kind>(_: &K) -> (&'static str, bool) {
    (K::NAME, K::NAMED_SO_HOWEVER_SENT)
}

impl Strategy {
    /// The opening request of a run.
    pub(crate) fn first() -> Self {
        Strategy::First(First)
    }

    /// The whole answer again.
    pub(crate) fn full() -> Self {
        Strategy::Full(Full)
    }

    /// Only the sections at `indices`.
    pub(crate) fn patch(indices: Vec<usize>) -> Self {
        Strategy::Patch(Patch { indices })
    }

    /// The section at `index`, as a plain question.
    pub(crate) fn focused(index: usize) -> Self {
        Strategy::Focused(Focused { index })
    }

    /// Its name as the trace's `twr.attempt.kind` gives it, sent as `sent`:
    /// the first request is always `first`; any other is `escalated` when
    /// asked of the stronger model, else `constrained` when held to a
    /// grammar, else its own name (`full`, `patch`, `focused`).
    pub(crate) fn trace_name(&self, sent: Sent) -> &'static str {
        let (name, however_sent) = dispatch!(self, kind => name_of(kind));
        if however_sent {
            name
        } else if sent.escalated {
            escalated::NAME
        } else if sent.constrained {
            constrained::NAME
        } else {
            name
        }
    }

    /// See [`Kind::one`].
    pub(crate) fn one(&self) -> Option<usize> {
        dispatch!(self, kind => kind.one())
    }

    /// See [`Kind::focus`].
    pub(crate) fn focus(&self) -> Option<usize> {
        dispatch!(self, kind => kind.focus())
    }

    /// See [`Kind::may_sample`].
    pub(crate) fn may_sample(&self) -> bool {
        dispatch!(self, kind => kind.may_sample())
    }

    /// See [`Kind::asks_part`].
    pub(crate) fn asks_part(&self) -> bool {
        dispatch!(self, kind => kind.asks_part())
    }

    /// See [`Kind::headerless_is_struggle`].
    pub(crate) fn headerless_is_struggle(&self) -> bool {
        dispatch!(self, kind => kind.headerless_is_struggle())
    }

    /// See [`Kind::outcome`].
    pub(crate) fn outcome(&self, read: AttemptKind) -> AttemptKind {
        dispatch!(self, kind => kind.outcome(read))
    }

    /// See [`Kind::grammar`].
    pub(crate) fn grammar(&self, whole: Grammar) -> Grammar {
        dispatch!(self, kind => kind.grammar(whole))
    }

    /// See [`Kind::ask`].
    pub(crate) fn ask(&self, asking: Asking<'_>) -> String {
        dispatch!(self, kind => kind.ask(asking))
    }

    /// See [`Kind::wording`].
    pub(crate) fn wording(&self, then: &Then<'_>) -> Wording {
        dispatch!(self, kind => kind.wording(then))
    }

    /// See [`Kind::restate`].
    pub(crate) fn restate(&self, specs: &[SectionSpec], ways: &[WaysSpec], lang: Lang) -> String {
        dispatch!(self, kind => kind.restate(specs, ways, lang))
    }

    /// See [`Kind::again`].
    pub(crate) fn again(self) -> Strategy {
        dispatch!(self, kind => kind.again())
    }
}
