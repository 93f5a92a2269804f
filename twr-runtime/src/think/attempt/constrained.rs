//! A constrained attempt: the request carries a grammar the model is held
//! to, the grammar of what the attempt asks for (the whole answer, a
//! patch's sections, a focused question's value). Whatever it asks, the
//! trace names it `constrained` (unless it is the first, or escalated).
//! A model that takes a JSON schema answers in JSON, read back as the
//! sections it holds.

use super::Strategy;
use crate::grammar::{Grammar, JsonReply};

/// Its name as the trace's `twr.attempt.kind` gives it.
pub(super) const NAME: &str = "constrained";

/// Which attempts of a run are sent with a grammar.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Constraining {
    /// [`Think::constrain_after`](crate::Think::constrain_after): every
    /// attempt after this count.
    after: Option<usize>,
    /// The attempts the run may make: without `after`, the last one is
    /// constrained.
    max_attempts: usize,
    /// The first attempt constrained because the model repeated itself:
    /// asked again the same way, it would repeat itself again.
    from_repeat: Option<usize>,
}

impl Constraining {
    /// The rule of a run that may make `max_attempts` attempts, with
    /// [`Think::constrain_after`](crate::Think::constrain_after)'s `after`.
    pub(crate) fn new(after: Option<usize>, max_attempts: usize) -> Self {
        Constraining {
            after,
            max_attempts,
            from_repeat: None,
        }
    }

    /// From attempt `next` on, every attempt is constrained (the one
    /// before it repeated the reply before).
    pub(crate) fn after_repeat(&mut self, next: usize) {
        self.from_repeat = Some(next);
    }

    /// Whether attempt `number` is sent with a grammar: with `after`, every
    /// attempt after its count; without, the last attempt of the run (never
    /// the first) when its model takes grammars (`takes_grammar`, asked
    /// only then); either way, every attempt after a reply that repeated
    /// the one before it.
    pub(crate) fn applies(&self, number: usize, takes_grammar: impl FnOnce() -> bool) -> bool {
        if self.from_repeat.is_some_and(|from| number >= from) {
            return true;
        }
        match self.after {
            Some(after) => number > after,
            None => number > 1 && number == self.max_attempts && takes_grammar(),
        }
    }
}

/// The grammar an attempt of `strategy` is sent with, from `whole`, the
/// grammar of the whole answer: that of what it asks for, cut to the
/// model's reply limit when it says one, so that the reply is not cut off
/// before its last section.
pub(crate) fn grammar(strategy: &Strategy, whole: Grammar, reply_limit: Option<u32>) -> Grammar {
    let grammar = strategy.grammar(whole);
    match reply_limit {
        Some(max_tokens) => grammar.fit_tokens(max_tokens),
        None => grammar,
    }
}

/// The sections a reply to an attempt sent with `sent` holds, when `sent`
/// asked for JSON in the grammar's schema and the reply is such JSON; a
/// reply that is not is read as it is (a model that answered in sections
/// anyway).
pub(crate) fn read_json(sent: Option<(Grammar, bool)>, raw: &str) -> Option<JsonReply> {
    match sent {
        Some((grammar, true)) => grammar.read_json(raw).ok(),
        _ => None,
    }
}
