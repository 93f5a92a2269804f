//! Every text twr writes for a model, one table per language.
//!
//! The format guide, the feedback and the loop's own requests all take their
//! words from the [`Phrases`] of the run's [`Lang`]; the code that assembles
//! them (`feedback/render.rs`, `prompt.rs`, `think/messages.rs`) holds no
//! words of its own. Templates name their blanks (`{h}`, `{found}`, ...) and
//! are filled by [`fill`], so a translation may put them in any order.
//! Adding a language is a new table beside `en.rs` and `zh.rs`, a [`Lang`]
//! variant, and its arm in [`phrases`].

mod en;
mod zh;

use std::fmt;

use crate::parse::{Expected, ValueError};

use crate::sections::{Lang, ValueKind};

/// The phrases of one language.
pub(crate) struct Phrases {
    /// Ends a sentence: `.` or `。`.
    pub(crate) stop: char,
    /// Between two sentences of one paragraph: a space, or nothing.
    pub(crate) sentence_gap: &'static str,
    /// Between the items of a list written inline: `, ` or `、`.
    pub(crate) comma: &'static str,
    /// Before the last item of a list written inline: ` and ` or `和`.
    pub(crate) and: &'static str,
    /// Before the last item of a list of alternatives: ` or ` or `或`.
    pub(crate) or: &'static str,

    // What a value should be: "The [Weeks] section should be {expected}".
    /// [`Expected::Text`].
    pub(crate) some_text: &'static str,
    /// [`Expected::WholeNumber`], [`ValueKind::Integer`].
    pub(crate) whole_number: &'static str,
    /// [`Expected::WholeNumberBetween`]: `{whole_number}`, `{min}`, `{max}`.
    pub(crate) whole_number_between: &'static str,
    /// [`Expected::Number`], [`ValueKind::Float`].
    pub(crate) number: &'static str,
    /// [`Expected::YesNo`], [`ValueKind::Bool`].
    pub(crate) yes_no: &'static str,
    /// [`Expected::OneCharacter`], [`ValueKind::Char`].
    pub(crate) one_character: &'static str,
    /// [`Expected::OneOf`], [`ValueKind::Choice`]: `{values}`.
    pub(crate) one_of: &'static str,
    /// [`ValueKind::List`].
    pub(crate) list: &'static str,
    /// After a scalar's noun, its example said inline: `{example}`.
    pub(crate) such_as: &'static str,
    /// [`ValueKind::Table`].
    pub(crate) table: &'static str,
    /// [`ValueKind::Record`].
    pub(crate) record: &'static str,
    /// [`ValueKind::Map`].
    pub(crate) map: &'static str,
    /// The name of an entry in a map section's placeholder: `Name: 3`.
    pub(crate) map_key: &'static str,

    // What to write under a missing or empty section, where it differs from
    // the nouns above.
    /// A text section, or a section of unknown kind.
    pub(crate) its_content: &'static str,
    /// A JSON section.
    pub(crate) the_json_value: &'static str,
    /// A `from_str` section.
    pub(crate) its_value: &'static str,

    // The format guide's line for a kind, where it differs from the nouns
    // above.
    /// A text section without a description.
    pub(crate) free_text: &'static str,
    /// A JSON section.
    pub(crate) a_json_value: &'static str,
    /// A `from_str` section.
    pub(crate) a_single_value: &'static str,
    /// A placeholder in the example answer: `{what}`.
    pub(crate) slot: &'static str,
    /// What a slot of a list of text holds.
    pub(crate) item: &'static str,
    /// What a table's header cells of a slot hold.
    pub(crate) column: &'static str,
    /// What a record's labels of a slot hold.
    pub(crate) label: &'static str,
    /// What the values of a table, record or map slot hold.
    pub(crate) value: &'static str,
    /// A description that says this (lower case) needs no "a list, one
    /// item per line" after it.
    pub(crate) per_line: &'static str,

