//! The number rules: a whole number, a decimal, and either within a
//! section's bounds (`#[section(min = 0, max = 1)]`).
//!
//! What a grammar says of the bounds, exactly:
//! - whole numbers from `min` to `max`: every number of each length in
//!   the range as alternatives of digit classes (the classic
//!   range-to-pattern construction: `[3-9]`, `[1-9][0-9]`, `1[0-9]{2}`,
//!   `2[0-4][0-9]`, `25[0-5]` for 3 to 255), a handful of short
//!   alternatives per digit and no bounded repetition inside another;
//! - decimals with whole bounds: the integer part within them, and at a
//!   bound only zeros after the point (`1`, `1.0`, `1.000` but no `1.5`
//!   under `max = 1`).
//!
//! A bound with a fraction (`min = 0.25`) is said as far as its integer
//! part: the grammar keeps to `floor(min)` and `ceil(max)`, the sign
//! included, and the parser's check refuses what lies between (`0.1`
//! under `min = 0.25`), with feedback naming the bounds. A side without
//! a bound keeps the unbounded rule's reach: at most nine digits, and a
//! whole number without `min` a sign only when its type is signed
//! ([`SectionSpec::signed`](crate::sections::SectionSpec::signed), which
//! the derive sets for `i32` and its kin: `-3` is no `u32`).

use super::expr::{Class, Expr};
use crate::vocab::Bounds;

/// The largest number an open side reaches: nine digits fit every
/// integer type from `u32` and `i32` up.
const OPEN: i128 = 999_999_999;

/// Decimals after the point, at most.
const DECIMALS: u32 = 6;

fn digits() -> Expr {
    Expr::Class(Class::of([]).with_range('0', '9'))
}

fn digit_class(from: u8, to: u8) -> Expr {
    if from == to {
        Expr::lit((from as char).to_string())
    } else {
        Expr::Class(Class::of([]).with_range(from as char, to as char))
    }
}

/// A whole number without sign or leading zeros, at most nine digits.
pub(crate) fn integer() -> Expr {
    Expr::alt(vec![
        Expr::lit("0"),
        Expr::seq(vec![
            Expr::Class(Class::of([]).with_range('1', '9')),
            digits().repeat(0, Some(8)),
        ]),
    ])
}

/// A whole number of a signed type: [`integer`], or `-` and one that is
/// not 0.
pub(crate) fn signed_integer() -> Expr {
    Expr::alt(vec![
        integer(),
        Expr::seq(vec![
            Expr::lit("-"),
            Expr::Class(Class::of([]).with_range('1', '9')),
            digits().repeat(0, Some(8)),
        ]),
    ])
}

/// A decimal number: a sign, nine digits at most, six decimals at most.
pub(crate) fn float() -> Expr {
    Expr::seq(vec![Expr::lit("-").optional(), integer(), fraction()])
}

/// An optional fraction: `.` and one to six digits.
fn fraction() -> Expr {
    Expr::seq(vec![Expr::lit("."), digits().repeat(1, Some(DECIMALS))]).optional()
}

/// An optional fraction of zeros only: `.0`, `.000`.
fn zeros() -> Expr {
    Expr::seq(vec![
        Expr::lit("."),
        Expr::lit("0").repeat(1, Some(DECIMALS)),
    ])
    .optional()
}

/// A bound read as a number: whole as written, else rounded towards the
/// outside (`floor` for a minimum, `ceil` for a maximum). `None` when the
/// text is no number.
fn bound(text: Option<&str>, up: bool) -> Option<(i128, bool)> {
    let text = text?.trim();
    if let Ok(whole) = text.parse::<i128>() {
        return Some((whole, true));
    }
    let value: f64 = text.parse().ok().filter(|v: &f64| v.is_finite())?;
    let rounded = if up { value.ceil() } else { value.floor() };
    // A decimal written whole (`1.0`) is said exactly.
    let exact = rounded == value;
    let clamped = rounded.clamp(-1e30, 1e30) as i128;
    Some((clamped, exact))
}

/// The whole numbers from `min` to `max` (included) as alternatives, or
/// `None` when there are none. Without `min`, from 0, or as far below as
/// the open rule reaches when the type is `signed`. Either way no number
/// the type does not hold (`holds`, the type's range when known: 0 to 255
/// for a `u8`).
pub(crate) fn integer_within(bounds: &Bounds, signed: bool, holds: &Bounds) -> Option<Expr> {
    let min = bound(bounds.min, true).map(|(min, _)| min);
    let max = bound(bounds.max, false).map(|(max, _)| max);
    let low = min.unwrap_or(if signed || max.is_some_and(|max| max < 0) {
        -OPEN
    } else {
        0
    });
    let high = max.unwrap_or_else(|| OPEN.max(top_of_length(low)));
    let (type_low, type_high) = type_range(holds);
    integer_range(low.max(type_low), high.min(type_high))
}

