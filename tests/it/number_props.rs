//! Property: a number written with any sign (ASCII, U+2212, full-width, en
//! dash) before or after any currency, with separators and a scale word,
//! reads back as exactly that number, or as feedback; never as another
//! number.

use proptest::prelude::*;
use twr_runtime::parse::SectionValue;

/// How a scale multiplies: ten to a power, or twelve.
#[derive(Debug, Clone, Copy)]
enum Times {
    Ten(u32),
    Twelve,
    /// Not a scale here: a unit (`5m` is five metres).
    One,
    /// A scale or a unit: the reader may not guess.
    Unknown,
}

/// Scales as written after the digits, and what each means without and
/// with money.
const SCALES: &[(&str, Times, Times)] = &[
    ("", Times::One, Times::One),
    ("k", Times::Ten(3), Times::Ten(3)),
    ("K", Times::Ten(3), Times::Ten(3)),
    (" thousand", Times::Ten(3), Times::Ten(3)),
    ("M", Times::Ten(6), Times::Ten(6)),
    (" million", Times::Ten(6), Times::Ten(6)),
    (" Million", Times::Ten(6), Times::Ten(6)),
    ("mn", Times::Ten(6), Times::Ten(6)),
    ("m", Times::One, Times::Ten(6)),
    (" m", Times::One, Times::Ten(6)),
    ("bn", Times::Ten(9), Times::Ten(9)),
    ("B", Times::Ten(9), Times::Ten(9)),
    (" billion", Times::Ten(9), Times::Ten(9)),
    ("b", Times::Unknown, Times::Ten(9)),
    (" trillion", Times::Ten(12), Times::Ten(12)),
    (" hundred", Times::Ten(2), Times::Ten(2)),
    (" dozen", Times::Twelve, Times::Twelve),
    ("万", Times::Ten(4), Times::Ten(4)),
    ("亿", Times::Ten(8), Times::Ten(8)),
    ("千万", Times::Ten(7), Times::Ten(7)),
    (" K", Times::Unknown, Times::Ten(3)),
    (" M", Times::Unknown, Times::Ten(6)),
];

const SIGNS: &[(&str, bool)] = &[
    ("", false),
    ("+", false),
    ("-", true),
    ("−", true),
    ("－", true),
    ("–", true),
];
const CURRENCIES: &[&str] = &["", "$", "€", "£", "¥"];
const BEFORE: &[&str] = &["", "about ", "Total: ", "~", "**"];
/// Words after the number; `dollars` and `元` mean money.
const AFTER: &[&str] = &["", " users", " weeks", " in total", "元", " dollars", "**"];

/// One written number and its exact value: `numerator / 10^decimals`, or
/// `None` when the reader may not know it.
#[derive(Debug, Clone)]
struct Written {
    text: String,
    value: Option<(i128, u32)>,
}

