//! The [`Sections`] trait: a type read from a reply's sections. It lives
//! with the parser, since it names the parser's map of sections and the
//! parser's stream reads any `Sections` type; users name it at the crate
//! root (and at [`sections`](crate::sections)).

use super::typed::TypedSections;
use super::SectionMap;
use crate::feedback::Feedback;
use crate::json::JsonProvenance;
use crate::phrases::Lang;
use crate::vocab::{SectionSpec, Style, WaysSpec};

/// A type that can be read from a reply with loose section headers.
///
/// Usually derived with `#[derive(Sections)]`. By hand, two functions are
/// needed, [`specs`](Sections::specs) and
/// [`parse_sections`](Sections::parse_sections); the guide is built from the
/// specs (the derive also generates field-specific feedback for you).
///
/// ```
/// use twr_runtime::sections::{SectionSpec, ValueKind};
/// use twr_runtime::{Feedback, Sections};
///
/// struct Answer(String);
///
/// static SPECS: [SectionSpec; 1] = [SectionSpec::new("answer", "[Answer]", "Answer", ValueKind::Text)];
///
/// impl Sections for Answer {
///     fn specs() -> &'static [SectionSpec] {
///         &SPECS
///     }
///     fn parse_sections(raw: &str) -> Result<Self, Feedback> {
///         Ok(Answer(raw.trim().to_string()))
///     }
/// }
///
/// // The provided guide: the one `prompt::format_guide` builds from the specs.
/// assert_eq!(
///     Answer::format_guide(),
///     twr_runtime::prompt::format_guide(&SPECS, twr_runtime::sections::Lang::En)
/// );
/// ```
pub trait Sections: Sized {
    /// One entry per section, in declaration order.
    fn specs() -> &'static [SectionSpec];

    /// The soft-format instructions with a complete example answer, appended
    /// to the prompt. By default, the guide of [`specs`](Sections::specs)
    /// and [`ways`](Sections::ways) in [`lang`](Sections::lang) and
    /// [`style`](Sections::style) (for the default style and no ways,
    /// [`prompt::format_guide`](crate::prompt::format_guide)).
    fn format_guide() -> String {
        crate::prompt::guide(
            Self::specs(),
            Self::ways(),
            Self::lang(),
            Self::style(),
            &[],
        )
    }

    /// Parses a raw model reply. On failure, the [`Feedback`] lists every
    /// problem of the reply and renders as the message for the model.
    fn parse_sections(raw: &str) -> Result<Self, Feedback>;

    /// The ways to answer among the [`specs`](Sections::specs): one
    /// [`WaysSpec`] per enum deriving `Sections` (the type itself, or a
    /// `#[section(flatten)]` field of such an enum), each saying which
    /// sections belong to which way (variant). Empty for a type
    /// without one (the default).
    fn ways() -> &'static [WaysSpec] {
        &[]
    }

    /// The columns of each table or record section, by position in the
    /// [`specs`](Sections::specs), for a grammar of the type: each field's
    /// name, its name as the guide writes it, and its kind. The derive
    /// implements it; by default none are known (a grammar then takes such
    /// a section as text).
    #[doc(hidden)]
    fn columns() -> Vec<(usize, super::set::Columns)> {
        Vec::new()
    }

    /// The JSON schema of each `#[section(json)]` section whose type gives
    /// one (the `schemars` feature), by position in the
    /// [`specs`](Sections::specs), for a grammar of the type. The derive
    /// implements it; by default none are known (a grammar then takes any
    /// JSON value).
    #[doc(hidden)]
    fn schemas() -> Vec<(usize, super::set::Schema)> {
        Vec::new()
    }

    /// The language of the guide and the feedback (`#[sections(lang = "zh")]`).
    fn lang() -> Lang {
        Lang::En
    }

    /// How the guide asks for section boundaries
    /// (`#[sections(style = "xml")]`); the parser accepts every style.
    fn style() -> Style {
        Style::Brackets
    }

    /// Parses like [`Sections::parse_sections`], and says beside the result
    /// how each `#[section(json)]` section was read (its layer and repairs),
    /// for the loop's ledger. The derive implements it; by default nothing
    /// is reported.
    #[doc(hidden)]
    fn parse_sections_with_report(raw: &str) -> (Result<Self, Feedback>, Vec<JsonProvenance>) {
        (Self::parse_sections(raw), Vec::new())
    }

    /// Parses like [`Sections::parse_sections_with_report`] from sections
    /// already found in `raw` (by [`split_sections`](crate::parse::split_sections)
    /// or by a [`SectionStream`](crate::parse::SectionStream) as the reply
    /// streamed), so the reply is not split again. The derive implements
    /// it; by default `raw` is parsed again.
    #[doc(hidden)]
    fn parse_sections_split<'a>(
        raw: &'a str,
        sections: SectionMap<'a>,
    ) -> (Result<Self, Feedback>, Vec<JsonProvenance>) {
        let _ = sections;
        Self::parse_sections_with_report(raw)
    }

    /// Parses like [`Sections::parse_sections_split`], taking the value of
    /// each section that `typed` holds for the same content instead of
    /// reading it again, and leaving in `typed` the values of the sections
    /// read when the type as a whole is not: the loop reads each section
    /// once per run (a patch merge meets the kept sections again, a
    /// streamed reply meets the sections checked as they completed). The
    /// derive implements it. By default nothing is kept, and a map made to
    /// check one section alone is parsed as that section under its header.
    #[doc(hidden)]
    fn parse_sections_typed<'a>(
        raw: &'a str,
        sections: SectionMap<'a>,
        typed: &mut TypedSections,
    ) -> (Result<Self, Feedback>, Vec<JsonProvenance>) {
        let _ = typed;
        match sections.only() {
            // A type read by hand from the text: the section alone, as it
            // would stand in a reply of one section.
            Some(index) => {
                let content = sections.content(index).unwrap_or_default();
                let header = Self::specs().get(index).map_or("", |spec| spec.header);
                Self::parse_sections_with_report(&format!("{header}\n{content}"))
            }
            None => Self::parse_sections_split(raw, sections),
        }
    }
}