/// The type's range as whole numbers, each side open (as far as an `i128`
/// reaches) where unknown.
fn type_range(holds: &Bounds) -> (i128, i128) {
    (
        bound(holds.min, true).map_or(i128::MIN, |(min, _)| min),
        bound(holds.max, false).map_or(i128::MAX, |(max, _)| max),
    )
}

/// Whether a type holding `holds` refuses some whole number the open rule
/// writes (nine digits, a sign when `signed`): a `u8` or an `i16` does, a
/// `u32` or an `i64` does not.
pub(crate) fn narrower_than_open(holds: &Bounds, signed: bool) -> bool {
    let (low, high) = type_range(holds);
    high < OPEN || low > if signed { -OPEN } else { 0 }
}

/// The whole numbers from `low` to `high` (included) as alternatives, no
/// `-0` among them; `None` when there are none. A side beyond the open
/// rule's reach (nine digits) is drawn in to it.
pub(crate) fn integer_range(low: i128, high: i128) -> Option<Expr> {
    let (low, high) = (low.max(-OPEN), high.min(OPEN));
    if low > high {
        return None;
    }
    let mut alternatives = Vec::new();
    if high >= 0 {
        alternatives.extend(magnitudes(low.max(0), high));
    }
    if low < 0 {
        let negative = Expr::alt(magnitudes((-high).max(1), -low));
        alternatives.push(Expr::seq(vec![Expr::lit("-"), negative]));
    }
    Some(Expr::alt(alternatives))
}

/// Decimals from `min` to `max`: exact for whole bounds, the integer part
/// otherwise; `None` when there are none.
pub(crate) fn float_within(bounds: &Bounds) -> Option<Expr> {
    let read = |text: Option<&str>| -> Option<f64> {
        text?.trim().parse().ok().filter(|v: &f64| v.is_finite())
    };
    let (min, max) = (read(bounds.min), read(bounds.max));
    if let (Some(min), Some(max)) = (min, max) {
        if min > max {
            return None;
        }
    }
    let mut alternatives = Vec::new();
    // Each side is a magnitude: at least `from` (a bound on the other
    // side of 0 gives 0), up to `to` (none: as far as the open rule).
    if max.is_none_or(|max| max >= 0.0) {
        let from = min.map_or(0.0, |min| min.max(0.0));
        alternatives.extend(side(from, max));
    }
    if min.is_none_or(|min| min < 0.0) {
        let from = max.map_or(0.0, |max| (-max).max(0.0));
        let negative = side(from, min.map(|min| -min));
        if !negative.is_empty() {
            alternatives.push(Expr::seq(vec![Expr::lit("-"), Expr::alt(negative)]));
        }
    }
    (!alternatives.is_empty()).then(|| Expr::alt(alternatives))
}

/// The decimals of one sign whose magnitude is from `from` (≥ 0) to `to`:
/// integer parts from `floor(from)` take any fraction up to the last
/// whole number below `to`; a whole `to` itself takes only zeros after
/// the point.
fn side(from: f64, to: Option<f64>) -> Vec<Expr> {
    let first = from.floor().min(1e30) as i128;
    let mut out = Vec::new();
    let (any_to, top) = match to {
        None => (OPEN.max(first), None),
        Some(to) if to.fract() == 0.0 => (to.min(1e30) as i128 - 1, Some(to.min(1e30) as i128)),
        Some(to) => (to.floor().min(1e30) as i128, None),
    };
    if first <= any_to {
        out.push(Expr::seq(vec![
            Expr::alt(magnitudes(first, any_to)),
            fraction(),
        ]));
    }
    if let Some(top) = top.filter(|top| first <= *top) {
        out.push(Expr::seq(vec![Expr::alt(magnitudes(top, top)), zeros()]));
    }
    out
}

/// The largest number with as many digits as `n` (at least one).
fn top_of_length(n: i128) -> i128 {
    let len = n.unsigned_abs().to_string().len() as u32;
    10i128.pow(len) - 1
}

/// The numbers from `low` to `high` (0 ≤ low ≤ high), written without
/// leading zeros, as alternatives: one run of lengths at a time.
fn magnitudes(low: i128, high: i128) -> Vec<Expr> {
    let mut out = Vec::new();
    let mut from = low;
    while from <= high {
        let to = high.min(top_of_length(from));
        let (a, b) = (from.to_string(), to.to_string());
        out.extend(same_length(a.as_bytes(), b.as_bytes()));
        from = to + 1;
    }
    out
}