    // The format guide.
    /// Opens the guide.
    pub(crate) guide_intro: &'static str,
    /// Opens the guide of the XML style (`#[sections(style = "xml")]`).
    pub(crate) guide_intro_xml: &'static str,
    /// After the header of an `Option` section.
    pub(crate) guide_optional: &'static str,
    /// After the header of a `#[section(default)]` section.
    pub(crate) guide_may_omit: &'static str,
    /// Introduces the complete example answer.
    pub(crate) guide_example: &'static str,
    /// Ends the guide: where the final answer starts, `{h}` (the first
    /// section's header).
    pub(crate) guide_begin: &'static str,
    /// Opens the list of the ways of a choice (an enum of section sets).
    pub(crate) guide_ways: &'static str,
    /// Heads one way of a choice: `{n}` (its number), `{name}`.
    pub(crate) guide_way: &'static str,
    /// Introduces the example answer of one way: `{n}`, `{name}`.
    pub(crate) guide_example_way: &'static str,

    // Feedback: the frame of the message.
    /// Opens a message with several problems.
    pub(crate) intro: &'static str,
    /// Introduces an example block.
    pub(crate) for_example: &'static str,
    /// Ends a message about one section.
    pub(crate) closing_one: &'static str,
    /// Ends a message about several sections.
    pub(crate) closing_many: &'static str,

    // Feedback: one sentence per problem. `{h}` is the section's header.
    /// `{h}`, `{kind}`: what to write.
    pub(crate) missing: &'static str,
    /// `{h}`, `{kind}`.
    pub(crate) empty: &'static str,
    /// `{h}`, `{expected}`, `{found}`.
    pub(crate) bad_value: &'static str,
    /// `{h}`, `{index}`, `{expected}`, `{item}`.
    pub(crate) bad_item: &'static str,
    /// JSON of the wrong shape at its root: `{h}`, `{message}`.
    pub(crate) json_shape: &'static str,
    /// JSON wrong at a field: `{h}`, `{path}`, `{message}`.
    pub(crate) json_at: &'static str,
    /// As `json_shape`, for a whole reply read as JSON: `{message}`.
    pub(crate) reply_json_shape: &'static str,
    /// As `json_at`, for a whole reply read as JSON: `{path}`, `{message}`.
    pub(crate) reply_json_at: &'static str,
    /// `{h}`, `{message}`, `{found}`.
    pub(crate) unreadable: &'static str,
    /// `{h}`, `{message}`.
    pub(crate) invalid: &'static str,
    /// `{h}`, `{wrote}`.
    pub(crate) near_miss: &'static str,
    /// `{h}`, `{wrote}`.
    pub(crate) unread_header: &'static str,
    /// `{h}`, `{line}`.
    pub(crate) not_on_own_line: &'static str,
    /// `{headers}`.
    pub(crate) none_of: &'static str,
    /// A reply with no section of a choice: `{choice}`, `{ways}`.
    pub(crate) no_choice: &'static str,
    /// A reply with sections of several ways of a choice: `{choice}`,
    /// `{found}` (the ways written), `{ways}` (every way).
    pub(crate) mixed_choice: &'static str,
    /// One way and its headers, in `no_choice` and `mixed_choice`:
    /// `{name}`, `{headers}`.
    pub(crate) way_headers: &'static str,
    /// No blanks.
    pub(crate) missing_divider: &'static str,

    // Feedback inside a table, record or map section. `{at}` is one of the
    // places below.
    /// A cell: `{row}`, `{column}`.
    pub(crate) at_cell: &'static str,
    /// A whole row: `{row}`.
    pub(crate) at_row: &'static str,
    /// A record line: `{label}`.
    pub(crate) at_label: &'static str,
    /// `{h}`, `{at}`.
    pub(crate) cell_empty: &'static str,
    /// `{h}`, `{at}`, `{found}`, `{expected}`.
    pub(crate) cell_bad: &'static str,
    /// `{h}`, `{at}`, `{index}`, `{expected}`, `{item}`.
    pub(crate) cell_bad_item: &'static str,
    /// `{h}`, `{at}`, `{found}`, `{message}`.
    pub(crate) cell_unreadable: &'static str,
    /// A record field with no line: `{h}`, `{label}`.
    pub(crate) no_line: &'static str,
    /// `{h}`, `{columns}`.
    pub(crate) no_table: &'static str,
    /// `{h}`, `{labels}`.
    pub(crate) no_record: &'static str,
    /// `{h}`, `{column}`, `{columns}`.
    pub(crate) no_column: &'static str,
    /// `{h}`, `{label}`, `{labels}`.
    pub(crate) unknown_label: &'static str,
    /// `{h}`, `{at}`, `{columns}`, `{extra}`.
    pub(crate) extra_cells: &'static str,
    /// `{h}`, `{count}`.
    pub(crate) omitted: &'static str,

