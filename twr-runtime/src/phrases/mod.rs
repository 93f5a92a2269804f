//! Every text twr writes for a model, one table per language.
//!
//! The format guide, the feedback and the loop's own requests all take their
//! words from the [`Phrases`] of the run's [`Lang`]; the code that assembles
//! them (`feedback/render.rs`, `prompt.rs`, `think/messages.rs`) holds no
//! words of its own. Templates name their blanks (`{h}`, `{found}`, ...) and
//! are filled by twr, so a translation may put them in any order.
//! A user's own table is a [`Phrases`] value ([`Lang::Custom`]). The
//! English wording is written beside each field of [`Phrases`] (and shown
//! in its doc); another language twr ships is a table beside `zh.rs`, a
//! [`Lang`] variant, and its arm in `phrases()`.

pub(crate) mod lang;
mod number_style;
mod zh;

pub use number_style::NumberStyle;

pub(crate) use lang::Lang;

use crate::vocab::{Bounds, Expected, ValueKind};

/// Declares [`Phrases`] and its English table from one list: each field
/// with its doc and, after `=`, its English wording, which the field's doc
/// then shows ("English: ..."). The wording is written once, beside what
/// it is for.
macro_rules! phrase_table {
    (
        $(#[$attr:meta])*
        pub struct Phrases {
            $(
                $(#[$field_attr:meta])*
                pub $field:ident: $ty:ty = $english:expr,
            )*
        }
    ) => {
        $(#[$attr])*
        pub struct Phrases {
            $(
                $(#[$field_attr])*
                #[doc = ""]
                #[doc = concat!("English: `` ", stringify!($english), " ``")]
                pub $field: $ty,
            )*
        }

        /// The English table, as each field's doc shows it.
        const EN: Phrases = Phrases {
            $($field: $english,)*
        };
    };
}

phrase_table! {
/// Every sentence and word twr writes for a model in one language: the
/// format guide, each problem, the retry requests and the focused
/// questions. Templates name their blanks (`{h}`, `{found}`, ...), which
/// twr fills; a table may put them in any order.
///
/// Two tables come with twr, [`Phrases::ENGLISH`] and [`Phrases::CHINESE`].
/// A table of your own is a `static` built from one of them, changing
/// single phrases or all of them, and a type uses it with
/// `#[sections(phrases = PATH)]` (or any [`Feedback`](crate::Feedback)
/// with [`Lang::Custom`]):
///
/// ```
/// use twr_runtime::phrases::Phrases;
/// use twr_runtime::Sections;
///
/// static PLAIN: Phrases = Phrases {
///     missing: "Add the {h} section: {h} on a line of its own, then {kind}.",
///     ..Phrases::ENGLISH
/// };
///
/// #[derive(Debug, Sections)]
/// #[sections(phrases = PLAIN)]
/// struct Trip {
///     days: u32,
/// }
///
/// assert_eq!(PLAIN.check(), Ok(()));
/// let feedback = Trip::parse_sections("Three days.").unwrap_err();
/// assert!(feedback.to_string().starts_with("Add the [Days] section: [Days] on a line of its own"));
/// ```
///
/// Build a table with `..Phrases::ENGLISH` (or `CHINESE`) at its end, even
/// when you set every phrase: the phrases of later versions then come from
/// it. (That is why the struct is not `#[non_exhaustive]`: that attribute
/// would forbid this syntax outside twr.) `examples/german.rs` holds a
/// complete table in a third language.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Phrases {
    /// Ends a sentence: `.` or `。`.
    pub stop: char = '.',
    /// Between two sentences of one paragraph: a space, or nothing.
    pub sentence_gap: &'static str = " ",
    /// Between the items of a list written inline: `, ` or `、`.
    pub comma: &'static str = ", ",
    /// Before the last item of a list written inline: ` and ` or `和`.
    pub and: &'static str = " and ",
    /// Before the last item of a list of alternatives: ` or ` or `或`.
    pub or: &'static str = " or ",

    // What a value should be: "The [Weeks] section should be {expected}".
    /// [`Expected::Text`].
    pub some_text: &'static str = "some text",
    /// [`Expected::WholeNumber`], [`ValueKind::Integer`].
    pub whole_number: &'static str = "a single whole number",
    /// [`Expected::WholeNumberBetween`]: `{whole_number}`, `{min}`, `{max}`.
    pub whole_number_between: &'static str = "{whole_number} from {min} to {max}",
    /// [`Expected::Number`], [`ValueKind::Float`].
    pub number: &'static str = "a single number",
    /// [`Expected::Within`] bounded on both sides, and a bounded number
    /// section in the guide (`#[section(min = 0, max = 1)]`): `{number}`
    /// (the noun, [`Phrases::whole_number`] or [`Phrases::number`]),
    /// `{min}`, `{max}`.
    pub number_between: &'static str = "{number} from {min} to {max}",
    /// [`Expected::Within`] with only a lower bound: `{number}`, `{min}`.
    pub at_least: &'static str = "{number} of at least {min}",
    /// [`Expected::Within`] with only an upper bound: `{number}`, `{max}`.
    pub at_most: &'static str = "{number} of at most {max}",
    /// [`Expected::YesNo`], [`ValueKind::Bool`].
    pub yes_no: &'static str = "yes or no",
    /// [`Expected::OneCharacter`], [`ValueKind::Char`].
    pub one_character: &'static str = "a single character",
    /// [`Expected::OneOf`], [`ValueKind::Choice`]: `{values}`.
    pub one_of: &'static str = "one of: {values}",
    /// [`ValueKind::List`].
    pub list: &'static str = "a list, one item per line",
    /// What each item of a bounded list of numbers is, in the guide:
    /// `{what}` ("each item is a single number from 0 to 1").
    pub each_item: &'static str = "each item is {what}",
    /// After a scalar's noun, its example said inline: `{example}`.
    pub such_as: &'static str = " such as {example}",
    /// [`ValueKind::Table`].
    pub table: &'static str = "a table with a header row and one row per entry (a markdown table, CSV or TSV)",
    /// [`ValueKind::Record`].
    pub record: &'static str = "one line per field, written `Label: value`",
    /// [`ValueKind::Map`].
    pub map: &'static str = "one line per entry, written `Name: value`",
    /// The name of an entry in a map section's placeholder: `Name: 3`.
    pub map_key: &'static str = "Name",

    // What to write under a missing or empty section, where it differs from
    // the nouns above.
    /// A text section, or a section of unknown kind.
    pub its_content: &'static str = "its content",
    /// A JSON section.
    pub the_json_value: &'static str = "the JSON value",
    /// A `from_str` section.
    pub its_value: &'static str = "its value",

    // The format guide's line for a kind, where it differs from the nouns
    // above.
    /// A text section without a description.
    pub free_text: &'static str = "free text",
    /// A JSON section.
    pub a_json_value: &'static str = "a JSON value",
    /// A `from_str` section.
    pub a_single_value: &'static str = "a single value",
    /// A placeholder in the example answer: `{what}`.
    pub slot: &'static str = "<{what}>",
    /// What a slot of a list of text holds.
    pub item: &'static str = "item",
    /// What a table's header cells of a slot hold.
    pub column: &'static str = "column",
    /// What a record's labels of a slot hold.
    pub label: &'static str = "label",
    /// What the values of a table, record or map slot hold.
    pub value: &'static str = "value",
    /// A description that says this (lower case) needs no "a list, one
    /// item per line" after it.
    pub per_line: &'static str = "per line",

    // Words the parser reads by meaning, matched ignoring case. A word
    // written in a script without spaces (Chinese) may run into the text
    // after it when it is one character: `是因为便宜`.
    /// A `bool`'s "true" answers, the first word of its section: `yes`,
    /// `true`.
    pub yes_words: &'static [&'static str] = &["yes", "true", "是", "是的", "对", "对的"],
    /// A `bool`'s "false" answers: `no`, `false`.
    pub no_words: &'static [&'static str] = &["no", "false", "否", "不是", "不对"],
    /// What a section (or a table cell) says when it does not apply: the
    /// "none" answers of an `Option`, an empty list, a `#[section(default)]`.
    /// The whole content must be one of them (`None given`, not `None of
    /// these hotels`); decoration around it is ignored: `**N/A.**`.
    pub none_words: &'static [&'static str] = &[
        "n/a", "na", "n.a", "none", "null", "nil", "not applicable", "none given", "not given",
        "not stated", "not specified", "无", "没有", "暂无", "不适用",
    ],
    /// Words that make a value more or less than itself (`very high`,
    /// `slightly low`): a [`Choice`](crate::Choice) value right after one
    /// of them, in the same clause, is refused rather than read as the
    /// plainer value, unless the whole phrase is a value of its own
    /// (`VeryHigh`).
    pub degree_words: &'static [&'static str] = &[
        "very", "extremely", "really", "quite", "rather", "fairly", "somewhat", "slightly", "highly",
        "too", "super", "barely", "mostly", "非常", "很", "比较", "较", "稍", "稍微", "有点", "极",
        "特别", "最",
    ],
    /// Words that join two answers into no answer (`yes or no`,
    /// `是也不是`), besides this table's `and` and `or`.
    pub joining_words: &'static [&'static str] = &["and", "or", "或者", "还是", "也", "或", "和", "与"],
    /// How the language writes numbers, for number sections: `1,049.95`
    /// ([`NumberStyle::POINT`], the built-in tables) or `1.049,95`
    /// ([`NumberStyle::COMMA`]).
    pub number_style: NumberStyle = NumberStyle::POINT,

    // The format guide.
    /// Opens the guide.
    pub guide_intro: &'static str = "Think it through freely first. Then give your final answer in the sections below, each header on a line of its own followed by its content.",
    /// Opens the guide of the XML style (`#[sections(style = "xml")]`).
    pub guide_intro_xml: &'static str = "Think it through freely first. Then give your final answer in the sections below, each inside its pair of tags: the opening tag, the content, then the closing tag.",
    /// After the header of an `Option` section.
    pub guide_optional: &'static str = " (optional: write N/A if it does not apply)",
    /// What an optional section that does not apply says, as the guide
    /// asks for it: written for an absent optional section in a learned
    /// demonstration, so every turn shows every section.
    pub none_answer: &'static str = "N/A",
    /// After the header of a `#[section(default)]` section.
    pub guide_may_omit: &'static str = " (optional)",
    /// Introduces the complete example answer.
    pub guide_example: &'static str = "Example answer:",
    /// Ends the guide: where the final answer starts, `{h}` (the first
    /// section's header).
    pub guide_begin: &'static str = "After any thinking, begin your final answer with {h} on a line of its own.",
    /// Opens the list of the ways to answer of an enum (each a set of
    /// sections).
    pub guide_ways: &'static str = "Answer in one of these ways, with the sections of that way only:",
    /// Heads one way of an enum: `{n}` (its number), `{name}`.
    pub guide_way: &'static str = "Way {n} ({name}):",
    /// Introduces the example answer of one way: `{n}`, `{name}`.
    pub guide_example_way: &'static str = "Example answer in way {n} ({name}):",

    // Feedback: the frame of the message.
    /// Opens a message with several problems.
    pub intro: &'static str = "Thank you. A few parts of your answer need fixing:",
    /// Introduces an example block.
    pub for_example: &'static str = "For example:",
    /// Ends a message about one section.
    pub closing_one: &'static str = "Please write that section again: the header on a line of its own, followed by its content.",
    /// Ends a message about several sections.
    pub closing_many: &'static str = "Please write those sections again: each header on a line of its own, followed by its content.",

    // Feedback: one sentence per problem. `{h}` is the section's header.
    /// `{h}`, `{kind}`: what to write.
    pub missing: &'static str = "The {h} section is missing. Please add it: the header {h} on a line of its own, then {kind}.",
    /// `{h}`, `{kind}`.
    pub empty: &'static str = "The {h} section is empty. Please write {kind} under its header.",
    /// `{h}`, `{expected}`, `{found}`.
    pub bad_value: &'static str = "The {h} section should be {expected}; it says '{found}'.",
    /// `{h}`, `{index}`, `{expected}`, `{item}`.
    pub bad_item: &'static str = "Item {index} of the {h} list should be {expected}; it says '{item}'.",
    /// JSON of the wrong shape at its root: `{h}`, `{message}`.
    pub json_shape: &'static str = "The {h} section should be JSON of the expected shape: {message}",
    /// JSON wrong at a field: `{h}`, `{path}`, `{message}`.
    pub json_at: &'static str = "The JSON in the {h} section is wrong at `{path}`: {message}",
    /// As `json_shape`, for a whole reply read as JSON: `{message}`.
    pub reply_json_shape: &'static str = "The reply should be JSON of the expected shape: {message}",
    /// As `json_at`, for a whole reply read as JSON: `{path}`, `{message}`.
    pub reply_json_at: &'static str = "The JSON in the reply is wrong at `{path}`: {message}",
    /// `{h}`, `{message}`, `{found}`.
    pub unreadable: &'static str = "The {h} section could not be read ({message}); it says '{found}'.",
    /// `{h}`, `{message}`.
    pub invalid: &'static str = "The {h} section needs a change: {message}",
    /// `{h}`, `{wrote}`.
    pub near_miss: &'static str = "You wrote {wrote}; name it {h}, on a line of its own.",
    /// `{h}`, `{wrote}`.
    pub unread_header: &'static str = "You wrote '{wrote}' for the {h} section, which is not read as its header: write {h} alone on a line of its own, then the content below it.",
    /// `{h}`, `{line}`.
    pub not_on_own_line: &'static str = "The {h} header must stand on a line of its own; it appears inside the line '{line}'.",
    /// `{headers}`.
    pub none_of: &'static str = "None of the sections {headers} is in your answer. Please give at least one of them, each header on a line of its own.",
    /// A reply with no section of an enum's ways: `{enum_name}`, `{ways}`.
    pub no_way: &'static str = "Your answer has none of the sections of {enum_name}. Choose one way and write its sections: {ways}.",
    /// A reply with sections of several ways of an enum: `{enum_name}`,
    /// `{found}` (the ways written), `{ways}` (every way).
    pub mixed_ways: &'static str = "Your answer mixes the ways of {enum_name}: it has sections of {found}. Choose one way and write only its sections: {ways}.",
    /// One way and its headers, in `no_way` and `mixed_ways`:
    /// `{name}`, `{headers}`.
    pub way_headers: &'static str = "{name} ({headers})",
    /// No blanks.
    pub missing_divider: &'static str = "Please put your final answer after a line of five or more equals signs (=====), or between two such lines.",

    // Feedback inside a table, record or map section. `{at}` is one of the
    // places below.
    /// A cell: `{row}`, `{column}`.
    pub at_cell: &'static str = "row {row}, column {column}",
    /// A whole row: `{row}`.
    pub at_row: &'static str = "row {row}",
    /// A record line: `{label}`.
    pub at_label: &'static str = "{label}",
    /// `{h}`, `{at}`.
    pub cell_empty: &'static str = "In {h}, {at} is empty.",
    /// `{h}`, `{at}`, `{found}`, `{expected}`.
    pub cell_bad: &'static str = "In {h}, {at}: '{found}' is not {expected}.",
    /// `{h}`, `{at}`, `{index}`, `{expected}`, `{item}`.
    pub cell_bad_item: &'static str = "In {h}, {at}: item {index} should be {expected}; it says '{item}'.",
    /// `{h}`, `{at}`, `{found}`, `{message}`.
    pub cell_unreadable: &'static str = "In {h}, {at}: '{found}' could not be read ({message}).",
    /// A record field with no line: `{h}`, `{label}`.
    pub no_line: &'static str = "The {h} section has no line for {label}; please add one: {label}: ...",
    /// `{h}`, `{columns}`.
    pub no_table: &'static str = "The {h} section should hold a table with the columns {columns}; there is none.",
    /// `{h}`, `{labels}`.
    pub no_record: &'static str = "The {h} section should have one line for each of {labels}, written `Label: value`; there is none.",
    /// `{h}`, `{column}`, `{columns}`.
    pub no_column: &'static str = "The table in {h} has no column {column}; its columns are {columns}.",
    /// `{h}`, `{label}`, `{labels}`.
    pub unknown_label: &'static str = "In {h}, the line '{label}' names no field; the labels are {labels}.",
    /// `{h}`, `{at}`, `{columns}`, `{extra}`.
    pub extra_cells: &'static str = "In {h}, {at} has more cells than the table's {columns} columns: '{extra}'. Put each value in its own column, and write a | inside a cell as \\|.",
    /// `{h}`, `{count}`.
    pub omitted: &'static str = "There are {count} more problems like these in {h}.",

    // The loop's requests after a rejected or cut-off reply.
    /// One section asked for again: `{headers}`.
    pub sections_one: &'static str = "{headers} section, under its header on a line of its own",
    /// Several sections asked for again: `{headers}`.
    pub sections_many: &'static str = "{headers} sections, each under its header on a line of its own",
    /// Only some sections again: `{sections}`.
    pub ask_sections: &'static str = "Reply with only the corrected {sections}; I have kept the rest of your answer.",
    /// After a streamed reply stopped at an invalid section: the rest of
    /// the answer, from that section on: `{sections}`.
    pub ask_after_stop: &'static str = "I stopped reading your answer there. Reply with only the {sections}; I have kept the sections before it.",
    /// The whole answer again.
    pub ask_whole: &'static str = "Reply with your whole answer again, every section included and each header on a line of its own, with these fixes made.",
    /// As `ask_whole`, for a type with ways to answer.
    pub ask_whole_way: &'static str = "Reply with your whole answer again, in one way only, each header on a line of its own, with these fixes made.",
    /// A new answer, for a parser of the caller's own.
    pub ask_free: &'static str = "Please answer again with these fixes made.",
    /// The same problems as last time.
    pub same_problems: &'static str = "These are the same problems as in your previous answer",
    /// Escalation with the format guide following: `{same}`.
    pub escalate_with_guide: &'static str = "{same}. Please follow the format exactly; here it is again, with a complete example answer:",
    /// Escalation without a guide: `{same}`.
    pub escalate: &'static str = "{same}; please read them carefully and change your answer accordingly.",
    /// Before the format guide shown with the first feedback
    /// ([`Wording::WithExample`](crate::feedback::Wording::WithExample)).
    pub show_guide: &'static str = "Please follow the format exactly; here it is, with a complete example answer:",
    /// The reply was cut off by the token limit.
    pub cut_off: &'static str = "Your answer was cut off by the length limit before it was finished.",
    /// One complete section of a cut reply kept: `{headers}`.
    pub kept_one: &'static str = "I have kept the complete {headers} section.",
    /// Several complete sections of a cut reply kept: `{headers}`.
    pub kept_many: &'static str = "I have kept the complete {headers} sections.",
    /// Only the rest of a cut reply, short: `{sections}`.
    pub write_only: &'static str = "Please write only the {sections}, and keep it short so that it fits.",
    /// The whole of a cut reply again, shorter.
    pub rewrite_shorter: &'static str = "Please write the whole answer again, shorter, so that it fits: keep each part brief.",
    /// In the excerpt of a huge failed reply sent back: `{bytes}` bytes of
    /// it are left out here.
    pub left_out: &'static str = "[... {bytes} bytes of this answer are left out here ...]",

    // Demonstrations (`Think::demonstration`, `Think::auto_demonstration`).
    /// The question of the demonstration built from the sections' examples.
    pub demo_question: &'static str = "Show me an example answer in this format.",
    /// After the real prompt, when a demonstration showed the format:
    /// `{headers}`.
    pub same_format: &'static str = "Answer in the same format, with the sections {headers}, each header on a line of its own.",
    /// As `same_format`, for a type with ways to answer: `{ways}`.
    pub same_format_ways: &'static str = "Answer in the same format, in one of these ways: {ways}; each header on a line of its own.",

    // The last resorts (`think/focus.rs`).
    /// A focused question about a section without a description: `{name}`.
    pub focused_nameless: &'static str = "Please give the {name} for your answer.",
    /// Ends a focused question: `{what}`.
    pub focused_reply: &'static str = "Reply with only {what}.",
    /// Ends a focused question, with the section's example: `{what}`,
    /// `{example}`.
    pub focused_reply_example: &'static str = "Reply with only {what}, for example: {example}.",
    /// Follows the focused question about an optional section.
    pub focused_optional: &'static str = "If it does not apply, reply N/A.",
    /// What to reply with for a number.
    pub the_number: &'static str = "the number",
    /// What to reply with for a list.
    pub the_list: &'static str = "the list, one item per line",
    /// What to reply with for text.
    pub the_answer: &'static str = "the answer",
    /// Restates a request that was only acknowledged; the example answer
    /// of the sections asked for follows.
    pub write_now: &'static str = "Please write it now, each header on a line of its own followed by its content, like this:",
    /// Ends a request after a cut-off reply: `{h}`, the first header to
    /// write.
    pub start_with: &'static str = "Start with the header {h} on a line of its own.",
}
}

