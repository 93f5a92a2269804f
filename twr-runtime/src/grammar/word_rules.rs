//! The words the parser reads by meaning, offered by the grammar: a
//! `bool`'s answers and an `Option`'s "none", from the phrase table the
//! parser reads them by (`Phrases::yes_words`, `no_words`, `none_words`).

use crate::phrases::phrases;
use crate::sections::Lang;

/// The answers a `bool` section is read from, `(yes, no)`, as the grammar
/// offers them in `lang`: the words of the table the parser reads.
///
/// The built-in tables accept the answers of both English and Chinese (a
/// model asked in one may answer in the other); the grammar offers only
/// the run's own language's, so a constrained model answers in the
/// language it was asked in. A table of one's own is offered whole.
pub(crate) fn bool_words(lang: Lang) -> (Vec<String>, Vec<String>) {
    let table = phrases(lang);
    (own(lang, table.yes_words), own(lang, table.no_words))
}

/// The words that say an `Option` section has no value, as the grammar
/// offers them in `lang` (see [`bool_words`]).
pub(crate) fn none_words(lang: Lang) -> Vec<String> {
    own(lang, phrases(lang).none_words)
}

/// The words of `words` in `lang`'s own script: for English, those without
/// Chinese characters; for Chinese, those with; a table of one's own, all.
/// Never empty for a word list that is not: a list with none of the
/// language's words is offered whole.
fn own(lang: Lang, words: &'static [&'static str]) -> Vec<String> {
    let chinese = |word: &str| word.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    let kept: Vec<&'static str> = match lang {
        Lang::En => words.iter().copied().filter(|w| !chinese(w)).collect(),
        Lang::Zh => words.iter().copied().filter(|w| chinese(w)).collect(),
        Lang::Custom(_) => words.to_vec(),
    };
    let kept = if kept.is_empty() {
        words.to_vec()
    } else {
        kept
    };
    cased(kept)
}

/// Each word as it is, capitalized and in capitals (`n/a`, `N/a`, `N/A`):
/// the parser reads them regardless of case, and a model writes them in
/// any. The first word stays first.
fn cased(words: Vec<&'static str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(words.len() * 3);
    for word in words {
        let mut chars = word.chars();
        let capitalized = chars
            .next()
            .map(|first| first.to_uppercase().chain(chars).collect::<String>());
        let variants = [
            Some(word.to_owned()),
            capitalized,
            Some(word.to_uppercase()),
        ];
        for variant in variants.into_iter().flatten() {
            if !out.contains(&variant) {
                out.push(variant);
            }
        }
    }
    out
}
