//! How sure the model was of each section: its value's tokens, read from
//! the log-probabilities the server gave with the reply
//! ([`Think::confidence`](crate::Think::confidence)).
//!
//! Each token of the reply is placed in the text the loop read (their
//! text joined is the reply as sent, perhaps with a `<think>` block before
//! it), and each section takes the tokens that fall in its value (the
//! parser knows where each value lies: [`SectionMap::range_at`]). Headers,
//! reasoning and white space are outside every value, or left out. A
//! section's confidence is then scored by its kind (see [`score`]).

use std::ops::Range;

use crate::model::TokenLogprob;
use crate::parse::SectionMap;
use crate::phrases::Phrases;
use crate::sections::{Presence, SectionSpec, ValueKind};

/// A section's confidence: its field name and a number in `0.0..=1.0`.
pub(crate) type FieldConfidence = (&'static str, f64);

/// Where the tokens of `tokens` lie in `raw`, the reply as the loop read
/// it: `(token index, byte range in raw)` for every token that falls in
/// it. `None` when the tokens are not the reply's (a server that sent the
/// log-probabilities of other text, a reply cut by a transport retry).
///
/// The tokens, joined, are the reply as the server sent it: the same text,
/// or the text with reasoning before it (an inline `<think>` block the
/// client moved out) and white space trimmed around it.
fn placed(raw: &str, tokens: &[TokenLogprob]) -> Option<Vec<(usize, Range<usize>)>> {
    let joined: String = tokens.iter().map(|token| token.token.as_str()).collect();
    let answer = raw.trim();
    if answer.is_empty() {
        return None;
    }
    let raw_start = raw.len() - raw.trim_start().len();
    // The answer is the end of the joined text in the usual case (a block
    // before it); else its last place, after any reasoning that quotes
    // it (`rfind` is linear: a two-way search).
    let joined_start = if joined.ends_with(answer) {
        joined.len() - answer.len()
    } else {
        joined.rfind(answer)?
    };
    let mut out = Vec::with_capacity(tokens.len());
    let mut at = 0usize;
    for (index, token) in tokens.iter().enumerate() {
        let (start, end) = (at, at + token.token.len());
        at = end;
        // In the answer's coordinates, clipped to it.
        let start = start.max(joined_start);
        let end = end.min(joined_start + answer.len());
        if start < end {
            out.push((
                index,
                raw_start + start - joined_start..raw_start + end - joined_start,
            ));
        }
    }
    Some(out)
}

/// True when the grammar of a constrained attempt wrote `token` alone: the
/// server listed no other token for the place, or gave it all the
/// probability. Such a token says nothing of what the model believed.
///
/// A server that lists the model's own probabilities before the grammar
/// (llama.cpp's default) shows a forced token as the model weighed it, so
/// it counts; one that lists them after the grammar shows a forced token
/// alone, at probability 1.
fn forced(token: &TokenLogprob) -> bool {
    let others = token
        .top
        .iter()
        .filter(|(text, logprob)| *text != token.token && logprob.exp() > 1e-6)
        .count();
    others == 0 && token.logprob > -1e-6
}

/// Each section's confidence in a reply `raw` whose tokens are `tokens`,
/// its sections at `sections` (`None` for each section the reply does
/// not have). `constrained`: the reply was written under a grammar, whose
/// forced tokens do not count. Sections in spec order, only those
/// measured.
pub(crate) fn of_reply(
    raw: &str,
    tokens: &[TokenLogprob],
    specs: &[SectionSpec],
    ranges: impl Fn(usize) -> Option<Range<usize>>,
    constrained: bool,
    phrases: &Phrases,
) -> Vec<FieldConfidence> {
    if tokens.is_empty() {
        return Vec::new();
    }
    let Some(placed) = placed(raw, tokens) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (index, spec) in specs.iter().enumerate() {
        let Some(range) = ranges(index) else { continue };
        let value: Vec<(&TokenLogprob, &str)> = placed
            .iter()
            .filter(|(_, at)| at.start < range.end && range.start < at.end)
            .filter_map(|(token, at)| {
                let within = &raw[at.start.max(range.start)..at.end.min(range.end)];
                counts(within, spec.kind).then_some((&tokens[*token], within))
            })
            .collect();
        if value.is_empty() {
            continue;
        }
        let free: Vec<(&TokenLogprob, &str)> = value
            .iter()
            .copied()
            .filter(|(token, _)| !(constrained && forced(token)))
            .collect();
        // A value the grammar wrote alone: the model chose none of it.
        let confidence = if free.is_empty() {
            0.0
        } else {
            score(spec, &free, phrases)
        };
        out.push((spec.field, confidence.clamp(0.0, 1.0)));
    }
    out
}

/// The confidences of the sections of `map`, a reply split into its
/// sections (see [`of_reply`]).
pub(crate) fn of_map(
    raw: &str,
    tokens: &[TokenLogprob],
    specs: &[SectionSpec],
    map: &SectionMap<'_>,
    constrained: bool,
    phrases: &Phrases,
) -> Vec<FieldConfidence> {
    of_reply(
        raw,
        tokens,
        specs,
        |index| map.range_at(index),
        constrained,
        phrases,
    )
}

/// Whether the part of a token inside a value counts: not white space,
/// and for a list not a bare item marker (`-`, `*`, `1.`), which says
/// nothing of the item.
fn counts(within: &str, kind: ValueKind) -> bool {
    let text = within.trim();
    if text.is_empty() {
        return false;
    }
    let marker = matches!(kind, ValueKind::List(_))
        && text
            .chars()
            .all(|c| matches!(c, '-' | '*' | '+' | '•' | '.' | ')') || c.is_ascii_digit());
    !marker
}

/// A section's confidence from the tokens of its value (the part of each
/// inside the value beside it), by its kind:
///
/// - a bool, a choice, or an optional section that may say "none": the
///   probability of the alternative written against the others at the
///   first token of the value (tokens that begin no alternative are left
///   out of both; a bool's alternatives are its two meanings, so "true"
///   counts for "yes"), so a model torn between "yes" and "no" scores about
///   a half whatever else it considered. An alternative the server did not
///   list is counted at the least probability it listed, the most it can
///   have had: a server lists only the likeliest tokens, and a word the
///   model barely weighed (a grammar made it answer yes or no while it
///   wanted to write something else) is not sure because its rival fell
///   off the list too;
/// - a whole number or a float: the geometric mean of its digit tokens'
///   probabilities. The product (the probability of writing exactly this
///   number) was tried first: it falls with every digit, so a right
///   four-digit year scored below a wrong one-word name, and across the
///   held-out texts (the guide's measurements) it told right from wrong
///   worse (area under the curve 0.57 against 0.76, the same values);
/// - text and the rest: the geometric mean of its tokens' probabilities,
///   which does not fall with the length of a text that is right.
pub(crate) fn score(spec: &SectionSpec, value: &[(&TokenLogprob, &str)], phrases: &Phrases) -> f64 {
    let alternatives = alternatives(spec, phrases);
    if !alternatives.is_empty() {
        if let Some(share) = share(value[0].0, value[0].1, &alternatives) {
            return share;
        }
    }
    match spec.kind {
        ValueKind::Integer | ValueKind::Float => {
            let digits: Vec<&TokenLogprob> = value
                .iter()
                .filter(|(_, within)| within.chars().any(|c| c.is_ascii_digit()))
                .map(|(token, _)| *token)
                .collect();
            let tokens: Vec<&TokenLogprob> = if digits.is_empty() {
                value.iter().map(|(token, _)| *token).collect()
            } else {
                digits
            };
            (tokens.iter().map(|token| token.logprob).sum::<f64>() / tokens.len() as f64).exp()
        }
        _ => {
            let sum: f64 = value.iter().map(|(token, _)| token.logprob).sum();
            (sum / value.len() as f64).exp()
        }
    }
}

/// One word a section's value may be, lowercased, and the meaning it
/// stands for: a bool's yes words share one meaning and its no words
/// another; each value of a choice is its own; the words for "none" of an
/// optional section are one more.
struct Alternative {
    word: String,
    meaning: usize,
}

/// The words a section's value is one of, with their meanings. Empty for
/// a free value.
fn alternatives(spec: &SectionSpec, phrases: &Phrases) -> Vec<Alternative> {
    let mut words: Vec<(&str, usize)> = match spec.kind {
        ValueKind::Bool => phrases
            .yes_words
            .iter()
            .map(|&word| (word, 0))
            .chain(phrases.no_words.iter().map(|&word| (word, 1)))
            .collect(),
        ValueKind::Choice(values) => values.iter().enumerate().map(|(i, &v)| (v, i)).collect(),
        _ => return Vec::new(),
    };
    if spec.presence != Presence::Required {
        let none = words
            .iter()
            .map(|&(_, meaning)| meaning + 1)
            .max()
            .unwrap_or(0);
        words.extend(phrases.none_words.iter().map(|&word| (word, none)));
    }
    words
        .into_iter()
        .map(|(word, meaning)| Alternative {
            word: word.to_lowercase(),
            meaning,
        })
        .collect()
}

/// The share of the meaning that `token` (its part `within` the value)
/// begins, against the other meanings at its place; `None` when it begins
/// no alternative. See [`score`].
fn share(token: &TokenLogprob, within: &str, alternatives: &[Alternative]) -> Option<f64> {
    let begins = |text: &str| -> Option<&Alternative> {
        let text = text.trim().to_lowercase();
        if text.is_empty() {
            return None;
        }
        alternatives
            .iter()
            .find(|a| a.word.starts_with(&text) || text.starts_with(a.word.as_str()))
    };
    let chosen = begins(within)?;
    // Several alternatives may share a first token ("n": "no", "none"):
    // the same when the word begins with the other's text.
    let same = |other: &Alternative| {
        other.meaning == chosen.meaning
            || other.word.starts_with(chosen.word.as_str())
            || chosen.word.starts_with(other.word.as_str())
    };
    let mut for_chosen = 0.0;
    let mut against = 0.0;
    let mut listed = false;
    let mut meanings_listed = Vec::new();
    for (text, logprob) in &token.top {
        let Some(alternative) = begins(text) else {
            continue;
        };
        let p = logprob.exp();
        if text == &token.token {
            listed = true;
        }
        meanings_listed.push(alternative.meaning);
        if same(alternative) {
            for_chosen += p;
        } else {
            against += p;
        }
    }
    if !listed {
        for_chosen += token.probability();
    }
    // The least probability listed for another token: a token the server
    // left off its list had at most that much.
    let floor = token
        .top
        .iter()
        .filter(|(text, _)| *text != token.token)
        .map(|(_, logprob)| logprob.exp())
        .fold(f64::INFINITY, f64::min);
    if floor.is_finite() {
        let mut unlisted: Vec<usize> = alternatives
            .iter()
            .filter(|a| !same(a) && !meanings_listed.contains(&a.meaning))
            .map(|a| a.meaning)
            .collect();
        unlisted.dedup();
        against += floor * unlisted.len() as f64;
    }
    let total = for_chosen + against;
    (total > 0.0).then(|| for_chosen / total)
}

/// The confidence of `field` among `confidences`.
pub(crate) fn find(confidences: &[FieldConfidence], field: &str) -> Option<f64> {
    confidences
        .iter()
        .find(|(name, _)| *name == field)
        .map(|&(_, confidence)| confidence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phrases::Phrases;

    fn token(text: &str, p: f64, top: &[(&str, f64)]) -> TokenLogprob {
        TokenLogprob {
            token: text.into(),
            logprob: p.ln(),
            top: top.iter().map(|&(t, p)| (t.to_string(), p.ln())).collect(),
        }
    }

    const SPECS: &[SectionSpec] = &[
        SectionSpec::new("urgent", "[Urgent]", "Urgent", ValueKind::Bool),
        SectionSpec::new("count", "[Count]", "Count", ValueKind::Integer),
        SectionSpec::new("title", "[Title]", "Title", ValueKind::Text),
    ];

    fn confidences(raw: &str, tokens: &[TokenLogprob], constrained: bool) -> Vec<FieldConfidence> {
        let map = crate::parse::split_sections(raw, SPECS);
        of_map(raw, tokens, SPECS, &map, constrained, &Phrases::ENGLISH)
    }

    fn close(got: &[FieldConfidence], want: &[FieldConfidence]) {
        assert_eq!(got.len(), want.len(), "{got:?}");
        for ((gf, gc), (wf, wc)) in got.iter().zip(want) {
            assert_eq!(gf, wf);
            assert!((gc - wc).abs() < 1e-9, "{gf}: {gc} != {wc}");
        }
    }

    #[test]
    fn each_kind_is_scored_from_its_own_tokens() {
        let raw = "[Urgent]\nyes\n\n[Count]\n12\n\n[Title]\nDisk full";
        let tokens = [
            token("[", 0.5, &[]),
            token("Urgent", 0.5, &[]),
            token("]\n", 0.5, &[]),
            token("yes", 0.6, &[("yes", 0.6), ("no", 0.2), ("maybe", 0.1)]),
            token("\n\n", 0.1, &[]),
            token("[Count]\n", 0.3, &[]),
            token("1", 0.8, &[]),
            token("2", 0.5, &[]),
            token("\n\n[Title]\n", 0.2, &[]),
            token("Disk", 0.9, &[]),
            token(" full", 0.4, &[]),
        ];
        close(
            &confidences(raw, &tokens, false),
            &[("urgent", 0.75), ("count", 0.4f64.sqrt()), ("title", 0.6)],
        );
    }

    #[test]
    fn a_rival_the_server_did_not_list_counts_at_the_least_it_listed() {
        let raw = "[Urgent]\nyes";
        // The model wanted to write something else; "yes" was its 11th
        // token (a grammar allowed only yes or no), and "no" is unlisted.
        let top = [("Whether", 0.7), ("The", 0.05), ("[", 0.02), ("1", 0.01)];
        let mut listed: Vec<(&str, f64)> = top.to_vec();
        listed.push(("yes", 0.004));
        let tokens = [token("[Urgent]\n", 0.9, &[]), token("yes", 0.004, &listed)];
        // 0.004 against "no" at most 0.01: 0.004 / 0.014.
        close(
            &confidences(raw, &tokens, true),
            &[("urgent", 0.004 / 0.014)],
        );
        // "True" means yes: it counts for it, not against it; "no" and
        // "false" are one meaning, listed at 0.05.
        let tokens = [
            token("[Urgent]\n", 0.9, &[]),
            token(
                "yes",
                0.5,
                &[("yes", 0.5), ("True", 0.3), ("No", 0.05), ("false", 0.05)],
            ),
        ];
        close(&confidences(raw, &tokens, false), &[("urgent", 0.8 / 0.9)]);
        // Sure: the rival is off a list whose least is tiny.
        let tokens = [
            token("[Urgent]\n", 0.9, &[]),
            token("yes", 0.98, &[("yes", 0.98), ("Yes", 0.01), ("The", 0.001)]),
        ];
        close(
            &confidences(raw, &tokens, false),
            &[("urgent", 0.99 / 0.991)],
        );
    }

    #[test]
    fn reasoning_before_the_answer_is_left_out() {
        let raw = "[Title]\nOk";
        let tokens = [
            token("<think>", 0.1, &[]),
            token("hm</think>\n", 0.1, &[]),
            token("[Title]\n", 0.9, &[]),
            token("Ok", 0.7, &[]),
        ];
        close(&confidences(raw, &tokens, false), &[("title", 0.7)]);
        // Tokens of some other text: nothing is measured.
        assert!(confidences(raw, &[token("Other", 0.9, &[])], false).is_empty());
    }

    #[test]
    fn tokens_a_grammar_forced_do_not_count() {
        let raw = "[Title]\nAb";
        let tokens = [
            token("[Title]\n", 1.0, &[("[Title]\n", 1.0)]),
            token("A", 1.0, &[("A", 1.0)]),
            token("b", 0.25, &[("b", 0.25), ("c", 0.75)]),
        ];
        close(&confidences(raw, &tokens, true), &[("title", 0.25)]);
        close(&confidences(raw, &tokens, false), &[("title", 0.5)]);
        let all_forced = [token("[Title]\n", 1.0, &[]), token("Ab", 1.0, &[])];
        close(&confidences(raw, &all_forced, true), &[("title", 0.0)]);
    }
}
