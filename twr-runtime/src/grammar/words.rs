//! The words the parser reads by meaning, offered by the grammar: a
//! `bool`'s answers and an `Option`'s "none".

use crate::sections::Lang;

/// The answers a `bool` section is read from, `(yes, no)`, as the grammar
/// offers them in `lang`. The parser reads these (`parse/value.rs`) in any
/// language; the grammar offers the run's own.
pub(crate) fn bool_words(lang: Lang) -> (&'static [&'static str], &'static [&'static str]) {
    match lang {
        Lang::Zh => (&["是", "是的", "对"], &["否", "不是", "不对"]),
        _ => (&["yes", "true"], &["no", "false"]),
    }
}

/// The words that say an `Option` section has no value, as the grammar
/// offers them in `lang` (the parser reads them in any language).
pub(crate) fn none_words(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Zh => &["无", "不适用"],
        _ => &["N/A", "None"],
    }
}