    // The loop's requests after a rejected or cut-off reply.
    /// One section asked for again: `{headers}`.
    pub(crate) sections_one: &'static str,
    /// Several sections asked for again: `{headers}`.
    pub(crate) sections_many: &'static str,
    /// Only some sections again: `{sections}`.
    pub(crate) ask_sections: &'static str,
    /// After a streamed reply stopped at an invalid section: the rest of
    /// the answer, from that section on: `{sections}`.
    pub(crate) ask_after_stop: &'static str,
    /// The whole answer again.
    pub(crate) ask_whole: &'static str,
    /// As `ask_whole`, for a type with a choice of ways.
    pub(crate) ask_whole_way: &'static str,
    /// A new answer, for a parser of the caller's own.
    pub(crate) ask_free: &'static str,
    /// The same problems as last time.
    pub(crate) same_problems: &'static str,
    /// Escalation with the format guide following: `{same}`.
    pub(crate) escalate_with_guide: &'static str,
    /// Escalation without a guide: `{same}`.
    pub(crate) escalate: &'static str,
    /// The reply was cut off by the token limit.
    pub(crate) cut_off: &'static str,
    /// One complete section of a cut reply kept: `{headers}`.
    pub(crate) kept_one: &'static str,
    /// Several complete sections of a cut reply kept: `{headers}`.
    pub(crate) kept_many: &'static str,
    /// Only the rest of a cut reply, short: `{sections}`.
    pub(crate) write_only: &'static str,
    /// The whole of a cut reply again, shorter.
    pub(crate) rewrite_shorter: &'static str,
    /// In the excerpt of a huge failed reply sent back: `{bytes}` bytes of
    /// it are left out here.
    pub(crate) left_out: &'static str,

    // Demonstrations (`Think::demonstration`, `Think::auto_demonstration`).
    /// The question of the demonstration built from the sections' examples.
    pub(crate) demo_question: &'static str,
    /// After the real prompt, when a demonstration showed the format:
    /// `{headers}`.
    pub(crate) same_format: &'static str,
    /// As `same_format`, for a type with a choice of ways: `{ways}`.
    pub(crate) same_format_ways: &'static str,

    // The last resorts (`think/focus.rs`).
    /// A focused question about a section without a description: `{name}`.
    pub(crate) focused_nameless: &'static str,
    /// Ends a focused question: `{what}`.
    pub(crate) focused_reply: &'static str,
    /// Ends a focused question, with the section's example: `{what}`,
    /// `{example}`.
    pub(crate) focused_reply_example: &'static str,
    /// Follows the focused question about an optional section.
    pub(crate) focused_optional: &'static str,
    /// What to reply with for a number.
    pub(crate) the_number: &'static str,
    /// What to reply with for a list.
    pub(crate) the_list: &'static str,
    /// What to reply with for text.
    pub(crate) the_answer: &'static str,
    /// Restates a request that was only acknowledged; the example answer
    /// of the sections asked for follows.
    pub(crate) write_now: &'static str,
    /// Ends a request after a cut-off reply: `{h}`, the first header to
    /// write.
    pub(crate) start_with: &'static str,
}

/// The phrases of `lang`.
pub(crate) fn phrases(lang: Lang) -> &'static Phrases {
    match lang {
        Lang::En => &en::EN,
        Lang::Zh => &zh::ZH,
    }
}

