//! Numbers: one number, with separators, a sign, units and currency around it.

use super::value::{excerpt, Expected, SectionValue, ValueError};
use crate::vocab::ValueKind;

/// One number written in the text, normalised for Rust's parsers.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Number {
    /// Sign, digits without separators, `.` and fraction, exponent: `-1200.5`.
    text: String,
    /// Whether it has a non-zero fraction or an exponent.
    fractional: bool,
    /// The same value written canonically, to tell distinct numbers apart
    /// (`6` and `6.0` are one number).
    canonical: String,
}

/// The numbers in `content`. Stops after two distinct ones: a section with
/// several is feedback whatever they are.
fn numbers(content: &str) -> Vec<Number> {
    let bytes = content.as_bytes();
    let mut found: Vec<Number> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            || (bytes[i] == b'.'
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
                && (i == 0 || !bytes[i - 1].is_ascii_digit()));
        if !starts {
            i += 1;
            continue;
        }
        let negative = is_negative_sign(content, i);
        let (number, end) = read_number(bytes, i, negative);
        i = end;
        if !found.iter().any(|n| n.canonical == number.canonical) {
            found.push(number);
            if found.len() == 2 {
                break;
            }
        }
    }
    found
}

/// Whether the number starting at `at` is preceded by a minus sign that is
/// not a hyphen inside a word (`COVID-19`) or a range (`6-8`).
fn is_negative_sign(content: &str, at: usize) -> bool {
    let before = &content[..at];
    let rest = before
        .strip_suffix('-')
        .or_else(|| before.strip_suffix('−'))
        .or_else(|| before.strip_suffix('－'));
    match rest {
        Some(rest) => !rest.chars().next_back().is_some_and(char::is_alphanumeric),
        None => false,
    }
}

/// Reads the number starting at `start`: digits with `,` (thousands) or `_`
/// separators, a fraction, an exponent. Returns it and where it ends.
fn read_number(bytes: &[u8], start: usize, negative: bool) -> (Number, usize) {
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let mut int = String::new();
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_digit() {
            int.push(b as char);
            i += 1;
        } else if b == b',' && !int.is_empty() && (1..=3).all(|k| digit(i + k)) && !digit(i + 4) {
            // `1,200`: a thousands separator, never a decimal comma or a list.
            i += 1;
        } else if b == b'_' && !int.is_empty() && digit(i + 1) {
            i += 1;
        } else {
            break;
        }
    }
    let mut fraction = String::new();
    if bytes.get(i) == Some(&b'.') && digit(i + 1) {
        i += 1;
        while digit(i) {
            fraction.push(bytes[i] as char);
            i += 1;
        }
    }
    let mut exponent = String::new();
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let sign = matches!(bytes.get(i + 1), Some(b'+' | b'-'));
        let first = i + 1 + usize::from(sign);
        if digit(first) {
            exponent.push('e');
            if bytes[i + 1] == b'-' {
                exponent.push('-');
            }
            i = first;
            while digit(i) {
                exponent.push(bytes[i] as char);
                i += 1;
            }
        }
    }
    let int = if int.is_empty() { "0".to_owned() } else { int };
    let fraction_digits = fraction.trim_end_matches('0');
    let int_digits = int.trim_start_matches('0');
    let int_digits = if int_digits.is_empty() {
        "0"
    } else {
        int_digits
    };
    let zero = int_digits == "0" && fraction_digits.is_empty();
    let sign = if negative && !zero { "-" } else { "" };
    let mut canonical = format!("{sign}{int_digits}");
    if !fraction_digits.is_empty() {
        canonical.push('.');
        canonical.push_str(fraction_digits);
    }
    canonical.push_str(&exponent);
    let mut text = format!("{sign}{int}");
    if !fraction.is_empty() {
        text.push('.');
        text.push_str(&fraction);
    }
    text.push_str(&exponent);
    let number = Number {
        text,
        fractional: !fraction_digits.is_empty() || !exponent.is_empty(),
        canonical,
    };
    (number, i)
}

/// The single number of `content`, or why there is none.
fn single_number(content: &str, expected: impl Fn() -> Expected) -> Result<Number, ValueError> {
    let content = content.trim();
    if content.is_empty() {
        return Err(ValueError::Empty);
    }
    let mut found = numbers(content);
    if found.len() == 1 {
        Ok(found.remove(0))
    } else {
        Err(ValueError::Invalid {
            expected: expected(),
            found: excerpt(content),
        })
    }
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        /// A single whole number: `6`, `6 weeks`, `$1,200`, `-3`, `6.0`.
        impl SectionValue for $t {
            const KIND: ValueKind = ValueKind::Integer;

            fn parse_section(content: &str) -> Result<Self, ValueError> {
                let number = single_number(content, || Expected::WholeNumber)?;
                let whole = if number.fractional {
                    // `1e3` is whole; `1.5` is not.
                    match number.text.parse::<f64>() {
                        Ok(v) if v.fract() == 0.0 && v.abs() < 9.0e15 => format!("{v:.0}"),
                        _ => return Err(ValueError::invalid(Expected::WholeNumber, content)),
                    }
                } else {
                    number.text.split('.').next().unwrap_or_default().to_owned()
                };
                whole.parse::<$t>().map_err(|_| {
                    ValueError::invalid(
                        Expected::WholeNumberBetween {
                            min: <$t>::MIN.to_string(),
                            max: <$t>::MAX.to_string(),
                        },
                        content,
                    )
                })
            }
        }
    )*};
}

