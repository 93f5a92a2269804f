//! Provenance of an extracted value: which layer found it and what was repaired.

use std::fmt;

/// The layer of [`extract`](super::extract) that produced the value.
///
/// Layers run in this order, each only when every earlier one failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Layer {
    /// The reply was valid JSON as it stood.
    AsIs,
    /// The content of a code fence (```` ```json ````, ```` ``` ````, `~~~`,
    /// or a fence that was never closed).
    Fence,
    /// The reply once `<think>`/`<thinking>` blocks were removed.
    ThinkRemoved,
    /// A balanced `{...}` or `[...]` found in surrounding prose.
    Scan,
    /// Broken JSON that the repair pass fixed.
    Repair,
}

impl Layer {
    /// A short lowercase name, stable for logs and ledgers: `as_is`, `fence`,
    /// `think_removed`, `scan`, `repair`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::AsIs => "as_is",
            Layer::Fence => "fence",
            Layer::ThinkRemoved => "think_removed",
            Layer::Scan => "scan",
            Layer::Repair => "repair",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One kind of fix the repair pass applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Repair {
    /// A byte-order mark was skipped.
    Bom,
    /// A `//`, `/* */` or `#` comment was removed.
    Comment,
    /// A comma with no item after it (`[1, 2,]`, `[1,,2]`) was removed.
    TrailingComma,
    /// A missing comma between two items or members was added.
    MissingComma,
    /// An object key without quotes was quoted.
    UnquotedKey,
    /// A string in single quotes was turned into a double-quoted one.
    SingleQuotes,
    /// A string in typographic quotes (`“…”`, `‘…’`) was turned into a
    /// double-quoted one.
    SmartQuotes,
    /// Python's `True`, `False` or `None` became `true`, `false` or `null`.
    PythonLiteral,
    /// A raw newline, tab or other control character inside a string was escaped.
    ControlCharacter,
    /// A backslash that starts no valid escape was escaped itself.
    InvalidEscape,
    /// A closing bracket of the wrong kind was replaced, or one that
    /// closed the whole value before more of its members (`{"a": 1}, "b":
    /// 2}`) was left out.
    MismatchedBracket,
    /// A `;` after the value was removed.
    TrailingSemicolon,
    /// The input stopped early: the open string, number, literal, arrays
    /// and objects were closed.
    Truncated,
    /// A key left without a value by a cut-off reply was dropped.
    DanglingKey,
    /// A string's closing quote was missing where the structure puts it:
    /// before the brackets that close the value (`{"a": "b}`), or before
    /// the comma and key that follow it (`{"a": "b, "c": 1}`); or its
    /// opening quote, a quote glued to words without quotes ending them
    /// (`{"a": b", "c": 1}`, `{a": 1}`).
    MissingQuote,
    /// A `"` inside a string that does not end it (`"a "quoted" word"`,
    /// `"see "https://…" first"`) was escaped.
    UnescapedQuote,
    /// A value of plain words without quotes (`{"city": Kyoto}`) was
    /// quoted: the words between the `:` or `,` and the end of the value.
    UnquotedString,
    /// A `...` or `…` standing for items left out (`[1, 2, ...]`) was
    /// removed; [`Report::dropped`] lists it.
    Placeholder,
    /// A missing `:` between a key and its value (`{"a" 1}`) was added.
    MissingColon,
    /// A Unicode space between tokens (a no-break space, U+180E, U+2000 to
    /// U+200B, U+202F, U+205F, U+3000) was read as white space.
    UnicodeSpace,
    /// JSON written as the inside of a string, every quote escaped
    /// (`{\"a\": 1}`), was read once unescaped.
    StringifiedJson,
    /// A number written `.25`, `1.` or `+1` became `0.25`, `1` or `1`.
    NumberSpelling,
    /// JavaScript's `undefined` or `NaN` became `null`.
    JsLiteral,
    /// A value wrapped in a constructor call (`ObjectId("5f1")`,
    /// `NumberLong(2)`) became the value it wraps.
    Wrapper,
    /// Strings joined with `+` (`"a" + "b"`) became one string.
    StringConcatenation,
    /// A Python tuple (`(1, 2)`, or a whole reply `1, 2`) became a list.
    PythonTuple,
    /// A Python set (`{'a', 'b'}`: values with commas between in braces,
    /// no key) became a list of its values.
    PythonSet,
}

impl Repair {
    /// Every kind, in declaration order.
    pub const ALL: [Repair; 27] = [
        Repair::Bom,
        Repair::Comment,
        Repair::TrailingComma,
        Repair::MissingComma,
        Repair::UnquotedKey,
        Repair::SingleQuotes,
        Repair::SmartQuotes,
        Repair::PythonLiteral,
        Repair::ControlCharacter,
        Repair::InvalidEscape,
        Repair::MismatchedBracket,
        Repair::TrailingSemicolon,
        Repair::Truncated,
        Repair::DanglingKey,
        Repair::MissingQuote,
        Repair::UnescapedQuote,
        Repair::UnquotedString,
        Repair::Placeholder,
        Repair::MissingColon,
        Repair::UnicodeSpace,
        Repair::StringifiedJson,
        Repair::NumberSpelling,
        Repair::JsLiteral,
        Repair::Wrapper,
        Repair::StringConcatenation,
        Repair::PythonTuple,
        Repair::PythonSet,
    ];