/// `template` with each `{name}` blank replaced by its value in `values`.
///
/// One pass over the template: the values are not searched for blanks, so a
/// quoted reply containing `{h}` stays as written. A blank with no value is
/// left as it is.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let extra: usize = values.iter().map(|(_, value)| value.len()).sum();
    let mut out = String::with_capacity(template.len() + extra);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            values
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value, close))
        });
        match value {
            Some((value, close)) => {
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

impl Phrases {
    /// What a value should be: "a single whole number", with its example
    /// when `such_as` gives one ("a single whole number such as 6").
    pub(crate) fn expected(&self, expected: &Expected, such_as: Option<&str>) -> String {
        let noun = match expected {
            Expected::Text => self.some_text.to_owned(),
            Expected::WholeNumber => self.whole_number.to_owned(),
            Expected::WholeNumberBetween { min, max } => fill(
                self.whole_number_between,
                &[
                    ("whole_number", self.whole_number),
                    ("min", min),
                    ("max", max),
                ],
            ),
            Expected::Number => self.number.to_owned(),
            Expected::YesNo => self.yes_no.to_owned(),
            Expected::OneCharacter => self.one_character.to_owned(),
            Expected::OneOf(values) => self.one_of(values),
            Expected::Described(text) => without_stop(text).to_owned(),
        };
        match such_as {
            Some(example) => noun + &fill(self.such_as, &[("example", example)]),
            None => noun,
        }
    }

    /// What to write under a missing or empty section of `kind`.
    pub(crate) fn to_write(&self, kind: Option<&ValueKind>) -> String {
        match kind {
            None | Some(ValueKind::Text) => self.its_content.to_owned(),
            Some(ValueKind::Json) => self.the_json_value.to_owned(),
            Some(ValueKind::Custom) => self.its_value.to_owned(),
            Some(kind) => self.noun(kind),
        }
    }

    /// The format guide's sentence for a section of `kind`: "A single whole
    /// number."
    pub(crate) fn guide_kind(&self, kind: &ValueKind) -> String {
        let noun = self.guide_noun(kind);
        let mut chars = noun.chars();
        let mut sentence: String = chars
            .next()
            .into_iter()
            .flat_map(char::to_uppercase)
            .collect();
        sentence.push_str(chars.as_str());
        sentence.push(self.stop);
        sentence
    }

    /// The noun of the guide's sentence and slot for a section of `kind`.
    fn guide_noun(&self, kind: &ValueKind) -> String {
        match kind {
            ValueKind::Text => self.free_text.to_owned(),
            ValueKind::Json => self.a_json_value.to_owned(),
            ValueKind::Custom => self.a_single_value.to_owned(),
            kind => self.noun(kind),
        }
    }

    /// True when `description` already says what the guide's sentence for
    /// `kind` would: a list "one per line", every value of a choice. The
    /// guide then does not repeat it as boilerplate.
    pub(crate) fn says_kind(&self, description: &str, kind: &ValueKind) -> bool {
        let description = description.to_lowercase();
        match kind {
            ValueKind::List(_) => description.contains(self.per_line),
            ValueKind::Choice(values) => {
                !values.is_empty()
                    && values
                        .iter()
                        .all(|value| description.contains(&value.to_lowercase()))
            }
            _ => false,
        }
    }

    /// The example answer's slot for a section of `kind` that has no
    /// example: `<a single whole number>`, `- <item>` lines for a list. A
    /// slot cannot be taken for content, and never contradicts the
    /// description (as a made-up `2.5` would for a value from 0 to 1).
    pub(crate) fn slot(&self, kind: &ValueKind) -> String {
        let slot = |what: &str| fill(self.slot, &[("what", what)]);
        let inner_slot = |inner: &ValueKind, general: &str| self.inner_slot(inner, general);
        match kind {
            ValueKind::List(inner) => {
                let item = self.item_slot(inner);
                format!("- {item}\n- {item}")
            }
            ValueKind::Table => {
                let (column, value) = (slot(self.column), slot(self.value));
                format!("| {column} | {column} |\n| --- | --- |\n| {value} | {value} |")
            }
            ValueKind::Record => {
                let (label, value) = (slot(self.label), slot(self.value));
                format!("{label}: {value}\n{label}: {value}")
            }
            ValueKind::Map(inner) => {
                let value = inner_slot(inner, self.value);
                format!("{key} 1: {value}\n{key} 2: {value}", key = self.map_key)
            }
            kind => slot(&self.guide_noun(kind)),
        }
    }

    /// The slot of one item of a list of `inner`: `<a single whole number>`,
    /// or `<item>` when the item has no short noun.
    pub(crate) fn item_slot(&self, inner: &ValueKind) -> String {
        self.inner_slot(inner, self.item)
    }

    /// The slot of one value inside a list or a map: its noun when it has a
    /// short one, else `general`.
    fn inner_slot(&self, inner: &ValueKind, general: &str) -> String {
        let what = match inner {
            ValueKind::Integer
            | ValueKind::Float
            | ValueKind::Bool
            | ValueKind::Char
            | ValueKind::Choice(_) => self.noun(inner),
            _ => general.to_owned(),
        };
        fill(self.slot, &[("what", &what)])
    }

    /// The noun of a kind that has one value noun in every use.
    fn noun(&self, kind: &ValueKind) -> String {
        match kind {
            ValueKind::Integer => self.whole_number.to_owned(),
            ValueKind::Float => self.number.to_owned(),
            ValueKind::Bool => self.yes_no.to_owned(),
            ValueKind::Char => self.one_character.to_owned(),
            ValueKind::Choice(values) => self.one_of(values),
            ValueKind::List(_) => self.list.to_owned(),
            ValueKind::Table => self.table.to_owned(),
            ValueKind::Record => self.record.to_owned(),
            ValueKind::Map(_) => self.map.to_owned(),
            ValueKind::Text => self.its_content.to_owned(),
            ValueKind::Json => self.the_json_value.to_owned(),
            ValueKind::Custom => self.its_value.to_owned(),
        }
    }

    fn one_of(&self, values: &[&str]) -> String {
        fill(self.one_of, &[("values", &values.join(self.comma))])
    }

    /// "[A]", "[A] and [B]", "[A], [B] and [C]".
    pub(crate) fn join(&self, items: &[&str]) -> String {
        match items {
            [] => String::new(),
            [one] => (*one).to_owned(),
            [init @ .., last] => format!("{}{}{last}", init.join(self.comma), self.and),
        }
    }

    /// "A", "A or B", "A, B or C".
    pub(crate) fn join_or(&self, items: &[&str]) -> String {
        match items {
            [] => String::new(),
            [one] => (*one).to_owned(),
            [init @ .., last] => format!("{}{}{last}", init.join(self.comma), self.or),
        }
    }

    /// `text` as the end of a sentence: its own final punctuation is kept,
    /// this language's full stop is added otherwise.
    pub(crate) fn sentence_end(&self, text: &str) -> String {
        let text = text.trim();
        match text.chars().next_back() {
            Some('.' | '!' | '?' | '。' | '！' | '？') | None => text.to_owned(),
            Some(_) => format!("{text}{}", self.stop),
        }
    }
}

/// `text` without its final full stops, to be set inside a sentence.
pub(crate) fn without_stop(text: &str) -> &str {
    text.trim().trim_end_matches(['.', '。'])
}

/// English wording, as in the feedback: "a single whole number".
impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&en::EN.expected(self, None))
    }
}