integer!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

macro_rules! float {
    ($($t:ty),*) => {$(
        /// A single number: `2.5`, `$1,200.50`, `-0.3 °C`, `15%`.
        impl SectionValue for $t {
            const KIND: ValueKind = ValueKind::Float;

            fn parse_section(content: &str) -> Result<Self, ValueError> {
                let number = single_number(content, || Expected::Number)?;
                match number.text.parse::<$t>() {
                    Ok(value) if value.is_finite() => Ok(value),
                    _ => Err(ValueError::invalid(Expected::Number, content)),
                }
            }
        }
    )*};
}

float!(f32, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_with_units_currency_and_separators() {
        assert_eq!(u32::parse_section("6"), Ok(6));
        assert_eq!(u32::parse_section("6 weeks"), Ok(6));
        assert_eq!(u32::parse_section("$1,200"), Ok(1200));
        assert_eq!(u64::parse_section("about 1,234,567 people"), Ok(1_234_567));
        assert_eq!(i32::parse_section("-3 °C"), Ok(-3));
        assert_eq!(i32::parse_section("−3"), Ok(-3));
        assert_eq!(i32::parse_section("+7"), Ok(7));
        assert_eq!(u32::parse_section("1_000"), Ok(1000));
        assert_eq!(u32::parse_section("6.0"), Ok(6));
        assert_eq!(u32::parse_section("**6** weeks (6)"), Ok(6));
        assert_eq!(u32::parse_section("1e3"), Ok(1000));
        assert_eq!(u32::parse_section("15%"), Ok(15));
        assert_eq!(u32::parse_section("¥500元"), Ok(500));
        assert_eq!(u8::parse_section("Week-3"), Ok(3));
        assert_eq!(i64::parse_section("COVID-19"), Ok(19));
    }

    #[test]
    fn no_number_or_several_is_an_error() {
        assert_eq!(
            u32::parse_section("about six"),
            Err(ValueError::invalid(Expected::WholeNumber, "about six"))
        );
        assert_eq!(
            u32::parse_section("6-8 weeks"),
            Err(ValueError::invalid(Expected::WholeNumber, "6-8 weeks"))
        );
        assert_eq!(
            u32::parse_section("3,4"),
            Err(ValueError::invalid(Expected::WholeNumber, "3,4"))
        );
        assert_eq!(u32::parse_section("  "), Err(ValueError::Empty));
    }

    #[test]
    fn fractions_and_ranges_for_integers() {
        assert_eq!(
            u32::parse_section("1.5 weeks"),
            Err(ValueError::invalid(Expected::WholeNumber, "1.5 weeks"))
        );
        let between = |min: &str, max: &str| Expected::WholeNumberBetween {
            min: min.to_owned(),
            max: max.to_owned(),
        };
        assert_eq!(
            u32::parse_section("-3"),
            Err(ValueError::invalid(between("0", "4294967295"), "-3"))
        );
        assert_eq!(
            u8::parse_section("300"),
            Err(ValueError::invalid(between("0", "255"), "300"))
        );
        assert_eq!(
            i8::parse_section("-129"),
            Err(ValueError::invalid(between("-128", "127"), "-129"))
        );
        assert_eq!(i8::parse_section("-128"), Ok(-128));
        assert_eq!(
            u128::parse_section("340282366920938463463374607431768211455"),
            Ok(u128::MAX)
        );
    }

    #[test]
    fn floats() {
        assert_eq!(f64::parse_section("2.5"), Ok(2.5));
        assert_eq!(f64::parse_section("$1,200.50"), Ok(1200.5));
        assert_eq!(f64::parse_section(".5 kg"), Ok(0.5));
        assert_eq!(f64::parse_section("-0.25"), Ok(-0.25));
        assert_eq!(f32::parse_section("3 hours"), Ok(3.0));
        assert_eq!(f64::parse_section("6.02e23"), Ok(6.02e23));
        assert_eq!(f64::parse_section("2.50 or 2.5"), Ok(2.5));
        assert_eq!(
            f64::parse_section("1.5 to 2"),
            Err(ValueError::invalid(Expected::Number, "1.5 to 2"))
        );
        assert_eq!(
            f64::parse_section("1e999"),
            Err(ValueError::invalid(Expected::Number, "1e999"))
        );
    }

    #[test]
    fn distinct_means_by_value() {
        assert_eq!(numbers("6 and 6.0 and 06").len(), 1);
        assert_eq!(numbers("-0 and 0").len(), 1);
        assert_eq!(numbers("1, 2, 3").len(), 2);
    }
}
