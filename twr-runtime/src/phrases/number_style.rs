//! How a language writes its numbers: which mark is the decimal one and
//! which group the thousands.

/// How the numbers of a phrase table's language are written, so the
/// parser reads a number section as the user writes it.
///
/// [`NumberStyle::POINT`] (the built-in English and Chinese tables) reads
/// `1,049.95`; [`NumberStyle::COMMA`] reads `1.049,95`, `1 049,95` and
/// `1'049,95`. A table of your own picks one:
///
/// ```
/// use twr_runtime::phrases::{NumberStyle, Phrases};
/// use twr_runtime::parse::SectionValue;
///
/// static GERMAN: Phrases = Phrases { number_style: NumberStyle::COMMA, ..Phrases::ENGLISH };
///
/// assert_eq!(f64::parse_section_with("1.049,95 €", &GERMAN), Ok(1049.95));
/// assert_eq!(f64::parse_section_with("49,96 €", &GERMAN), Ok(49.96));
/// assert_eq!(u32::parse_section_with("1.144.000", &GERMAN), Ok(1_144_000));
/// assert_eq!(f64::parse_section_with("CHF 1'049,95", &GERMAN), Ok(1049.95));
/// assert_eq!(f64::parse_section_with("1 049,95 zł", &GERMAN), Ok(1049.95));
/// // Two readings (1.5 by the style, 1500 as English writes it): feedback.
/// assert!(f64::parse_section_with("1,500", &GERMAN).is_err());
/// // The built-in tables read the point style, as always.
/// assert_eq!(f64::parse_section_with("$1,049.95", &Phrases::ENGLISH), Ok(1049.95));
/// ```
///
/// The rules, in either style:
///
/// - One mark is the decimal mark (`.` or `,`), the others group
///   thousands: `,` in the point style; `.`, a space (plain, no-break,
///   narrow no-break or thin) and an apostrophe (`'` or `’`) in the comma
///   style. Groups after the first have exactly three digits; in the
///   comma style the first has one to three, and a number uses one
///   grouping mark throughout.
/// - Text with two readings is feedback, never a guess. In the comma
///   style a lone `,` before exactly three digits (`1,500`, `12,345`) is
///   the style's decimal comma or the thousands comma models carry over
///   from English; after a lone `0` (`0,125`) it can only be decimal. A
///   number written in the other style, with no reading in this one
///   (`1.5`, `1,049.95` under the comma style), is feedback too: the
///   model is asked again and writes it in the table's style.
/// - An amount in a currency written without minor units (rupiah `Rp`,
///   `IDR`; dong `₫`, `đ`, `VND`; won `₩`, `KRW`; yen `円`, `JPY`; `CLP`,
///   `ISK`, `HUF`, `Ft`, `UGX`, `PYG`) reads a mark before exactly three
///   digits as grouping, in either style: `Rp 31.500` is 31500 and
///   `12.500 ₫` is 12500, never 31.5 and 12.5. (`¥` is left out: it
///   writes the yuan too, which has fen.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NumberStyle {
    /// The decimal mark is a comma (else a point).
    decimal_comma: bool,
}

impl NumberStyle {
    /// `1,049.95`: a decimal point, commas between thousands. The style of
    /// the built-in English and Chinese tables.
    pub const POINT: NumberStyle = NumberStyle {
        decimal_comma: false,
    };
    /// `1.049,95`, `1 049,95`, `1'049,95`: a decimal comma, and a point, a
    /// space or an apostrophe between thousands.
    pub const COMMA: NumberStyle = NumberStyle {
        decimal_comma: true,
    };

    /// Whether the decimal mark is a comma.
    pub(crate) fn decimal_comma(self) -> bool {
        self.decimal_comma
    }
}