    /// A short lowercase name, stable for logs and ledgers.
    pub fn as_str(self) -> &'static str {
        match self {
            Repair::Bom => "bom",
            Repair::Comment => "comment",
            Repair::TrailingComma => "trailing_comma",
            Repair::MissingComma => "missing_comma",
            Repair::UnquotedKey => "unquoted_key",
            Repair::SingleQuotes => "single_quotes",
            Repair::SmartQuotes => "smart_quotes",
            Repair::PythonLiteral => "python_literal",
            Repair::ControlCharacter => "control_character",
            Repair::InvalidEscape => "invalid_escape",
            Repair::MismatchedBracket => "mismatched_bracket",
            Repair::TrailingSemicolon => "trailing_semicolon",
            Repair::Truncated => "truncated",
            Repair::DanglingKey => "dangling_key",
            Repair::MissingQuote => "missing_quote",
            Repair::UnescapedQuote => "unescaped_quote",
            Repair::UnquotedString => "unquoted_string",
            Repair::Placeholder => "placeholder",
            Repair::MissingColon => "missing_colon",
            Repair::UnicodeSpace => "unicode_space",
            Repair::StringifiedJson => "stringified_json",
            Repair::NumberSpelling => "number_spelling",
            Repair::JsLiteral => "js_literal",
            Repair::Wrapper => "wrapper",
            Repair::StringConcatenation => "string_concatenation",
            Repair::PythonTuple => "python_tuple",
            Repair::PythonSet => "python_set",
        }
    }
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of [`Repair`] kinds, as a bit set (the repair pass records into it
/// without allocating).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RepairSet(u32);

impl RepairSet {
    pub(crate) fn insert(&mut self, repair: Repair) {
        self.0 |= 1 << repair as u32;
    }

    pub(crate) fn remove(&mut self, repair: Repair) {
        self.0 &= !(1 << repair as u32);
    }

    /// The kinds in `self` that are not in `before`.
    pub(crate) fn added_since(self, before: RepairSet) -> RepairSet {
        RepairSet(self.0 & !before.0)
    }

    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn contains(self, repair: Repair) -> bool {
        self.0 & (1 << repair as u32) != 0
    }

    pub(crate) fn to_vec(self) -> Vec<Repair> {
        Repair::ALL
            .into_iter()
            .filter(|r| self.contains(*r))
            .collect()
    }
}

/// How a value was extracted: the layer, the repairs and what they left
/// out, for the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Report {
    /// The layer that produced the value.
    pub layer: Layer,
    /// The repairs applied, each kind once, in [`Repair::ALL`] order; empty
    /// unless `layer` is [`Layer::Repair`].
    pub repairs: Vec<Repair>,
    /// What the model wrote inside the value that the value does not hold,
    /// each as written, in order: comments (`// the total`), placeholders
    /// for items left out (`...`), and keys a cut-off reply left without a
    /// value (`"notes"`). Empty when nothing was dropped.
    pub dropped: Vec<String>,
}

impl Report {
    /// Found by `layer` with `repairs` (in [`Repair::ALL`] order), nothing
    /// dropped.
    pub fn new(layer: Layer, repairs: Vec<Repair>) -> Self {
        Report {
            layer,
            repairs,
            dropped: Vec::new(),
        }
    }

    /// The same report, with `dropped` as what was left out of the value.
    ///
    /// ```
    /// use twr_runtime::json::{extract_value_with_report, Layer, Repair, Report};
    ///
    /// let got = extract_value_with_report("{\"a\": 1, // one\n \"b\":").unwrap();
    /// assert_eq!(got.value, serde_json::json!({"a": 1}));
    /// assert_eq!(
    ///     got.report,
    ///     Report::new(
    ///         Layer::Repair,
    ///         vec![Repair::Comment, Repair::Truncated, Repair::DanglingKey]
    ///     )
    ///     .with_dropped(vec!["// one".into(), "\"b\"".into()])
    /// );
    /// ```
    pub fn with_dropped(mut self, dropped: Vec<String>) -> Self {
        self.dropped = dropped;
        self
    }

    /// True when the reply was valid JSON as it stood.
    pub fn is_clean(&self) -> bool {
        self.layer == Layer::AsIs
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.layer.as_str())?;
        for (i, repair) in self.repairs.iter().enumerate() {
            f.write_str(if i == 0 { ": " } else { ", " })?;
            f.write_str(repair.as_str())?;
        }
        Ok(())
    }
}

/// A value together with the [`Report`] of how it was found.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Extracted<T> {
    /// The value.
    pub value: T,
    /// How it was found.
    pub report: Report,
}