/// The digit strings from `a` to `b`, both of one length, as alternatives
/// of digit classes: a shared first digit, then the rest; or the first
/// digit's run from `a`, the digits strictly between (any rest), and the
/// run up to `b`.
fn same_length(a: &[u8], b: &[u8]) -> Vec<Expr> {
    let Some((&first_a, rest_a)) = a.split_first() else {
        return vec![Expr::lit("")];
    };
    let (&first_b, rest_b) = b.split_first().unwrap_or((&first_a, &[]));
    let rest = rest_a.len() as u32;
    let any_rest = || {
        if rest == 0 {
            Expr::lit("")
        } else if rest == 1 {
            digits()
        } else {
            digits().repeat(rest, Some(rest))
        }
    };
    let prefixed =
        |digit: u8, tails: Vec<Expr>| Expr::seq(vec![digit_class(digit, digit), Expr::alt(tails)]);
    if first_a == first_b {
        return vec![prefixed(first_a, same_length(rest_a, rest_b))];
    }
    let mut out = Vec::new();
    let low_full = rest_a.iter().all(|&d| d == b'0');
    let high_full = rest_b.iter().all(|&d| d == b'9');
    let start = if low_full {
        first_a
    } else {
        let nines = vec![b'9'; rest_a.len()];
        out.push(prefixed(first_a, same_length(rest_a, &nines)));
        first_a + 1
    };
    let end = if high_full { first_b } else { first_b - 1 };
    if start <= end {
        out.push(Expr::seq(vec![digit_class(start, end), any_rest()]));
    }
    if !high_full {
        let zeros = vec![b'0'; rest_b.len()];
        out.push(prefixed(first_b, same_length(&zeros, rest_b)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::expr::Rules;

    /// Every string of `expr`'s language, by walking it (small languages).
    fn language(expr: &Expr) -> Vec<String> {
        match expr {
            Expr::Lit(text) => vec![text.clone()],
            Expr::Class(class) => (0u32..0x80)
                .filter_map(char::from_u32)
                .filter(|c| class.contains(*c))
                .map(String::from)
                .collect(),
            Expr::Seq(items) => items.iter().fold(vec![String::new()], |acc, item| {
                let tails = language(item);
                acc.iter()
                    .flat_map(|head| tails.iter().map(move |tail| format!("{head}{tail}")))
                    .collect()
            }),
            Expr::Alt(items) => items.iter().flat_map(language).collect(),
            Expr::Repeat { expr, min, max } => {
                let one = language(expr);
                let mut out = Vec::new();
                let mut current = vec![String::new()];
                for count in 0..=max.unwrap_or(*min) {
                    if count >= *min {
                        out.extend(current.iter().cloned());
                    }
                    current = current
                        .iter()
                        .flat_map(|head| one.iter().map(move |tail| format!("{head}{tail}")))
                        .collect();
                }
                out
            }
            other => panic!("no such expression here: {other:?}"),
        }
    }

    fn whole(min: Option<&'static str>, max: Option<&'static str>) -> Vec<i128> {
        let expr =
            integer_within(&Bounds::new(min, max), false, &Bounds::NONE).expect("some numbers");
        let mut numbers: Vec<i128> = language(&expr)
            .iter()
            .map(|text| text.parse().expect(text))
            .collect();
        let count = numbers.len();
        numbers.sort();
        numbers.dedup();
        assert_eq!(numbers.len(), count, "each number written once");
        numbers
    }

    #[test]
    fn whole_numbers_in_a_range_are_exactly_those() {
        for (min, max) in [
            (0, 1),
            (3, 255),
            (0, 100),
            (17, 17),
            (-10, 40),
            (-255, -3),
            (1, 1000),
            (99, 101),
        ] {
            let (a, b) = (min.to_string(), max.to_string());
            let a: &'static str = Box::leak(a.into_boxed_str());
            let b: &'static str = Box::leak(b.into_boxed_str());
            assert_eq!(
                whole(Some(a), Some(b)),
                (min..=max).collect::<Vec<i128>>(),
                "{min}..={max}"
            );
        }
        assert_eq!(whole(None, Some("12")), (0..=12).collect::<Vec<_>>());
        assert_eq!(whole(Some("5"), Some("5")), [5]);
        assert_eq!(
            integer_within(&Bounds::new(Some("5"), Some("4")), false, &Bounds::NONE),
            None
        );
    }

    /// The numbers of a section of a type holding `holds`, `signed` or not,
    /// within `bounds`.
    fn held(bounds: Bounds, signed: bool, holds: Bounds) -> Vec<i128> {
        let expr = integer_within(&bounds, signed, &holds).expect("some numbers");
        let mut numbers: Vec<i128> = language(&expr)
            .iter()
            .map(|text| text.parse().expect(text))
            .collect();
        numbers.sort();
        numbers
    }

    #[test]
    fn whole_numbers_stay_within_their_type() {
        let u8_range = Bounds::new(Some("0"), Some("255"));
        let i8_range = Bounds::new(Some("-128"), Some("127"));
        assert_eq!(
            held(Bounds::NONE, false, u8_range),
            (0..=255).collect::<Vec<i128>>()
        );
        assert_eq!(
            held(Bounds::NONE, true, i8_range),
            (-128..=127).collect::<Vec<i128>>()
        );
        // The section's bounds and the type's: the narrower of each side.
        assert_eq!(
            held(Bounds::new(Some("200"), None), false, u8_range),
            (200..=255).collect::<Vec<i128>>()
        );
        assert_eq!(
            held(Bounds::new(None, Some("5")), true, i8_range),
            (-128..=5).collect::<Vec<i128>>()
        );
        assert!(narrower_than_open(&u8_range, false));
        assert!(narrower_than_open(&i8_range, true));
        assert!(narrower_than_open(
            &Bounds::new(Some("-32768"), Some("32767")),
            true
        ));
        assert!(!narrower_than_open(
            &Bounds::new(Some("0"), Some("4294967295")),
            false
        ));
        assert!(!narrower_than_open(
            &Bounds::new(Some("-9223372036854775808"), Some("9223372036854775807")),
            true
        ));
        assert!(!narrower_than_open(&Bounds::NONE, false));
    }

    #[test]
    fn the_pattern_of_a_small_range_is_short() {
        let mut rules = Rules::default();
        let expr =
            integer_within(&Bounds::new(Some("3"), Some("255")), false, &Bounds::NONE).unwrap();
        rules.add("root", expr, true);
        assert_eq!(
            crate::grammar::gbnf::render(&rules),
            "root ::= [3-9] | [1-9] [0-9] | \"1\" [0-9]{2} | \"2\" ( [0-4] [0-9] | \"5\" [0-5] )\n"
        );
    }

    /// Where a match of `expr` from `start` of `text` may end.
    fn ends(expr: &Expr, text: &str, start: usize) -> Vec<usize> {
        let mut out = match expr {
            Expr::Lit(lit) => text[start..]
                .starts_with(lit.as_str())
                .then(|| start + lit.len())
                .into_iter()
                .collect(),
            Expr::Class(class) => text[start..]
                .chars()
                .next()
                .filter(|c| class.contains(*c))
                .map(|c| start + c.len_utf8())
                .into_iter()
                .collect(),
            Expr::Seq(items) => items.iter().fold(vec![start], |at, item| {
                at.iter().flat_map(|&at| ends(item, text, at)).collect()
            }),
            Expr::Alt(items) => items
                .iter()
                .flat_map(|item| ends(item, text, start))
                .collect(),
            Expr::Repeat { expr, min, max } => {
                let mut out = Vec::new();
                let mut current = vec![start];
                for count in 0..=max.unwrap_or(64) {
                    if count >= *min {
                        out.extend(current.iter().copied());
                    }
                    current = current
                        .iter()
                        .flat_map(|&at| ends(expr, text, at))
                        .collect();
                    current.sort();
                    current.dedup();
                }
                out
            }
            other => panic!("no such expression here: {other:?}"),
        };
        out.sort();
        out.dedup();
        out
    }

    fn matches(expr: &Expr, text: &str) -> bool {
        ends(expr, text, 0).contains(&text.len())
    }

    #[test]
    fn decimals_with_whole_bounds_stop_at_the_bound() {
        let expr = float_within(&Bounds::new(Some("0"), Some("1"))).unwrap();
        for yes in ["0", "0.5", "0.999999", "1", "1.0", "1.000000"] {
            assert!(matches(&expr, yes), "{yes}");
        }
        for no in ["1.5", "1.000001", "-0.5", "2", "-1", "01", "0.1234567"] {
            assert!(!matches(&expr, no), "{no}");
        }
        let expr = float_within(&Bounds::new(Some("-2"), Some("-1"))).unwrap();
        for yes in ["-1", "-1.5", "-2", "-2.00"] {
            assert!(matches(&expr, yes), "{yes}");
        }
        for no in ["-2.5", "-0.5", "0", "1", "-3"] {
            assert!(!matches(&expr, no), "{no}");
        }
        // A bound with a fraction: the integer part, the parser does the rest.
        let expr = float_within(&Bounds::new(Some("0.25"), Some("0.75"))).unwrap();
        for yes in ["0.1", "0.5", "0"] {
            assert!(matches(&expr, yes), "{yes}");
        }
        for no in ["1", "1.5", "-0.5", "2"] {
            assert!(!matches(&expr, no), "{no}");
        }
    }
}
