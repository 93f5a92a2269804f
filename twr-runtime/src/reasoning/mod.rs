//! Reasoning blocks: the one lexer for `<think>…</think>` and
//! `<thinking>…</thinking>`.
//!
//! Reasoning models write their scratch work inline in such blocks. Three
//! readers meet them, and each needs slightly different rules, named as a
//! [`Policy`] instead of three hand-written scanners:
//!
//! - the clients ([`Policy::CLIENT`]) move the blocks out of a reply's text
//!   into `Reply::reasoning`, chunk by chunk as a stream arrives;
//! - the section parser ([`Policy::SECTIONS`]) ignores them anywhere;
//! - the JSON reader ([`Policy::JSON`]) counts a tag only at a line's edge,
//!   because in JSON the same characters are often data (`"tag": "<think>"`).
//!
//! The rules every policy shares: an opening tag inside a block is text; a
//! block never closed runs to the end (the reply was cut off while the model
//! was thinking); a closing tag before any other tag means the chat template
//! put the opening tag in the prompt (DeepSeek-R1 style), so everything
//! before it was reasoning; after that, a closing tag outside a block is text.

mod lexer;
// Only the clients split a reply into answer and reasoning as it arrives.
#[cfg(feature = "__client")]
mod inline;

use std::ops::Range;

#[cfg(feature = "__client")]
pub(crate) use inline::ThinkSplitter;
pub(crate) use lexer::{Event, Lexer};

/// How tags are recognised: the rules where the readers differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Policy {
    /// `<THINK>` and `<Thinking>` count as tags (ASCII case ignored).
    pub(crate) ignore_case: bool,
    /// Any closing tag ends a block: `</think>` closes `<thinking>`. When
    /// false, only the closing tag of the block's own name does, and the
    /// other one is reasoning text.
    pub(crate) any_closing_name: bool,
    /// An opening tag counts only at the start of a line (after nothing but
    /// spaces and tabs); elsewhere it is text.
    pub(crate) open_at_line_start: bool,
    /// A lone closing tag (one before any block) counts only at the end of
    /// a line (before nothing but spaces, tabs and `\r`); elsewhere it is text.
    pub(crate) lone_close_at_line_end: bool,
}

impl Policy {
    /// For the clients: exact lowercase tags, each block closed by its own
    /// name, tags anywhere. What servers emit for models that think inline.
    #[cfg(any(feature = "__client", test))]
    pub(crate) const CLIENT: Policy = Policy {
        ignore_case: false,
        any_closing_name: false,
        open_at_line_start: false,
        lone_close_at_line_end: false,
    };

    /// For the section parser: any case, any closing tag, anywhere. Section
    /// text has no reason to contain the tags except as reasoning.
    pub(crate) const SECTIONS: Policy = Policy {
        ignore_case: true,
        any_closing_name: true,
        open_at_line_start: false,
        lone_close_at_line_end: false,
    };

    /// For JSON: like [`Policy::SECTIONS`], but a block opens only at a line
    /// start and a lone closing tag counts only at a line end, so tags inside
    /// JSON strings (`{"a": "<think>"}`) stay text.
    pub(crate) const JSON: Policy = Policy {
        ignore_case: true,
        any_closing_name: true,
        open_at_line_start: true,
        lone_close_at_line_end: true,
    };
}

/// The byte ranges of `text` outside reasoning blocks, in order, adjacent
/// pieces joined; `None` when no tag counted (all of `text` is the answer).
pub(crate) fn outside_blocks(text: &str, policy: Policy) -> Option<Vec<Range<usize>>> {
    let mut kept: Vec<Range<usize>> = Vec::new();
    let mut tagged = false;
    let mut on = |event: Event<'_>| match event {
        Event::Content { text, at } => match kept.last_mut() {
            Some(last) if last.end == at => last.end += text.len(),
            _ => kept.push(at..at + text.len()),
        },
        Event::Reasoning { .. } => {}
        Event::Open | Event::Close => tagged = true,
        Event::LoneClose => {
            tagged = true;
            kept.clear();
        }
    };
    let mut lexer = Lexer::new(policy);
    lexer.feed(text, &mut on);
    lexer.finish(&mut on);
    tagged.then_some(kept)
}
