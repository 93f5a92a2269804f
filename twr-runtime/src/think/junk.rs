//! Values the loop can tell are not answers: a section whose value
//! repeats a sentence the loop itself wrote to the model (the guide, a
//! feedback message, a focused question), or is only a placeholder in
//! brackets (`[item1]`, `<one-line summary>`, `[Insert step here]`).
//! Such a section counts as empty, whatever attempt or merge it came from,
//! a constrained one included: a grammar fixes the shape of a reply, not
//! whether it says anything.

use crate::parse::SectionMap;
use crate::sections::{SectionSpec, ValueKind};

/// A sentence shorter than this (in characters, once normalised) is not
/// matched: short phrases ("Yes.", "None.") are answers as often as echoes.
const MIN_SENTENCE: usize = 20;

/// The sentences the loop has written to the model in a run, normalised
/// (lowercase, white space collapsed, closing punctuation dropped), so
/// that a value that repeats one is recognised.
#[derive(Debug, Default)]
pub(crate) struct Said {
    sentences: Vec<String>,
}

impl Said {
    /// Remembers the sentences of `text`, except those that are `except`
    /// (the sections' own examples, which a right answer may equal).
    pub(crate) fn add(&mut self, text: &str, except: &[&str]) {
        let except: Vec<String> = except.iter().map(|e| normalised(e)).collect();
        for sentence in sentences(text) {
            let sentence = normalised(sentence);
            if sentence.chars().count() >= MIN_SENTENCE
                && sentence.split(' ').count() >= 4
                && !except.contains(&sentence)
                && !self.sentences.contains(&sentence)
            {
                self.sentences.push(sentence);
            }
        }
    }

    /// True when `value` holds a whole sentence the loop wrote.
    pub(crate) fn echoed_in(&self, value: &str) -> bool {
        if self.sentences.is_empty() {
            return false;
        }
        let value = normalised(value);
        self.sentences
            .iter()
            .any(|sentence| value.contains(sentence.as_str()))
    }
}

/// The sentences of `text`: split after `.`, `?`, `!` followed by white
/// space, and at line breaks.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.lines().flat_map(|line| {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = line.as_bytes();
        for (at, &b) in bytes.iter().enumerate() {
            let ends = matches!(b, b'.' | b'?' | b'!')
                && bytes
                    .get(at + 1)
                    .is_none_or(|next| next.is_ascii_whitespace());
            if ends {
                out.push(&line[start..=at]);
                start = at + 1;
            }
        }
        out.push(&line[start..]);
        out.into_iter()
            .map(str::trim)
            .filter(|sentence| !sentence.is_empty())
    })
}

/// Lowercase, zero-width characters dropped, white space collapsed to
/// one space, and the punctuation that closes a sentence dropped.
fn normalised(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        // Zero-width characters hide nothing: a model may slip them into
        // a sentence it copies.
        if matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}') {
            continue;
        }
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.extend(c.to_lowercase());
    }
    while out.ends_with(['.', '!', '?', ':', ';', ',']) {
        out.pop();
    }
    out
}

/// True when `value` is only placeholders: every line (a list item's
/// marker left out) is one bracketed slot, in square, angle or curly
/// brackets, holding words and nothing else (`[item1]`, `[item: High]`,
/// `<one-line summary>`, `{{name}}`). A value in JSON, a table or a
/// choice is left alone: its brackets are its syntax or its words.
pub(crate) fn is_placeholder(value: &str, kind: ValueKind) -> bool {
    if matches!(
        kind,
        ValueKind::Json | ValueKind::Table | ValueKind::Bool | ValueKind::Choice(_)
    ) {
        return false;
    }
    let mut lines = value
        .lines()
        .map(|line| item_text(line.trim()))
        .filter(|line| !line.is_empty())
        .peekable();
    lines.peek().is_some() && lines.all(is_slot)
}

/// A list line without its marker (`- `, `* `, `1. `, `2) `).
fn item_text(line: &str) -> &str {
    let unbulleted = line.strip_prefix(['-', '*', '+', '•']).map(str::trim_start);
    if let Some(rest) = unbulleted {
        return rest;
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        if let Some(rest) = line[digits..].strip_prefix(['.', ')']) {
            return rest.trim_start();
        }
    }
    line
}

/// One bracketed slot of words: the brackets match, nothing inside them
/// is another bracket or a quote, and it holds a letter.
fn is_slot(line: &str) -> bool {
    let pairs = [("{{", "}}"), ("[", "]"), ("<", ">"), ("{", "}")];
    pairs.iter().any(|(open, close)| {
        let Some(inner) = line
            .strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
        else {
            return false;
        };
        inner.chars().any(char::is_alphabetic)
            && !inner
                .chars()
                .any(|c| matches!(c, '[' | ']' | '<' | '>' | '{' | '}' | '"'))
    })
}

/// `map` with every section whose value is junk left empty: a
/// placeholder, or a sentence the loop wrote (`said`).
pub(crate) fn scrub(map: &mut SectionMap<'_>, specs: &[SectionSpec], said: &Said) {
    for (index, spec) in specs.iter().enumerate() {
        let junk = map.content(index).is_some_and(|content| {
            !content.trim().is_empty()
                && (is_placeholder(content, spec.kind) || said.echoed_in(content))
        });
        if junk {
            map.blank(index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static LIST: ValueKind = ValueKind::Text;

    #[test]
    fn placeholders_in_any_bracket_style() {
        let list = ValueKind::List(&LIST);
        for junk in [
            "[item1]",
            "- [item1]\n- [item2]",
            "1. [item: High]\n2. [item: Low]",
            "<one-line summary>",
            "[Insert step here]",
            "{{name}}",
        ] {
            assert!(is_placeholder(junk, list), "{junk}");
        }
        for fine in [
            "[Draft] Fix the login page",
            "Paris",
            "- Louvre\n- [Orsay]",
            "[1, 2]",
            "<b>bold</b>",
            "[\"a\"]",
        ] {
            assert!(!is_placeholder(fine, list), "{fine}");
        }
        assert!(!is_placeholder("[yes]", ValueKind::Bool));
        assert!(!is_placeholder("{\"a\": 1}", ValueKind::Json));
    }

    #[test]
    fn a_value_that_repeats_a_sentence_the_loop_wrote() {
        let mut said = Said::default();
        said.add(
            "[Name]\nThe event's name, exactly as the text gives it.\n\n[City]\nParis",
            &["Paris"],
        );
        said.add(
            "The [Severity] header must be on a line of its own. Reply again.",
            &[],
        );
        assert!(said.echoed_in("The event's name, exactly as the text gives it."));
        assert!(said.echoed_in("the EVENT's name,  exactly as the text gives it"));
        assert!(said.echoed_in(
            "Crash. The [Severity] header must be on a line\u{200B} of its own. I kept it."
        ));
        assert!(!said.echoed_in("Paris"));
        assert!(!said.echoed_in("Reply again"));
        assert!(!said.echoed_in("Rock in Rio"));
    }
}