/// English, for developers: "expected a single whole number, found 'about
/// six'".
impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::Empty => f.write_str("the section is empty"),
            ValueError::Invalid { expected, found } => {
                write!(f, "expected {expected}, found '{found}'")
            }
            ValueError::BadItem {
                index,
                item,
                expected,
            } => write!(f, "item {index} should be {expected}, found '{item}'"),
            ValueError::Json { path, message } if path.is_empty() => f.write_str(message),
            ValueError::Json { path, message } => write!(f, "at `{path}`: {message}"),
            ValueError::Message(message) => f.write_str(message),
            ValueError::Rows(problems) => write!(f, "{} problems in the rows", problems.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_replaces_named_blanks_once() {
        assert_eq!(
            fill("{h} says {found}; {h}!", &[("h", "[A]"), ("found", "{h}")]),
            "[A] says {h}; [A]!"
        );
        assert_eq!(fill("{ a } {x}", &[("h", "1")]), "{ a } {x}");
        assert_eq!(fill("trailing {", &[]), "trailing {");
    }

    #[test]
    fn joins_headers_for_humans() {
        let en = phrases(Lang::En);
        assert_eq!(en.join(&["[A]"]), "[A]");
        assert_eq!(en.join(&["[A]", "[B]"]), "[A] and [B]");
        assert_eq!(en.join(&["[A]", "[B]", "[C]"]), "[A], [B] and [C]");
        assert_eq!(
            phrases(Lang::Zh).join(&["[A]", "[B]", "[C]"]),
            "[A]、[B]和[C]"
        );
    }

    /// Every table fills every blank its templates name: a misspelt blank
    /// would reach the model as `{hh}`.
    #[test]
    fn every_template_blank_is_known() {
        for lang in [Lang::En, Lang::Zh] {
            let p = phrases(lang);
            let templates: [(&str, &[&str]); 65] = [
                (p.at_cell, &["row", "column"]),
                (p.at_row, &["row"]),
                (p.at_label, &["label"]),
                (p.cell_empty, &["h", "at"]),
                (p.cell_bad, &["h", "at", "found", "expected"]),
                (p.cell_bad_item, &["h", "at", "index", "expected", "item"]),
                (p.cell_unreadable, &["h", "at", "found", "message"]),
                (p.no_line, &["h", "label"]),
                (p.no_table, &["h", "columns"]),
                (p.no_record, &["h", "labels"]),
                (p.no_column, &["h", "column", "columns"]),
                (p.unknown_label, &["h", "label", "labels"]),
                (p.extra_cells, &["h", "at", "columns", "extra"]),
                (p.omitted, &["h", "count"]),
                (p.whole_number_between, &["whole_number", "min", "max"]),
                (p.one_of, &["values"]),
                (p.such_as, &["example"]),
                (p.missing, &["h", "kind"]),
                (p.empty, &["h", "kind"]),
                (p.bad_value, &["h", "expected", "found"]),
                (p.bad_item, &["h", "index", "expected", "item"]),
                (p.json_shape, &["h", "message"]),
                (p.json_at, &["h", "path", "message"]),
                (p.reply_json_shape, &["message"]),
                (p.reply_json_at, &["path", "message"]),
                (p.unreadable, &["h", "message", "found"]),
                (p.invalid, &["h", "message"]),
                (p.near_miss, &["h", "wrote"]),
                (p.unread_header, &["h", "wrote"]),
                (p.not_on_own_line, &["h", "line"]),
                (p.none_of, &["headers"]),
                (p.no_choice, &["choice", "ways"]),
                (p.mixed_choice, &["choice", "found", "ways"]),
                (p.way_headers, &["name", "headers"]),
                (p.guide_ways, &[]),
                (p.guide_way, &["n", "name"]),
                (p.guide_example_way, &["n", "name"]),
                (p.missing_divider, &[]),
                (p.sections_one, &["headers"]),
                (p.sections_many, &["headers"]),
                (p.ask_sections, &["sections"]),
                (p.ask_after_stop, &["sections"]),
                (p.ask_whole, &[]),
                (p.ask_free, &[]),
                (p.escalate_with_guide, &["same"]),
                (p.escalate, &["same"]),
                (p.cut_off, &[]),
                (p.kept_one, &["headers"]),
                (p.kept_many, &["headers"]),
                (p.write_only, &["sections"]),
                (p.rewrite_shorter, &[]),
                (p.left_out, &["bytes"]),
                (p.guide_intro, &[]),
                (p.guide_begin, &["h"]),
                (p.guide_intro_xml, &[]),
                (p.demo_question, &[]),
                (p.slot, &["what"]),
                (p.focused_nameless, &["name"]),
                (p.focused_reply, &["what"]),
                (p.focused_reply_example, &["what", "example"]),
                (p.focused_optional, &[]),
                (p.write_now, &[]),
                (p.start_with, &["h"]),
                (p.same_format, &["headers"]),
                (p.same_format_ways, &["ways"]),
            ];
            for (template, blanks) in templates {
                let values: Vec<(&str, &str)> = blanks.iter().map(|b| (*b, "")).collect();
                let filled = fill(template, &values);
                assert!(!filled.contains('{'), "{lang:?}: {template}");
                for blank in blanks.iter() {
                    assert!(
                        template.contains(&format!("{{{blank}}}")),
                        "{lang:?}: {template} lacks {{{blank}}}"
                    );
                }
            }
        }
    }

    #[test]
    fn one_noun_for_a_kind_in_every_use() {
        let en = phrases(Lang::En);
        assert_eq!(
            en.expected(&Expected::WholeNumber, Some("6")),
            "a single whole number such as 6"
        );
        assert_eq!(
            en.to_write(Some(&ValueKind::Integer)),
            "a single whole number"
        );
        assert_eq!(en.guide_kind(&ValueKind::Integer), "A single whole number.");
        assert_eq!(Expected::WholeNumber.to_string(), "a single whole number");
        assert_eq!(
            en.expected(
                &Expected::WholeNumberBetween {
                    min: "0".into(),
                    max: "9".into()
                },
                None
            ),
            "a single whole number from 0 to 9"
        );
        let zh = phrases(Lang::Zh);
        assert_eq!(
            zh.expected(&Expected::WholeNumber, Some("6")),
            "一个整数，例如 6"
        );
        assert_eq!(
            zh.guide_kind(&ValueKind::Choice(&["低", "高"])),
            "以下之一：低、高。"
        );
    }
}
