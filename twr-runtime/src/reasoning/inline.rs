//! A reply's visible text and its inline reasoning, for the clients.
//!
//! Reasoning models served through plain chat endpoints (DeepSeek-R1 and
//! Qwen3 on llama.cpp, vLLM or Ollama) write their reasoning inline; the
//! clients feed each streamed piece of content here and get the answer and
//! the reasoning apart at the end.

use super::{Event, Lexer, Policy};

/// Splits streamed text into visible content and reasoning
/// ([`Policy::CLIENT`]).
#[derive(Debug)]
pub(crate) struct ThinkSplitter {
    lexer: Lexer,
    parts: Parts,
}

/// What the lexer reported so far.
#[derive(Debug, Default)]
struct Parts {
    content: String,
    reasoning: String,
    /// Whether any block (or a lone closing tag) was seen.
    saw_block: bool,
}

impl Default for ThinkSplitter {
    fn default() -> Self {
        ThinkSplitter {
            lexer: Lexer::new(Policy::CLIENT),
            parts: Parts::default(),
        }
    }
}

impl ThinkSplitter {
    /// Feeds the next piece of text.
    pub(crate) fn push(&mut self, text: &str) {
        self.push_observed(text, &mut |_| {});
    }

    /// Feeds the next piece of text and shows `observe` each thing the
    /// lexer found in it, as it is found (a stream's deltas are made of
    /// them).
    pub(crate) fn push_observed(&mut self, text: &str, observe: &mut impl FnMut(Event<'_>)) {
        let parts = &mut self.parts;
        self.lexer.feed(text, &mut |event| {
            observe(event);
            parts.add(event);
        });
    }

    /// Ends the text; returns the visible content and the reasoning (`None`
    /// when there was none). A block the model never closed (cut off by the
    /// token limit) counts as reasoning.
    pub(crate) fn finish(self) -> (String, Option<String>) {
        self.finish_observed(&mut |_| {})
    }

    /// [`finish`](Self::finish), showing `observe` what the end released
    /// (a tag held back that turned out to be text).
    pub(crate) fn finish_observed(
        self,
        observe: &mut impl FnMut(Event<'_>),
    ) -> (String, Option<String>) {
        let mut parts = self.parts;
        self.lexer.finish(&mut |event| {
            observe(event);
            parts.add(event);
        });
        let content = if parts.saw_block {
            // The blank lines around a removed block are not part of the answer.
            parts.content.trim().to_string()
        } else {
            parts.content
        };
        let reasoning = parts.reasoning.trim();
        let reasoning = (!reasoning.is_empty()).then(|| reasoning.to_string());
        (content, reasoning)
    }
}

impl Parts {
    fn add(&mut self, event: Event<'_>) {
        match event {
            Event::Content { text, .. } => self.content.push_str(text),
            Event::Reasoning { text, .. } => self.reasoning.push_str(text),
            Event::Open => {
                // Blocks are joined by a line break.
                if !self.reasoning.is_empty() {
                    self.reasoning.push('\n');
                }
                self.saw_block = true;
            }
            Event::Close => {}
            Event::LoneClose => {
                // All text so far was reasoning.
                self.reasoning.push_str(&std::mem::take(&mut self.content));
                self.saw_block = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits a whole text at once.
    fn split(text: &str) -> (String, Option<String>) {
        let mut splitter = ThinkSplitter::default();
        splitter.push(text);
        splitter.finish()
    }

    fn split_in_pieces(text: &str, piece: usize) -> (String, Option<String>) {
        let mut splitter = ThinkSplitter::default();
        let chars: Vec<char> = text.chars().collect();
        for chunk in chars.chunks(piece) {
            splitter.push(&chunk.iter().collect::<String>());
        }
        splitter.finish()
    }

    fn pair(content: &str, reasoning: Option<&str>) -> (String, Option<String>) {
        (content.to_string(), reasoning.map(str::to_string))
    }

    #[test]
    fn a_leading_block_becomes_reasoning_at_any_split() {
        let text = "<think>\nWeigh a < b.\n</think>\n\n[Plan]\n1. Go";
        for piece in 1..text.len() + 1 {
            assert_eq!(
                split_in_pieces(text, piece),
                pair("[Plan]\n1. Go", Some("Weigh a < b.")),
                "piece size {piece}"
            );
        }
    }

    #[test]
    fn thinking_tags_and_several_blocks() {
        assert_eq!(
            split("<thinking>one</thinking>A<think>two</think>B"),
            pair("AB", Some("one\ntwo"))
        );
    }

    #[test]
    fn a_lone_closing_tag_makes_the_text_before_it_reasoning() {
        for piece in 1..8 {
            assert_eq!(
                split_in_pieces("step 1, step 2\n</think>\nAnswer", piece),
                pair("Answer", Some("step 1, step 2"))
            );
        }
    }

    #[test]
    fn an_unclosed_block_is_all_reasoning() {
        assert_eq!(split("<think>still going"), pair("", Some("still going")));
    }

    #[test]
    fn text_without_tags_is_untouched() {
        assert_eq!(split("  a <b> c <thin\n"), pair("  a <b> c <thin\n", None));
        assert_eq!(split_in_pieces("x <thi", 2), pair("x <thi", None));
    }

    #[test]
    fn a_closing_tag_after_a_block_is_plain_text() {
        assert_eq!(
            split("<think>r</think>a </think> b"),
            pair("a </think> b", Some("r"))
        );
    }
}
