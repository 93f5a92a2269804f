//! Moves inline `<think>…</think>` blocks out of a reply's visible text.
//!
//! Reasoning models served through plain chat endpoints (DeepSeek-R1 and
//! Qwen3 on llama.cpp, vLLM or Ollama) write their reasoning inline. The
//! splitter works on a stream: a tag may be split between two chunks, so a
//! tail that could still become a tag is held back until the next chunk says
//! what it is. Every character is looked at a bounded number of times.

/// Opening tags and the closing tag each one expects.
const BLOCKS: [(&str, &str); 2] = [("<think>", "</think>"), ("<thinking>", "</thinking>")];

/// What the text at a `<` turned out to be.
enum TagMatch {
    /// A whole tag of this many bytes, opening (with its closing tag) or closing.
    Open(usize, &'static str),
    Close(usize),
    /// The text ends inside something that may still become a tag.
    Partial,
    /// A plain `<`.
    NotATag,
}

/// Splits streamed text into visible content and reasoning.
#[derive(Debug, Default)]
pub(crate) struct ThinkSplitter {
    content: String,
    reasoning: String,
    /// Held-back tail that may be the start of a tag.
    pending: String,
    /// Inside a block: the closing tag that ends it.
    inside: Option<&'static str>,
    /// Whether any block (or a lone closing tag) was seen.
    saw_block: bool,
}

impl ThinkSplitter {
    /// Feeds the next piece of text.
    pub(crate) fn push(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let buf = if self.pending.is_empty() {
            std::borrow::Cow::Borrowed(text)
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.push_str(text);
            std::borrow::Cow::Owned(joined)
        };
        let mut pos = 0;
        while let Some(offset) = memchr::memchr(b'<', &buf.as_bytes()[pos..]) {
            let at = pos + offset;
            self.emit(&buf[pos..at]);
            match self.match_tag(&buf[at..]) {
                TagMatch::Open(len, close) => {
                    if !self.reasoning.is_empty() {
                        self.reasoning.push('\n');
                    }
                    self.inside = Some(close);
                    self.saw_block = true;
                    pos = at + len;
                }
                TagMatch::Close(len) => {
                    if self.inside.take().is_none() {
                        // A closing tag with no opening one: the chat template
                        // opened the block in the prompt, so all text so far
                        // was reasoning.
                        self.reasoning.push_str(&std::mem::take(&mut self.content));
                    }
                    self.saw_block = true;
                    pos = at + len;
                }
                TagMatch::Partial => {
                    self.pending.push_str(&buf[at..]);
                    return;
                }
                TagMatch::NotATag => {
                    self.emit("<");
                    pos = at + 1;
                }
            }
        }
        self.emit(&buf[pos..]);
    }

    /// Ends the text; returns the visible content and the reasoning (`None`
    /// when there was none). A block the model never closed (cut off by the
    /// token limit) counts as reasoning.
    pub(crate) fn finish(mut self) -> (String, Option<String>) {
        let tail = std::mem::take(&mut self.pending);
        self.emit(&tail);
        let content = if self.saw_block {
            // The blank lines around a removed block are not part of the answer.
            self.content.trim().to_string()
        } else {
            self.content
        };
        let reasoning = self.reasoning.trim();
        let reasoning = (!reasoning.is_empty()).then(|| reasoning.to_string());
        (content, reasoning)
    }

    fn emit(&mut self, text: &str) {
        if self.inside.is_some() {
            self.reasoning.push_str(text);
        } else {
            self.content.push_str(text);
        }
    }

    fn match_tag(&self, rest: &str) -> TagMatch {
        let mut partial = false;
        let mut check = |tag: &str| {
            if rest.starts_with(tag) {
                Some(tag.len())
            } else {
                partial |= rest.len() < tag.len() && tag.starts_with(rest);
                None
            }
        };
        match self.inside {
            Some(close) => {
                if let Some(len) = check(close) {
                    return TagMatch::Close(len);
                }
            }
            None => {
                for (open, close) in BLOCKS {
                    if let Some(len) = check(open) {
                        return TagMatch::Open(len, close);
                    }
                    // A lone closing tag only means something before any block.
                    if !self.saw_block {
                        if let Some(len) = check(close) {
                            return TagMatch::Close(len);
                        }
                    }
                }
            }
        }
        if partial {
            TagMatch::Partial
        } else {
            TagMatch::NotATag
        }
    }
}

/// Splits a whole text at once.
#[cfg(test)]
fn split(text: &str) -> (String, Option<String>) {
    let mut splitter = ThinkSplitter::default();
    splitter.push(text);
    splitter.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

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