/// The phrases of `lang`.
pub(crate) fn phrases(lang: Lang) -> &'static Phrases {
    match lang {
        Lang::En => &EN,
        Lang::Zh => &zh::ZH,
        Lang::Custom(table) => table,
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
    /// The English table.
    pub const ENGLISH: Phrases = EN;
    /// The Chinese table.
    pub const CHINESE: Phrases = zh::ZH;

    /// Every template, by field name, with the blanks twr fills in it.
    fn templates(&self) -> [(&'static str, &'static str, &'static [&'static str]); 70] {
        [
            (
                "number_between",
                self.number_between,
                &["number", "min", "max"],
            ),
            ("at_least", self.at_least, &["number", "min"]),
            ("at_most", self.at_most, &["number", "max"]),
            ("each_item", self.each_item, &["what"]),
            ("at_cell", self.at_cell, &["row", "column"]),
            ("at_row", self.at_row, &["row"]),
            ("at_label", self.at_label, &["label"]),
            ("cell_empty", self.cell_empty, &["h", "at"]),
            ("cell_bad", self.cell_bad, &["h", "at", "found", "expected"]),
            (
                "cell_bad_item",
                self.cell_bad_item,
                &["h", "at", "index", "expected", "item"],
            ),
            (
                "cell_unreadable",
                self.cell_unreadable,
                &["h", "at", "found", "message"],
            ),
            ("no_line", self.no_line, &["h", "label"]),
            ("no_table", self.no_table, &["h", "columns"]),
            ("no_record", self.no_record, &["h", "labels"]),
            ("no_column", self.no_column, &["h", "column", "columns"]),
            (
                "unknown_label",
                self.unknown_label,
                &["h", "label", "labels"],
            ),
            (
                "extra_cells",
                self.extra_cells,
                &["h", "at", "columns", "extra"],
            ),
            ("omitted", self.omitted, &["h", "count"]),
            (
                "whole_number_between",
                self.whole_number_between,
                &["whole_number", "min", "max"],
            ),
            ("one_of", self.one_of, &["values"]),
            ("such_as", self.such_as, &["example"]),
            ("missing", self.missing, &["h", "kind"]),
            ("empty", self.empty, &["h", "kind"]),
            ("bad_value", self.bad_value, &["h", "expected", "found"]),
            (
                "bad_item",
                self.bad_item,
                &["h", "index", "expected", "item"],
            ),
            ("json_shape", self.json_shape, &["h", "message"]),
            ("json_at", self.json_at, &["h", "path", "message"]),
            ("reply_json_shape", self.reply_json_shape, &["message"]),
            ("reply_json_at", self.reply_json_at, &["path", "message"]),
            ("unreadable", self.unreadable, &["h", "message", "found"]),
            ("invalid", self.invalid, &["h", "message"]),
            ("near_miss", self.near_miss, &["h", "wrote"]),
            ("unread_header", self.unread_header, &["h", "wrote"]),
            ("not_on_own_line", self.not_on_own_line, &["h", "line"]),
            ("none_of", self.none_of, &["headers"]),
            ("no_way", self.no_way, &["enum_name", "ways"]),
            (
                "mixed_ways",
                self.mixed_ways,
                &["enum_name", "found", "ways"],
            ),
            ("way_headers", self.way_headers, &["name", "headers"]),
            ("guide_ways", self.guide_ways, &[]),
            ("guide_way", self.guide_way, &["n", "name"]),
            ("guide_example_way", self.guide_example_way, &["n", "name"]),
            ("missing_divider", self.missing_divider, &[]),
            ("sections_one", self.sections_one, &["headers"]),
            ("sections_many", self.sections_many, &["headers"]),
            ("ask_sections", self.ask_sections, &["sections"]),
            ("ask_after_stop", self.ask_after_stop, &["sections"]),
            ("ask_whole", self.ask_whole, &[]),
            ("ask_free", self.ask_free, &[]),
            ("escalate_with_guide", self.escalate_with_guide, &["same"]),
            ("escalate", self.escalate, &["same"]),
            ("show_guide", self.show_guide, &[]),
            ("cut_off", self.cut_off, &[]),
            ("kept_one", self.kept_one, &["headers"]),
            ("kept_many", self.kept_many, &["headers"]),
            ("write_only", self.write_only, &["sections"]),
            ("rewrite_shorter", self.rewrite_shorter, &[]),
            ("left_out", self.left_out, &["bytes"]),
            ("guide_intro", self.guide_intro, &[]),
            ("guide_begin", self.guide_begin, &["h"]),
            ("guide_intro_xml", self.guide_intro_xml, &[]),
            ("demo_question", self.demo_question, &[]),
            ("slot", self.slot, &["what"]),
            ("focused_nameless", self.focused_nameless, &["name"]),
            ("focused_reply", self.focused_reply, &["what"]),
            (
                "focused_reply_example",
                self.focused_reply_example,
                &["what", "example"],
            ),
            ("focused_optional", self.focused_optional, &[]),
            ("write_now", self.write_now, &[]),
            ("start_with", self.start_with, &["h"]),
            ("same_format", self.same_format, &["headers"]),
            ("same_format_ways", self.same_format_ways, &["ways"]),
        ]
    }

    /// Checks that each template names only blanks twr fills: a misspelt
    /// `{hh}` would reach the model as written. The error lists each
    /// template (by field name) with the blank it does not know, and each
    /// word the parser could not read as meant: an empty one, one that is
    /// both a yes and a no, or a `none_answer` that is not one of the
    /// `none_words` (written for a section left out, it would be read back
    /// as an answer).
    pub fn check(&self) -> Result<(), Vec<String>> {
        let mut unknown = Vec::new();
        for (name, words) in [
            ("yes_words", self.yes_words),
            ("no_words", self.no_words),
            ("none_words", self.none_words),
            ("joining_words", self.joining_words),
            ("degree_words", self.degree_words),
        ] {
            if words.iter().any(|word| word.trim().is_empty()) {
                unknown.push(format!("{name}: an empty word"));
            }
        }
        for yes in self.yes_words {
            if self
                .no_words
                .iter()
                .any(|no| no.to_lowercase() == yes.to_lowercase())
            {
                unknown.push(format!("yes_words and no_words: '{yes}'"));
            }
        }
        let none_answer = self.none_answer.trim().to_lowercase();
        if !self
            .none_words
            .iter()
            .any(|none| none.trim().to_lowercase() == none_answer)
        {
            unknown.push(format!(
                "none_answer: '{}' is not one of none_words",
                self.none_answer
            ));
        }
        for (name, template, blanks) in self.templates() {
            let values: Vec<(&str, &str)> = blanks.iter().map(|blank| (*blank, "")).collect();
            let filled = fill(template, &values);
            let mut rest = filled.as_str();
            while let Some(open) = rest.find('{') {
                let after = &rest[open + 1..];
                let close = after.find('}').unwrap_or(after.len());
                let blank = &after[..close];
                if !blank.is_empty() && blank.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    unknown.push(format!("{name}: {{{blank}}}"));
                }
                rest = after;
            }
        }
        if unknown.is_empty() {
            Ok(())
        } else {
            Err(unknown)
        }
    }
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
            Expected::Within { whole, min, max } => {
                let number = if *whole {
                    self.whole_number
                } else {
                    self.number
                };
                self.within(number, min.as_deref(), max.as_deref())
            }
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

    /// `number` (a noun) from `min` to `max`, either open.
    fn within(&self, number: &str, min: Option<&str>, max: Option<&str>) -> String {
        match (min, max) {
            (Some(min), Some(max)) => fill(
                self.number_between,
                &[("number", number), ("min", min), ("max", max)],
            ),
            (Some(min), None) => fill(self.at_least, &[("number", number), ("min", min)]),
            (None, Some(max)) => fill(self.at_most, &[("number", number), ("max", max)]),
            (None, None) => number.to_owned(),
        }
    }

    /// The format guide's sentence for a section of `kind` within
    /// `bounds`: "A single number from 0 to 1."; for a list of numbers,
    /// "Each item: a single number from 0 to 1." `None` when the kind is
    /// no number (or list of numbers) or nothing bounds it.
    pub(crate) fn guide_bounds(&self, kind: &ValueKind, bounds: &Bounds) -> Option<String> {
        if bounds.is_none() {
            return None;
        }
        let words = self.kind_words(kind);
        let (number, list) = match (words.number, words.items) {
            (Some(number), _) => (number, false),
            (None, Some(inner)) => (self.kind_words(inner).number?, true),
            (None, None) => return None,
        };
        let noun = self.within(number, bounds.min, bounds.max);
        let text = if list {
            fill(self.each_item, &[("what", &noun)])
        } else {
            noun
        };
        Some(capitalized(&text) + &self.stop.to_string())
    }

    /// What to write under a missing or empty section of `kind`.
    pub(crate) fn to_write(&self, kind: Option<&ValueKind>) -> String {
        match kind {
            None => self.its_content.to_owned(),
            Some(kind) => self.kind_words(kind).noun,
        }
    }

    /// The format guide's sentence for a section of `kind`: "A single whole
    /// number."
    pub(crate) fn guide_kind(&self, kind: &ValueKind) -> String {
        let mut sentence = capitalized(&self.kind_words(kind).guide);
        sentence.push(self.stop);
        sentence
    }

    /// True when `description` already says what the guide's sentence for
    /// `kind` would: any description of free text, a list "one per line",
    /// every value of a Choice. The guide then does not repeat it as
    /// boilerplate.
    pub(crate) fn says_kind(&self, description: &str, kind: &ValueKind) -> bool {
        match self.kind_words(kind).said_by {
            SaidBy::AnyDescription => !description.is_empty(),
            SaidBy::Phrase(phrase) => description.to_lowercase().contains(phrase),
            SaidBy::Values(values) => {
                let description = description.to_lowercase();
                !values.is_empty()
                    && values
                        .iter()
                        .all(|value| description.contains(&value.to_lowercase()))
            }
            SaidBy::Nothing => false,
        }
    }

    /// The example answer's slot for a section of `kind` that has no
    /// example: `<a single whole number>`, `- <item>` lines for a list. A
    /// slot cannot be taken for content, and never contradicts the
    /// description (as a made-up `2.5` would for a value from 0 to 1).
    pub(crate) fn slot(&self, kind: &ValueKind) -> String {
        let slot = |what: &str| fill(self.slot, &[("what", what)]);
        match self.kind_words(kind).slot {
            Slot::Noun(noun) => slot(&noun),
            Slot::Items(inner) => {
                let item = self.item_slot(inner);
                format!("- {item}\n- {item}")
            }
            Slot::Rows => {
                let (column, value) = (slot(self.column), slot(self.value));
                format!("| {column} | {column} |\n| --- | --- |\n| {value} | {value} |")
            }
            Slot::Labels => {
                let (label, value) = (slot(self.label), slot(self.value));
                format!("{label}: {value}\n{label}: {value}")
            }
            Slot::Entries(inner) => {
                let value = self.inner_slot(inner, self.value);
                format!("{key} 1: {value}\n{key} 2: {value}", key = self.map_key)
            }
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
        let words = self.kind_words(inner);
        let what = if words.inline {
            words.noun
        } else {
            general.to_owned()
        };
        fill(self.slot, &[("what", &what)])
    }

    /// Every word this table says of a value of `kind`, in the guide, its
    /// slots and the feedback: the one place where the table decides per
    /// kind, so a new kind is one arm here (and no kind falls through to
    /// another's words).
    #[deny(clippy::wildcard_enum_match_arm)]
    fn kind_words<'k>(&'k self, kind: &'k ValueKind) -> KindWords<'k> {
        let noun = |noun: &str| noun.to_owned();
        // A value with one short noun in every use, written inside a line
        // as well as on its own.
        let scalar = |noun: String, number: Option<&'static str>| KindWords {
            guide: noun.clone(),
            slot: Slot::Noun(noun.clone()),
            noun,
            inline: true,
            number,
            items: None,
            said_by: SaidBy::Nothing,
        };
        match kind {
            ValueKind::Integer => scalar(noun(self.whole_number), Some(self.whole_number)),
            ValueKind::Float => scalar(noun(self.number), Some(self.number)),
            ValueKind::Bool => scalar(noun(self.yes_no), None),
            ValueKind::Char => scalar(noun(self.one_character), None),
            ValueKind::Choice(values) => KindWords {
                said_by: SaidBy::Values(values),
                ..scalar(self.one_of(values), None)
            },
            ValueKind::Text => KindWords::free(noun(self.its_content), noun(self.free_text))
                .said_by(SaidBy::AnyDescription),
            ValueKind::Json => KindWords::free(noun(self.the_json_value), noun(self.a_json_value)),
            ValueKind::Custom => KindWords::free(noun(self.its_value), noun(self.a_single_value)),
            ValueKind::List(inner) => KindWords {
                slot: Slot::Items(inner),
                items: Some(inner),
                said_by: SaidBy::Phrase(self.per_line),
                ..KindWords::free(noun(self.list), noun(self.list))
            },
            ValueKind::Table => KindWords {
                slot: Slot::Rows,
                ..KindWords::free(noun(self.table), noun(self.table))
            },
            ValueKind::Record => KindWords {
                slot: Slot::Labels,
                ..KindWords::free(noun(self.record), noun(self.record))
            },
            ValueKind::Map(inner) => KindWords {
                slot: Slot::Entries(inner),
                ..KindWords::free(noun(self.map), noun(self.map))
            },
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

/// What a phrase table says of one kind of value ([`Phrases::kind_words`]).
struct KindWords<'k> {
    /// The noun in the feedback and under a missing section: "a single
    /// whole number", "its content".
    noun: String,
    /// The noun of the guide's sentence: "free text".
    guide: String,
    /// The example answer's slot.
    slot: Slot<'k>,
    /// Whether the noun is short enough for one value inside a line (a
    /// list item, a map's value): else the slot says "item" or "value".
    inline: bool,
    /// The noun of a number that bounds are said of.
    number: Option<&'static str>,
    /// The kind of each item, for a list.
    items: Option<&'k ValueKind>,
    /// What in a section's description already says the kind.
    said_by: SaidBy<'k>,
}

impl<'k> KindWords<'k> {
    /// A value written as text of its own: its noun, its guide noun, a slot
    /// of its guide noun.
    fn free(noun: String, guide: String) -> Self {
        KindWords {
            noun,
            slot: Slot::Noun(guide.clone()),
            guide,
            inline: false,
            number: None,
            items: None,
            said_by: SaidBy::Nothing,
        }
    }

    fn said_by(self, said_by: SaidBy<'k>) -> Self {
        KindWords { said_by, ..self }
    }
}

/// The shape of an example answer's slot.
enum Slot<'k> {
    /// `<noun>`.
    Noun(String),
    /// `- <item>` lines of this kind.
    Items(&'k ValueKind),
    /// A markdown table of `<column>` and `<value>` cells.
    Rows,
    /// `<label>: <value>` lines.
    Labels,
    /// `Name 1: <value>` lines of this kind.
    Entries(&'k ValueKind),
}

/// What in a section's description says its kind, so the guide need not.
enum SaidBy<'k> {
    /// Any description: free text needs no more.
    AnyDescription,
    /// This phrase, as the table writes it (lower case), in the lower-cased
    /// description.
    Phrase(&'k str),
    /// Each of these values, ignoring case.
    Values(&'k [&'k str]),
    /// Nothing: the guide always says the kind.
    Nothing,
}

/// `text` with its first letter in upper case.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    let mut out: String = chars
        .next()
        .into_iter()
        .flat_map(char::to_uppercase)
        .collect();
    out.push_str(chars.as_str());
    out
}

/// `text` without its final full stops, to be set inside a sentence.
pub(crate) fn without_stop(text: &str) -> &str {
    text.trim().trim_end_matches(['.', '。'])
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
            assert_eq!(p.check(), Ok(()), "{lang:?}");
            let templates = p
                .templates()
                .map(|(_, template, blanks)| (template, blanks));
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

    /// `Expected`'s `Display` (English, beside the type) says what the
    /// English table says.
    #[test]
    fn expected_displays_as_the_english_table_words_it() {
        let all = [
            Expected::Text,
            Expected::WholeNumber,
            Expected::WholeNumberBetween {
                min: "-3".into(),
                max: "9".into(),
            },
            Expected::Number,
            Expected::YesNo,
            Expected::OneCharacter,
            Expected::OneOf(&["low", "high"]),
            Expected::Described("a date like 2024-05-01.".into()),
        ];
        for expected in all {
            assert_eq!(expected.to_string(), EN.expected(&expected, None));
        }
        assert_eq!(
            Expected::OneOf(&["low", "high"]).to_string(),
            "one of: low, high"
        );
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
