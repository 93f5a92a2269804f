//! Values the loop can tell are not answers: a section whose value
//! repeats a sentence the loop itself wrote to the model (the guide, a
//! feedback message, a focused question), or is only a placeholder in
//! brackets (`[item1]`, `<one-line summary>`, `[Insert step here]`).
//! Such a section counts as empty, whatever attempt or merge it came from,
//! a constrained one included: a grammar fixes the shape of a reply, not
//! whether it says anything.

use crate::parse::SectionMap;
use crate::sections::{SectionSpec, ValueKind};
use crate::text::is_zero_width;

/// A sentence shorter than this (in characters, once normalised) is not
/// matched: short phrases ("Yes.", "None.") are answers as often as echoes.
const MIN_SENTENCE: usize = 20;

/// A sentence with fewer words than this is not matched: a fragment
/// ("For example:", "Example answer:") is no sentence a value can repeat.
const MIN_WORDS: usize = 4;

/// The sentences the loop has written to the model in a run, normalised
/// (lowercase, white space collapsed, closing punctuation dropped), so
/// that a value that repeats one is recognised.
#[derive(Debug, Default)]
pub(crate) struct Said {
    sentences: Vec<String>,
}

impl Said {
    /// Remembers the real sentences of `text` (see [`is_sentence`]), except
    /// those found in `except` (the sections' own examples, which a right
    /// answer may equal or contain).
    pub(crate) fn add(&mut self, text: &str, except: &[&str]) {
        let except: Vec<String> = except.iter().map(|e| normalised(e)).collect();
        for sentence in sentences(text).filter(|sentence| is_sentence(sentence)) {
            let sentence = normalised(sentence);
            // A CJK character is about a word: it counts as three.
            let length: usize = sentence
                .chars()
                .map(|c| if is_cjk(c) { 3 } else { 1 })
                .sum();
            if length >= MIN_SENTENCE
                && !except
                    .iter()
                    .any(|example| example.contains(sentence.as_str()))
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
/// space (and after `。`, `？`, `！`), and at line breaks; a line's list
/// marker (`1. `, `- `) is no part of its sentence.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.lines().flat_map(|line| {
        let line = item_text(line.trim());
        let mut out = Vec::new();
        let mut start = 0;
        let mut chars = line.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            let next = chars.peek().map(|&(_, next)| next);
            let ends = match c {
                '.' | '?' | '!' => next.is_none_or(char::is_whitespace),
                '。' | '？' | '！' => true,
                _ => false,
            };
            if ends {
                let end = at + c.len_utf8();
                out.push(&line[start..end]);
                start = end;
            }
        }
        out.push(&line[start..]);
        out.into_iter()
            .map(str::trim)
            .filter(|sentence| !sentence.is_empty())
    })
}

/// True when `text` is a real sentence the loop wrote: words closed by
/// the punctuation that ends a sentence (a closing quote or bracket after
/// it allowed), with at least [`MIN_WORDS`] words that hold a letter (each
/// CJK character counts as a word). A table row (`| Item | Qty |`), a
/// header (`[Plan]`), a list example's line (`1. Fushimi Inari at dawn`)
/// or a fragment (`For example:`) is none: a right value may contain such
/// a line (a table's header row, an example item), never a whole sentence
/// of the guide or the feedback.
fn is_sentence(text: &str) -> bool {
    if text.contains('|') {
        return false;
    }
    let closed = text
        .trim_end_matches(['"', '\'', ')', ']', '”', '’', '」', '）'])
        .ends_with(['.', '?', '!', '。', '？', '！']);
    if !closed {
        return false;
    }
    let cjk = text.chars().filter(|&c| is_cjk(c)).count();
    let words = text
        .split_whitespace()
        .filter(|word| word.chars().any(|c| c.is_alphabetic() && !is_cjk(c)))
        .count();
    words + cjk >= MIN_WORDS
}

/// A CJK ideograph or kana: a language written without spaces, where one
/// character is about one word.
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}')
}

/// Lowercase, zero-width characters dropped, white space collapsed to
/// one space, and the punctuation that closes a sentence dropped.
fn normalised(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        // Zero-width characters hide nothing: a model may slip them into
        // a sentence it copies.
        if is_zero_width(c) {
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
    while out.ends_with(['.', '!', '?', ':', ';', ',', '。', '？', '！']) {
        out.pop();
    }
    out
}

/// True when `value` is only placeholders: every line (a list item's
/// marker left out) is one bracketed slot, in square, angle or curly
/// brackets, holding words and nothing else (`[item1]`, `[item: High]`,
/// `<one-line summary>`, `{{name}}`). A value in JSON, a table or a
/// Choice value is left alone: its brackets are its syntax or its words.
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

    #[test]
    fn only_real_sentences_are_remembered() {
        let mut said = Said::default();
        said.add(
            "Think it through freely first.\n\n[Rows]\nThe invoice's lines.\n\
             | Item | Qty | Price | Total |\n|---|---|---|---|\n\
             For example:\n1. Fushimi Inari at dawn\n2. Kiyomizu-dera and Gion at dusk\n\
             1. The [Plan] section is empty. Please write a list, one item per line.\n\
             请先自由思考，再在下面各节中给出答案。\n\
             It says 'three'.",
            &["1. Fushimi Inari at dawn"],
        );
        assert_eq!(
            said.sentences,
            [
                "think it through freely first",
                "the [plan] section is empty",
                "please write a list, one item per line",
                "请先自由思考，再在下面各节中给出答案",
            ]
        );
        // A right table and a right list, whose lines the guide showed,
        // are no echo.
        assert!(!said.echoed_in(
            "| Item | Qty | Price | Total |\n|---|---|---|---|\n| pen | 2 | $1.50 | $3 |"
        ));
        assert!(!said.echoed_in("1. Fushimi Inari at dawn, then Tofuku-ji"));
        assert!(said.echoed_in("- The [Plan] section is empty.\n- Tofuku-ji"));
    }
}