/// `digits` grouped by `sep` in threes from the right.
fn grouped(digits: &str, sep: char) -> String {
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

fn written() -> impl Strategy<Value = Written> {
    (
        0u64..1_000_000_000_000,
        prop::option::of("[0-9]{1,4}"),
        0usize..3,
        0..SIGNS.len(),
        any::<bool>(),
        0..CURRENCIES.len(),
        0..SCALES.len(),
        0..BEFORE.len(),
        0..AFTER.len(),
    )
        .prop_map(
            |(int, fraction, sep, sign, sign_first, currency, scale, before, after)| {
                let digits = int.to_string();
                let int_text = match sep {
                    0 => digits.clone(),
                    1 => grouped(&digits, ','),
                    _ => grouped(&digits, '_'),
                };
                let mut number = int_text;
                if let Some(f) = &fraction {
                    number.push('.');
                    number.push_str(f);
                }
                let (sign_text, negative) = SIGNS[sign];
                let currency_text = CURRENCIES[currency];
                let (scale_text, plain, money) = SCALES[scale];
                let after_text = AFTER[after];
                let is_money = !currency_text.is_empty() || matches!(after_text, " dollars" | "元");
                let prefix = if sign_first {
                    format!("{sign_text}{currency_text}")
                } else {
                    format!("{currency_text}{sign_text}")
                };
                let text = format!("{}{prefix}{number}{scale_text}{after_text}", BEFORE[before]);
                let decimals = fraction.as_ref().map_or(0, |f| f.len() as u32);
                let mantissa = i128::from(int) * 10i128.pow(decimals)
                    + fraction.as_ref().map_or(0, |f| f.parse::<i128>().unwrap());
                let times = if is_money { money } else { plain };
                let scaled = match times {
                    Times::Ten(p) => Some(mantissa * 10i128.pow(p)),
                    Times::Twelve => Some(mantissa * 12),
                    Times::One => Some(mantissa),
                    Times::Unknown => None,
                };
                let value = scaled.map(|v| (if negative { -v } else { v }, decimals));
                Written { text, value }
            },
        )
}

/// The exact value as an integer, when it is whole.
fn whole((numerator, decimals): (i128, u32)) -> Option<i128> {
    let unit = 10i128.pow(decimals);
    (numerator % unit == 0).then_some(numerator / unit)
}

/// A number with a letter that looks like a digit (`O`, `o`, `l`, `I`)
/// glued before or after its digits: `1O`, `$7.7O`, `l0 users`.
fn glued_look_alike() -> impl Strategy<Value = String> {
    (
        0u64..1_000_000,
        prop::option::of("[0-9]{1,3}"),
        0..CURRENCIES.len(),
        prop::sample::select(vec!['O', 'o', 'l', 'I']),
        any::<bool>(),
        0..BEFORE.len(),
        0..AFTER.len(),
    )
        .prop_map(
            |(int, fraction, currency, letter, before_digits, before, after)| {
                let mut number = int.to_string();
                if let Some(f) = fraction {
                    number.push('.');
                    number.push_str(&f);
                }
                let number = if before_digits {
                    format!("{letter}{number}")
                } else {
                    format!("{number}{letter}")
                };
                format!(
                    "{}{}{number}{}",
                    BEFORE[before], CURRENCIES[currency], AFTER[after]
                )
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn a_letter_like_a_digit_glued_to_the_number_is_feedback(text in glued_look_alike()) {
        prop_assert!(u64::parse_section(&text).is_err(), "{} read as {:?}", text, u64::parse_section(&text));
        prop_assert!(f64::parse_section(&text).is_err(), "{} read as {:?}", text, f64::parse_section(&text));
    }

    #[test]
    fn integers_read_exactly_or_are_feedback(w in written()) {
        let read = i128::parse_section(&w.text);
        match w.value {
            Some(value) => match whole(value) {
                Some(n) => prop_assert_eq!(read, Ok(n), "{}", w.text),
                None => prop_assert!(read.is_err(), "{} read as {:?}", w.text, read),
            },
            None => prop_assert!(read.is_err(), "{} read as {:?}", w.text, read),
        }
        let read = u32::parse_section(&w.text);
        let expected = w.value.and_then(whole).and_then(|n| u32::try_from(n).ok());
        match expected {
            Some(n) => prop_assert_eq!(read, Ok(n), "{}", w.text),
            None => prop_assert!(read.is_err(), "{} read as {:?}", w.text, read),
        }
    }

    #[test]
    fn floats_read_exactly_or_are_feedback(w in written()) {
        let read = f64::parse_section(&w.text);
        match w.value {
            Some((numerator, decimals)) => {
                // The exact decimal, rounded once by Rust's parser.
                let exact: f64 = format!("{numerator}e-{decimals}").parse().unwrap();
                prop_assert_eq!(read, Ok(exact), "{}", w.text);
                let exact: f32 = format!("{numerator}e-{decimals}").parse().unwrap();
                prop_assert_eq!(f32::parse_section(&w.text), Ok(exact), "{}", w.text);
            }
            None => prop_assert!(read.is_err(), "{} read as {:?}", w.text, read),
        }
    }

    #[test]
    fn two_written_numbers_are_feedback(a in written(), b in written(), joint in 0usize..3) {
        // A range or a list of two different values is never one of them.
        let joint = [" to ", " - ", " or "][joint];
        let text = format!("{}{joint}{}", a.text, b.text);
        if let (Some(x), Some(y)) = (a.value, b.value) {
            let same = x.0 * 10i128.pow(y.1) == y.0 * 10i128.pow(x.1);
            if !same {
                let read = f64::parse_section(&text);
                prop_assert!(read.is_err(), "{} read as {:?}", text, read);
            }
        }
    }
}
