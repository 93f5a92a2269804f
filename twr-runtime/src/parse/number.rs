//! Numbers: one number, with separators, a sign, a scale, units and
//! currency around it.
//!
//! A number is read exactly or not at all. `-$1.5k` is -1500: the sign may
//! stand before or after the currency (`-$20`, `$-20`, `−€5` with the
//! Unicode minus), and a scale written after the digits multiplies them
//! (`k`/`K`, `M`, `bn`, `thousand`, `million`, `billion`, `dozen`, `万`,
//! `亿`, ...). A suffix that could be a scale or a unit (`5 K` is 5 kelvin or
//! 5000, `2b` is bits or billions) is feedback rather than a guess. Lowercase
//! `m` is metres or minutes (`5m` is 5) unless money is meant (`$5m`,
//! `5m dollars` are 5 000 000); uppercase `M` is million.
//!
//! A negative is never read as positive. `($20)`, as accounts write a
//! negative, is -20 when the parentheses hold the money figure and the
//! section says nothing else; `20−` with a minus sign that is nothing else
//! is -20. Where the text has two readings it is feedback: parentheses
//! with words around or without money (`Net: (20)`, a negative or an
//! aside), a dash after the digits (`20-`), `CR` or `DR` after them, and
//! `▲`/`△` before them (a negative in Japanese accounts, a rise on a
//! ticker).
//!
//! A letter glued to the digits is a known unit, scale or currency code
//! (`5kg`, `2nd`, `3k`, `USD5`) or the number is not known: `1O`, `$7.7O` and
//! `l0` are a letter typed for a digit as often as anything else. So are a
//! digit of another script glued to them (`1５`), a second decimal point
//! (`1.0.1`) and a comma that is no thousands separator (`5,5`).
//!
//! A number has one sign: `-+1`, `--1`, `-$-20` and `minus -5` have lost or
//! doubled a minus, and are feedback. The digits of a name (`OAO-1`,
//! `COVID-19`, `Week-3`) are the number only when no other is written,
//! in words either: `OAO-1's battery failed after three days` is feedback,
//! `Week-3` is 3. A number written half in words (`twenty 1`) is feedback.
//!
//! Numbers are read as the phrase table's
//! [`NumberStyle`](crate::phrases::NumberStyle) writes them: `1,049.95`
//! with the built-in tables and `parse_section`, `1.049,95`, `1 049,95`
//! and `1'049,95` with [`NumberStyle::COMMA`]; text with two readings under
//! the style (`1,500` there) is feedback, and an amount in a currency
//! without minor units (`Rp 31.500`, `12.500 ₫`) reads its three-digit
//! groups as thousands in either style.
//!
//! Written by hand: number-parsing crates read one number from a whole
//! string, while a section holds prose around it; this reader finds the
//! number in one pass and keeps it as decimal digits, so scaling is exact.

use super::value::SectionValue;
use super::value_error::{excerpt, Expected, ValueError};
use crate::phrases::{NumberStyle, Phrases};
use crate::vocab::ValueKind;

/// One number written in the text: `negative × digits × 10^exp`, exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Number {
    negative: bool,
    /// Significant digits, ASCII, without leading or trailing zeros; empty
    /// for zero. With `exp`, one spelling per value, so `6`, `6.0`, `06`
    /// and `0.006k` compare equal.
    digits: String,
    /// The power of ten the digits are multiplied by.
    exp: i64,
    /// A suffix that may be a scale or a unit: the value is not known.
    ambiguous: bool,
}

impl Number {
    fn new(negative: bool, int: &str, fraction: &str, exp: i64) -> Number {
        let mut digits = String::with_capacity(int.len() + fraction.len());
        digits.push_str(int.trim_start_matches('0'));
        let mut exp = exp.saturating_sub(fraction.len() as i64);
        if digits.is_empty() {
            // `0.05`: the fraction's leading zeros are not significant.
            digits.push_str(fraction.trim_start_matches('0'));
        } else {
            digits.push_str(fraction);
        }
        let significant = digits.trim_end_matches('0').len();
        exp = exp.saturating_add((digits.len() - significant) as i64);
        digits.truncate(significant);
        let zero = digits.is_empty();
        Number {
            negative: negative && !zero,
            digits,
            exp: if zero { 0 } else { exp },
            ambiguous: false,
        }
    }

    /// The number times `10^power`.
    fn scale(&mut self, power: i64) {
        if !self.digits.is_empty() {
            self.exp = self.exp.saturating_add(power);
        }
    }

    /// The number times 12 (a dozen), exactly: schoolbook multiplication on
    /// the digits.
    fn times_twelve(&mut self) {
        let mut carry = 0u32;
        let mut out: Vec<u8> = Vec::with_capacity(self.digits.len() + 2);
        for b in self.digits.bytes().rev() {
            let v = u32::from(b - b'0') * 12 + carry;
            out.push(b'0' + (v % 10) as u8);
            carry = v / 10;
        }
        while carry > 0 {
            out.push(b'0' + (carry % 10) as u8);
            carry /= 10;
        }
        out.reverse();
        let text: String = out.into_iter().map(char::from).collect();
        *self = Number {
            ambiguous: self.ambiguous,
            ..Number::new(self.negative, &text, "", self.exp)
        };
    }

    /// The value as an integer literal (`-1500000`), or `None` when it has a
    /// fraction. `Err` when it has more digits than any integer type holds.
    fn whole(&self) -> Result<Option<String>, ()> {
        if self.exp < 0 {
            return Ok(None);
        }
        // u128::MAX has 39 digits: anything longer overflows every type,
        // and is never written out (`1e999999999` stays small in memory).
        let len = (self.digits.len() as i64).saturating_add(self.exp);
        if len > 40 {
            return Err(());
        }
        let mut text = String::with_capacity(len as usize + 1);
        if self.negative {
            text.push('-');
        }
        if self.digits.is_empty() {
            text.push('0');
        } else {
            text.push_str(&self.digits);
            text.extend(std::iter::repeat_n('0', self.exp as usize));
        }
        Ok(Some(text))
    }

    /// The value in scientific notation for Rust's float parser, which
    /// rounds correctly: `-15e5`.
    fn scientific(&self) -> String {
        if self.digits.is_empty() {
            return "0".to_owned();
        }
        let sign = if self.negative { "-" } else { "" };
        format!("{sign}{}e{}", self.digits, self.exp)
    }
}

/// The numbers in `content`. Stops after two distinct ones: a section with
/// several is feedback whatever they are.
fn numbers(content: &str, style: NumberStyle) -> Vec<Number> {
    let bytes = content.as_bytes();
    let mut found: Vec<Number> = Vec::new();
    // Where the last number (its scale included) ended.
    let mut last_end: Option<usize> = None;
    // Whether digits were read inside a name (`OAO-1`, `COVID-19`).
    let mut named = false;
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            || (!style.decimal_comma()
                && bytes[i] == b'.'
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
                && (i == 0 || !bytes[i - 1].is_ascii_digit()));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        let before = prefix(&content[..i]);
        let mut marks = Marks {
            comma: style.decimal_comma(),
            whole_currency: whole_currency_before(&content[..i]),
        };
        let (mut number, mut end, mut unsure) = read_number(bytes, i, before.negative, marks);
        // `12.500 ₫`: the currency after the digits says the mark groups
        // thousands; read them again knowing it (once: the digits are few).
        if !marks.whole_currency && whole_currency_after(&content[end..]) {
            marks.whole_currency = true;
            (number, end, unsure) = read_number(bytes, i, before.negative, marks);
        }
        if unsure {
            number.ambiguous = true;
        }
        if before.unsure {
            number.ambiguous = true;
        }
        // `l0`, `O5`: a letter glued before the digits may be a digit
        // mistyped, unless it names a currency (`USD5`, `Rs500`).
        // `1.0.1`, `5,5`: a second decimal point, or a comma that is no
        // thousands separator, makes the number a version, a date, a list
        // or a decimal comma; reading the part before it would be a guess.
        if glued_before(&content[..i]) || continues_oddly(bytes, end) {
            number.ambiguous = true;
        }
        // `5/5`, `5*5`, `5٫5` (an Arabic decimal point): two numbers
        // joined by one character are a fraction, a product, a decimal or
        // a score, never the same number written twice.
        if last_end.is_some_and(|last| joined_by_one_character(&content[last..i])) {
            number.ambiguous = true;
        }
        // `twenty 1`, `twenty-1`: a number written half in words is 21 or 1.
        if number_word_before(&content[..i]) {
            number.ambiguous = true;
        }
        named |= in_name(&content[..i]);
        i = suffix(content, end, before.currency, &mut number);
        match sign_after(content, i, before.signed) {
            SignAfter::None => {}
            SignAfter::Minus(past) => {
                number.negative = !number.digits.is_empty();
                i = past;
            }
            SignAfter::Unsure => number.ambiguous = true,
        }
        if !before.signed && !number.ambiguous {
            if let Some((opened, closed, money)) = parenthesised(content, start, i) {
                let positive = Number {
                    negative: false,
                    ..number.clone()
                };
                let alone = !content[..opened].contains(char::is_alphanumeric)
                    && !content[closed..].contains(char::is_alphanumeric);
                if found.contains(&positive) {
                    // `6 weeks (6)`: the same number said again.
                } else if money && alone {
                    // `($20)`: how accounts write a negative.
                    number.negative = !number.digits.is_empty();
                } else {
                    // `Net: (20)`, `about sixty dollars ($60)`: a negative
                    // or an aside, the text does not say which.
                    number.ambiguous = true;
                }
                i = closed;
            }
        }
        i = past_scale(content, i);
        last_end = Some(i);
        if !found.contains(&number) {
            found.push(number);
            if found.len() == 2 {
                break;
            }
        }
    }
    // `OAO-1's battery failed after three days`: the digits of a name are
    // the number only when no other number is written, in words either.
    if named && found.len() == 1 && has_number_word(content) {
        found[0].ambiguous = true;
    }
    found
}

/// True when the digits after `before` belong to a name: a word joined to
/// them by a hyphen (`OAO-1`, `COVID-19`, `Week-3`, `B-52`).
fn in_name(before: &str) -> bool {
    let mut chars = before.chars().rev();
    chars.next().is_some_and(|c| matches!(c, '-' | '‐' | '‑'))
        && chars.next().is_some_and(char::is_alphabetic)
}

/// True when a number written as a word stands right before the digits
/// after `before`, apart by spaces or a hyphen: `twenty 1`, `twenty-1`.
fn number_word_before(before: &str) -> bool {
    let rest = before.trim_end_matches([' ', '\u{a0}', '-', '‐', '‑']);
    if rest.len() == before.len() {
        return false;
    }
    let start = rest
        .rfind(|c: char| !c.is_ascii_alphabetic())
        .map_or(0, |i| {
            i + rest[i..].chars().next().map_or(1, char::len_utf8)
        });
    number_word(&rest[start..])
}

/// True when `content` writes a number as a word (`three`, `Twenty`).
fn has_number_word(content: &str) -> bool {
    content
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(number_word)
}

/// An English number word, any case: `one` to `twenty`, the tens, and the
/// words of a scale.
fn number_word(word: &str) -> bool {
    (3..=9).contains(&word.len())
        && matches!(
            word.to_ascii_lowercase().as_str(),
            "zero"
                | "one"
                | "two"
                | "three"
                | "four"
                | "five"
                | "six"
                | "seven"
                | "eight"
                | "nine"
                | "ten"
                | "eleven"
                | "twelve"
                | "thirteen"
                | "fourteen"
                | "fifteen"
                | "sixteen"
                | "seventeen"
                | "eighteen"
                | "nineteen"
                | "twenty"
                | "thirty"
                | "forty"
                | "fifty"
                | "sixty"
                | "seventy"
                | "eighty"
                | "ninety"
                | "hundred"
                | "thousand"
                | "million"
                | "billion"
        )
}

/// Past the scale a rating is given on, when one follows at `at`: `out of
/// 5` in `4 out of 5` or `3 stars out of 5`, with at most one word between.
/// The scale is part of the value's wording, like a unit, not a second
/// value: `4 out of 5` is 4.
fn past_scale(content: &str, at: usize) -> usize {
    let rest = &content[at..];
    let after_word = rest.trim_start();
    let after_word = match after_word.find(|c: char| !c.is_alphabetic()) {
        Some(end) if end > 0 && !after_word[..end].eq_ignore_ascii_case("out") => {
            &after_word[end..]
        }
        _ => after_word,
    };
    let after_word = after_word.trim_start();
    let Some(scale) = after_word
        .get(..7)
        .filter(|words| words.eq_ignore_ascii_case("out of "))
        .map(|_| after_word[7..].trim_start())
    else {
        return at;
    };
    let digits = scale.len() - scale.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return at;
    }
    content.len() - scale.len() + digits
}

/// True when a letter or a digit of another script is glued right before
/// the digits starting at the end of `before`: `l0` (a letter l for a one),
/// `O5`, `v2`, `COVID19`, `５1`. A currency code is no such letter (`USD5`).
fn glued_before(before: &str) -> bool {
    let Some(last) = before.chars().next_back() else {
        return false;
    };
    if last.is_numeric() || look_alike_letter(last) {
        // `５1`: a full-width or other digit the reader does not take;
        // `ｌ0`, `О5`: a letter that looks like a digit.
        return true;
    }
    if !last.is_ascii_alphabetic() {
        return false;
    }
    let word_start = before
        .rfind(|c: char| !c.is_ascii_alphabetic())
        .map_or(0, |i| {
            i + before[i..].chars().next().map_or(1, char::len_utf8)
        });
    !currency_code(&before[word_start..])
}

/// True when `between` is one character that is no space: what joins two
/// numbers written as one expression (`5/5`, `5+5`).
fn joined_by_one_character(between: &str) -> bool {
    let mut chars = between.chars();
    chars.next().is_some_and(|c| !c.is_whitespace()) && chars.next().is_none()
}

/// A letter that looks like a digit or is a Latin letter in another
/// form: a full-width letter (`１Ｏ`, `ｌ0`), a Cyrillic or Greek O, I or З.
/// Glued to the digits it may be a digit mistyped, like `O` and `l`.
fn look_alike_letter(c: char) -> bool {
    matches!(c, '\u{FF21}'..='\u{FF3A}' | '\u{FF41}'..='\u{FF5A}')
        || matches!(
            c,
            'О' | 'о' | 'Ο' | 'ο' | 'І' | 'і' | 'Ι' | 'Ӏ' | 'З' | 'з' | 'Ѕ' | 'ѕ'
        )
}

/// Currency codes and abbreviations written glued before the digits.
fn currency_code(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "usd"
            | "us"
            | "eur"
            | "gbp"
            | "jpy"
            | "cny"
            | "rmb"
            | "inr"
            | "rs"
            | "rp"
            | "rm"
            | "chf"
            | "cad"
            | "ca"
            | "aud"
            | "au"
            | "nzd"
            | "nz"
            | "hkd"
            | "hk"
            | "sgd"
            | "krw"
            | "brl"
            | "zar"
            | "mxn"
            | "kr"
            | "r"
            | "x"
    )
}

/// True when what follows the digits ending at `end` continues them in a
/// way no single number is written: a second `.` and digit (`1.0.1`), or a
/// `,` and digit left over by the thousands separators (`5,5`).
fn continues_oddly(bytes: &[u8], end: usize) -> bool {
    matches!(bytes.get(end), Some(b'.' | b','))
        && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)
}

/// Units and suffixes of one or two letters written glued to the digits
/// (`5s`, `3h`, `2nd`, `20MB`). A one- or two-letter word not listed, or one
/// of letters that look like digits (`1O`, `7.7O`, `1Il`), is no unit: the
/// letter may be a digit mistyped, and the number is not known.
fn glued_unit(word: &str) -> bool {
    match word.len() {
        // A letter of another script (`5天`): a unit.
        0 => true,
        1 => matches!(
            word,
            "s" | "h"
                | "d"
                | "w"
                | "y"
                | "g"
                | "t"
                | "c"
                | "x"
                | "X"
                | "p"
                | "L"
                | "A"
                | "C"
                | "D"
                | "F"
                | "G"
                | "H"
                | "J"
                | "N"
                | "P"
                | "V"
                | "W"
                | "Y"
        ),
        2 => matches!(
            word.to_ascii_lowercase().as_str(),
            "km" | "cm"
                | "mm"
                | "nm"
                | "um"
                | "kg"
                | "mg"
                | "lb"
                | "oz"
                | "ft"
                | "in"
                | "mi"
                | "yd"
                | "hr"
                | "ms"
                | "ns"
                | "us"
                | "yr"
                | "mo"
                | "wk"
                | "st"
                | "nd"
                | "rd"
                | "th"
                | "px"
                | "pt"
                | "em"
                | "gb"
                | "mb"
                | "kb"
                | "tb"
                | "pb"
                | "ml"
                | "cl"
                | "dl"
                | "kw"
                | "mw"
                | "gw"
                | "ma"
                | "mv"
                | "kv"
                | "kj"
                | "hz"
                | "pa"
                | "yo"
                | "am"
                | "pm"
                | "hp"
                | "cc"
                | "sq"
                | "pc"
                | "ct"
                | "db"
                | "ev"
                | "ha"
                | "kt"
                | "qt"
                | "rs"
                | "rm"
                | "kr"
                | "gy"
                | "bp"
        ),
        _ => !word.bytes().all(|b| matches!(b, b'O' | b'o' | b'I' | b'l')),
    }
}

/// Currency symbols that may stand between a sign and the digits.
const CURRENCY: &[char] = &[
    '$', '€', '£', '¥', '￥', '₹', '₩', '₽', '₺', '₫', '₪', '฿', '₱', '₦', '₴', '¢', '₿',
];

/// Minus signs before the digits: ASCII hyphen-minus, the Unicode minus
/// (U+2212), the full-width and small ones, the heavy minus, and the dashes
/// typesetting puts for a minus (en dash, hyphen, non-breaking hyphen,
/// figure dash).
const MINUS: &[char] = &['-', '−', '－', '﹣', '➖', '–', '‐', '‑', '‒'];

/// Of [`MINUS`], those that are only ever a minus: written after the digits
/// (`20−`, as some ledgers print a negative) they make the number negative.
const ONLY_MINUS: &[char] = &['−', '－', '﹣', '➖'];

/// Triangles some ledgers put before a negative (`▲20` in Japanese
/// accounts) and others before a rise: the sign is not known.
const TRIANGLES: &[char] = &['▲', '△', '▼', '▽'];

/// Words for a minus sign, before the number (and its currency).
const MINUS_WORDS: &[&str] = &["minus ", "negative ", "负", "零下"];

/// What stands before a number's digits.
struct Before {
    negative: bool,
    currency: bool,
    /// A sign is written: `-`, `+`, `minus`.
    signed: bool,
    /// A mark whose sign is not known: `▲20`.
    unsure: bool,
}

/// The sign and currency written right before a number: `-20`, `$-20`,
/// `-$20`, `−€5`, `minus $5`, `负5`. A hyphen inside a word (`COVID-19`) or
/// a range (`6-8`) is not a sign.
fn prefix(before: &str) -> Before {
    // The sign stands apart when what precedes it is not a letter or digit.
    let signed = |rest: &str| -> Option<bool> {
        let rest = rest
            .strip_suffix(MINUS)
            .map(|r| (r, true))
            .or_else(|| rest.strip_suffix(['+', '＋']).map(|r| (r, false)))?;
        (!rest
            .0
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric))
        .then_some(rest.1)
    };
    let minus_word = |rest: &str| {
        MINUS_WORDS.iter().any(|word| {
            let len = word.len();
            rest.len() >= len
                && rest.is_char_boundary(rest.len() - len)
                && rest[rest.len() - len..].eq_ignore_ascii_case(word)
                && !rest[..rest.len() - len]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
        })
    };
    // A second sign before the one read (`-+1`, `--1`, `-$-20`,
    // `minus -5`): the minus dropped or doubled, the sign is not known.
    let signed_again = |rest: &str| {
        let rest = without_last_char(rest).trim_end_matches(CURRENCY);
        signed(rest).is_some() || minus_word(rest)
    };
    // `$-20`: the sign right before the digits, the currency before it.
    if let Some(negative) = signed(before) {
        let rest = without_last_char(before);
        return Before {
            negative,
            currency: rest.ends_with(CURRENCY),
            signed: true,
            unsure: signed_again(before),
        };
    }
    // `-$20`: the currency right before the digits, the sign before it.
    let rest = before.trim_end_matches(CURRENCY);
    let currency = rest.len() < before.len();
    let sign = signed(rest);
    let negative = sign.unwrap_or_else(|| minus_word(rest));
    Before {
        negative,
        currency,
        signed: sign.is_some() || negative,
        unsure: rest.trim_end().ends_with(TRIANGLES) || (sign.is_some() && signed_again(rest)),
    }
}

/// `text` without its last character.
fn without_last_char(text: &str) -> &str {
    &text[..text.len() - text.chars().next_back().map_or(0, char::len_utf8)]
}

/// A sign written after a number ending at `end`.
enum SignAfter {
    None,
    /// `20−`: a minus sign that is nothing else; the number ends at this.
    Minus(usize),
    /// `20-`, `20–`: a minus or a dash; `20 CR`, `20 DR`: credit or debit,
    /// which is negative in some accounts and positive in others.
    Unsure,
}

/// The sign written right after a number ending at `end` (its scale
/// included), when `signed` says whether one stood before it. A hyphen
/// joining a word or a number (`COVID-19-related`, `6-8`) is no sign.
fn sign_after(content: &str, end: usize, signed: bool) -> SignAfter {
    let rest = &content[end..];
    let mut chars = rest.chars();
    if let Some(c) = chars.next().filter(|c| MINUS.contains(c)) {
        if chars.next().is_some_and(char::is_alphanumeric) {
            return SignAfter::None;
        }
        return if ONLY_MINUS.contains(&c) && !signed {
            SignAfter::Minus(end + c.len_utf8())
        } else {
            SignAfter::Unsure
        };
    }
    let word = rest.strip_prefix([' ', '\u{a0}']).unwrap_or(rest);
    let credit = word
        .get(..2)
        .is_some_and(|w| w.eq_ignore_ascii_case("cr") || w.eq_ignore_ascii_case("dr"))
        && !word[2..].starts_with(char::is_alphanumeric);
    if credit {
        SignAfter::Unsure
    } else {
        SignAfter::None
    }
}

/// The parentheses hugging the number whose digits run from `start` to
/// `end` (`($20)`, `(20 USD)`, `(5%)`): where `(` is, where the text after
/// `)` starts, and whether a currency is inside them or right before.
fn parenthesised(content: &str, start: usize, end: usize) -> Option<(usize, usize, bool)> {
    let lead = content[..start].trim_end_matches(|c: char| c.is_whitespace());
    let bare = lead.trim_end_matches(CURRENCY);
    let mut money = bare.len() < lead.len();
    let bare = bare.trim_end_matches(char::is_whitespace);
    let code_start = bare
        .rfind(|c: char| !c.is_ascii_alphabetic())
        .map_or(0, |i| {
            i + bare[i..].chars().next().map_or(1, char::len_utf8)
        });
    let bare = if code_start < bare.len() && currency_code(&bare[code_start..]) {
        money = true;
        bare[..code_start].trim_end_matches(char::is_whitespace)
    } else {
        bare
    };
    let opened = bare.strip_suffix('(')?.len();
    money |= bare[..opened].ends_with(CURRENCY);
    let tail = content[end..].trim_start();
    let tail = match tail.strip_prefix(CURRENCY) {
        Some(after) => {
            money = true;
            after
        }
        None => {
            let word_end = tail
                .find(|c: char| !c.is_ascii_alphabetic())
                .unwrap_or(tail.len());
            let word = &tail[..word_end];
            if !word.is_empty() && (currency_code(word) || money_word(word)) {
                money = true;
                &tail[word_end..]
            } else {
                tail.strip_prefix('%').unwrap_or(tail)
            }
        }
    };
    let after = tail.trim_start().strip_prefix(')')?;
    Some((opened, content.len() - after.len(), money))
}

/// The marks a number is read with.
#[derive(Clone, Copy)]
struct Marks {
    /// The decimal mark is a comma ([`NumberStyle::COMMA`]).
    comma: bool,
    /// A currency without minor units stands beside the number: a mark
    /// before exactly three digits groups them (`Rp 31.500`).
    whole_currency: bool,
}

/// The thousands mark at `at` in the style of `marks`, as its bytes: `,`
/// in the point style; `.`, a space (plain, no-break, narrow no-break,
/// thin) or an apostrophe in the comma style; with a currency without
/// minor units, the decimal mark as well.
fn group_mark(bytes: &[u8], at: usize, marks: Marks) -> Option<&[u8]> {
    let rest = bytes.get(at..)?;
    let len = match rest.first()? {
        b',' if !marks.comma || marks.whole_currency => 1,
        b'.' if marks.comma || marks.whole_currency => 1,
        b' ' | b'\'' if marks.comma => 1,
        0xC2 if marks.comma && rest.get(1) == Some(&0xA0) => 2,
        0xE2 if marks.comma && matches!(rest.get(1..3), Some([0x80, 0xAF | 0x89 | 0x99])) => 3,
        _ => return None,
    };
    Some(&rest[..len])
}

/// Reads the number starting at `start`: digits with thousands marks (see
/// [`group_mark`]) or `_` separators, a fraction after the decimal mark
/// (`.`, or `,` in the comma style), an exponent. Returns it, where it
/// ends, and whether the text has another reading (`1,500` in the comma
/// style, `0,125` in the point style).
fn read_number(bytes: &[u8], start: usize, negative: bool, marks: Marks) -> (Number, usize, bool) {
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let mut int = String::new();
    let mut unsure = false;
    // The thousands mark used, once one is: a number groups with one.
    let mut grouped: Option<&[u8]> = None;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_digit() {
            int.push(b as char);
            i += 1;
            continue;
        }
        if b == b'_' && !int.is_empty() && digit(i + 1) {
            i += 1;
            continue;
        }
        let Some(mark) = group_mark(bytes, i, marks) else {
            break;
        };
        let after = i + mark.len();
        let three = (0..3).all(|k| digit(after + k)) && !digit(after + 3);
        if grouped.is_some_and(|used| used != mark) {
            // `1.049 500`, `Rp 1,250.000`: two thousands marks in one
            // number, a typo or two numbers.
            unsure |= three;
            break;
        }
        // The comma style's first group has one to three digits.
        let group =
            !int.is_empty() && three && (!marks.comma || grouped.is_some() || int.len() <= 3);
        if !group {
            break;
        }
        // `0,125`: a lone zero is no thousand, so the mark is decimal.
        if grouped.is_none() && int == "0" && !marks.whole_currency {
            unsure = true;
        }
        grouped = Some(mark);
        i = after;
    }
    let decimal = if marks.comma { b',' } else { b'.' };
    let mut fraction = String::new();
    if bytes.get(i) == Some(&decimal) && digit(i + 1) {
        i += 1;
        while digit(i) {
            fraction.push(bytes[i] as char);
            i += 1;
        }
        // `1,500` in the comma style: the decimal comma, or the thousands
        // comma of English; `0,125` can only be decimal.
        if marks.comma && grouped.is_none() && fraction.len() == 3 && int != "0" {
            unsure = true;
        }
    }
    let mut exp: i64 = 0;
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let sign = matches!(bytes.get(i + 1), Some(b'+' | b'-'));
        let first = i + 1 + usize::from(sign);
        if digit(first) {
            let minus = bytes[i + 1] == b'-';
            i = first;
            while digit(i) {
                exp = exp
                    .saturating_mul(10)
                    .saturating_add(i64::from(bytes[i] - b'0'));
                i += 1;
            }
            if minus {
                exp = -exp;
            }
        }
    }
    (Number::new(negative, &int, &fraction, exp), i, unsure)
}

/// Currencies written without minor units, by symbol or code: an amount
/// in them is whole, so `31.500` is thirty-one thousand five hundred.
const WHOLE_CURRENCY_SYMBOLS: &[char] = &['₫', '₩', '円', 'đ'];

/// Codes and abbreviations of currencies without minor units, lowercase.
fn whole_currency_code(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "rp" | "idr" | "vnd" | "krw" | "jpy" | "clp" | "isk" | "huf" | "ft" | "ugx" | "pyg"
    )
}

/// True when a currency without minor units is written right before the
/// digits that follow `before`: `Rp 31.500`, `₩12.000`, `IDR31.500`.
fn whole_currency_before(before: &str) -> bool {
    let rest = before.trim_end_matches([' ', '\u{a0}']);
    let rest = rest.trim_end_matches(MINUS).trim_end_matches(['+', ' ']);
    if rest.ends_with(WHOLE_CURRENCY_SYMBOLS) {
        return true;
    }
    let start = rest
        .rfind(|c: char| !c.is_ascii_alphabetic())
        .map_or(0, |i| {
            i + rest[i..].chars().next().map_or(1, char::len_utf8)
        });
    whole_currency_code(&rest[start..])
}

/// True when a currency without minor units follows the digits, `after`
/// being the text after them: `12.500 ₫`, `31.500 IDR`, `1.500円`.
fn whole_currency_after(after: &str) -> bool {
    let rest = after.trim_start_matches([' ', '\u{a0}']);
    if rest.starts_with(WHOLE_CURRENCY_SYMBOLS) {
        return true;
    }
    let end = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    whole_currency_code(&rest[..end])
}

/// How a suffix after the digits reads.
#[derive(Clone, Copy)]
enum Suffix {
    /// Times ten to this power.
    Power(i64),
    /// Times twelve.
    Dozen,
    /// A scale with money, else a unit: lowercase `m` (metres, minutes).
    PowerWithMoney(i64),
    /// A scale with money, else unknown: `2b` (bits or billions), `5 K`.
    PowerOrUnknown(i64),
}

/// A suffix glued to the digits, matched with its case: `3k`, `1.5M`,
/// `$5m`, `2bn`.
fn glued(word: &str) -> Option<Suffix> {
    Some(match word {
        "k" | "K" => Suffix::Power(3),
        "M" | "MM" | "mn" | "Mn" | "mln" => Suffix::Power(6),
        "m" => Suffix::PowerWithMoney(6),
        "B" | "bn" | "Bn" | "BN" | "bln" => Suffix::Power(9),
        "b" => Suffix::PowerOrUnknown(9),
        "tn" | "Tn" => Suffix::Power(12),
        "T" => Suffix::PowerOrUnknown(12),
        _ => return spelled(&word.to_lowercase()),
    })
}

/// A scale written as a word after a space, any case: `2.5 million`,
/// `2 dozen`, `5 bn`. A single letter after a space is a unit more often
/// than a scale (`300 K`, `5 M`), so it counts only with money.
fn spaced(word: &str) -> Option<Suffix> {
    match word {
        "k" | "K" => Some(Suffix::PowerOrUnknown(3)),
        "M" => Some(Suffix::PowerOrUnknown(6)),
        "m" => Some(Suffix::PowerWithMoney(6)),
        "B" | "b" => Some(Suffix::PowerOrUnknown(9)),
        "T" => Some(Suffix::PowerOrUnknown(12)),
        _ => spelled(&word.to_lowercase()),
    }
}

/// Scale words, lowercase.
fn spelled(word: &str) -> Option<Suffix> {
    Some(match word {
        "hundred" | "hundreds" => Suffix::Power(2),
        "thousand" | "thousands" | "grand" => Suffix::Power(3),
        "lakh" | "lakhs" => Suffix::Power(5),
        "million" | "millions" | "mn" | "mln" | "mio" => Suffix::Power(6),
        "crore" | "crores" => Suffix::Power(7),
        "billion" | "billions" | "bn" | "bln" => Suffix::Power(9),
        "trillion" | "trillions" | "tn" => Suffix::Power(12),
        "dozen" | "dozens" => Suffix::Dozen,
        _ => return None,
    })
}

/// Words after a number that say it is money: `5m dollars`.
fn money_word(word: &str) -> bool {
    matches!(
        word.to_lowercase().as_str(),
        "dollar"
            | "dollars"
            | "usd"
            | "euro"
            | "euros"
            | "eur"
            | "pound"
            | "pounds"
            | "gbp"
            | "yen"
            | "jpy"
            | "yuan"
            | "rmb"
            | "cny"
            | "rupees"
            | "inr"
    ) || word.starts_with(['元', '美'])
}

/// Chinese scale characters glued to the digits: `3万`, `1.5亿`, `2千万`.
/// `千` before a unit of measure is the prefix kilo- (`3千米` is 3 km).
fn chinese_scale(c: char, next: Option<char>) -> Option<Option<i64>> {
    match c {
        '百' => Some(Some(2)),
        '千' if next.is_some_and(|n| "米克瓦赫卡焦帕伏".contains(n)) => None,
        '千' => Some(Some(3)),
        '万' | '萬' => Some(Some(4)),
        '亿' | '億' => Some(Some(8)),
        // 10^6 on the mainland, 10^12 in Taiwan and Japan.
        '兆' => Some(None),
        _ => None,
    }
}

/// A character glued to the digits that changes the value in a way not
/// read here: `1½`, `10²`.
/// So is any digit of another script (`1５`, a full-width five).
fn glued_figure(c: char) -> bool {
    c.is_numeric()
        || matches!(c, '¼' | '½' | '¾' | '²' | '³' | '¹' | '\u{2070}'..='\u{2079}' | '\u{2150}'..='\u{215F}')
}

/// The end of the ASCII word starting at `at`: scales are ASCII, and a
/// Chinese unit may follow one directly (`5k元`, `2.5 million人`).
fn word_end(content: &str, at: usize) -> usize {
    content[at..]
        .find(|c: char| !c.is_ascii_alphabetic())
        .map_or(content.len(), |n| at + n)
}

/// Reads the scale after the digits ending at `at` into `number`; returns
/// where the number, scale included, ends.
fn suffix(content: &str, at: usize, money_before: bool, number: &mut Number) -> usize {
    let mut pending: Vec<Suffix> = Vec::new();
    let mut i = at;
    let mut chars = content[i..].chars();
    match chars.next() {
        Some(c) if glued_figure(c) || look_alike_letter(c) => {
            number.ambiguous = true;
            return i + c.len_utf8();
        }
        Some(c) if chinese_scale(c, chars.clone().next()).is_some() => {
            // `2千万`: each character multiplies.
            let mut chars = content[i..].chars().peekable();
            while let Some(c) = chars.next() {
                match chinese_scale(c, chars.peek().copied()) {
                    Some(Some(power)) => pending.push(Suffix::Power(power)),
                    Some(None) => number.ambiguous = true,
                    None => break,
                }
                i += c.len_utf8();
            }
        }
        Some(c) if c.is_alphabetic() => {
            let end = word_end(content, i);
            if let Some(s) = glued(&content[i..end]) {
                pending.push(s);
                i = end;
            } else {
                // A unit (`5kg`, `3km`, `2nd`): the digits are the value;
                // unless the word is no unit (`1O`) or digits follow it
                // (`1O5`, `5x5`, `0x1F`): then a letter stands among digits.
                let word = &content[i..end];
                if !glued_unit(word)
                    || (!word.is_empty()
                        && content[end..].starts_with(|c: char| c.is_ascii_digit()))
                {
                    number.ambiguous = true;
                }
                return i;
            }
        }
        _ => {}
    }
    // Scale words after a space: `2.5 million`, `1 hundred thousand`.
    loop {
        let gap = content[i..]
            .find(|c: char| c != ' ' && c != '\u{a0}')
            .unwrap_or(content.len() - i);
        if gap == 0 {
            break;
        }
        let start = i + gap;
        let end = word_end(content, start);
        // `5 T-shirts`, `3 M&Ms`: a letter starting a compound is no scale.
        let compound = content[end..].starts_with(['-', '\'', '’', '&']);
        match spaced(&content[start..end]) {
            Some(s) if end > start && !compound => {
                pending.push(s);
                i = end;
            }
            _ => break,
        }
    }
    let money = money_before || {
        let start = content[i..]
            .find(|c: char| c != ' ' && c != '\u{a0}')
            .map_or(content.len(), |n| i + n);
        let end = content[start..]
            .find(|c: char| !c.is_alphanumeric())
            .map_or(content.len(), |n| start + n);
        money_word(&content[start..end])
    };
    for s in pending {
        match s {
            Suffix::Power(p) => number.scale(p),
            Suffix::Dozen => number.times_twelve(),
            Suffix::PowerWithMoney(p) if money => number.scale(p),
            Suffix::PowerWithMoney(_) => {}
            Suffix::PowerOrUnknown(p) if money => number.scale(p),
            Suffix::PowerOrUnknown(_) => number.ambiguous = true,
        }
    }
    i
}

/// The single number of `content`, or why there is none.
fn single_number(
    content: &str,
    style: NumberStyle,
    expected: impl Fn() -> Expected,
) -> Result<Number, ValueError> {
    let content = content.trim();
    if content.is_empty() {
        return Err(ValueError::Empty);
    }
    let mut found = numbers(content, style);
    if found.len() == 1 && !found[0].ambiguous {
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
        /// A single whole number: `6`, `6 weeks`, `$1,200`, `-3`, `6.0`,
        /// `1.5M` (1500000), `2 dozen` (24).
        impl SectionValue for $t {
            const KIND: ValueKind = ValueKind::Integer;

            fn parse_section(content: &str) -> Result<Self, ValueError> {
                Self::parse_section_with(content, &Phrases::ENGLISH)
            }

            /// As the table's [`NumberStyle`] writes numbers.
            fn parse_section_with(content: &str, phrases: &Phrases) -> Result<Self, ValueError> {
                let number = single_number(content, phrases.number_style, || Expected::WholeNumber)?;
                let out_of_range = || {
                    ValueError::invalid(
                        Expected::WholeNumberBetween {
                            min: <$t>::MIN.to_string(),
                            max: <$t>::MAX.to_string(),
                        },
                        content,
                    )
                };
                match number.whole() {
                    Ok(Some(whole)) => whole.parse::<$t>().map_err(|_| out_of_range()),
                    // `1.5 weeks`, `1.2345k`
                    Ok(None) => Err(ValueError::invalid(Expected::WholeNumber, content)),
                    Err(()) => Err(out_of_range()),
                }
            }
        }
    )*};
}

integer!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

macro_rules! float {
    ($($t:ty),*) => {$(
        /// A single number: `2.5`, `$1,200.50`, `-0.3 °C`, `15%`, `$3.5bn`.
        impl SectionValue for $t {
            const KIND: ValueKind = ValueKind::Float;

            fn parse_section(content: &str) -> Result<Self, ValueError> {
                Self::parse_section_with(content, &Phrases::ENGLISH)
            }

            /// As the table's [`NumberStyle`] writes numbers.
            fn parse_section_with(content: &str, phrases: &Phrases) -> Result<Self, ValueError> {
                let number = single_number(content, phrases.number_style, || Expected::Number)?;
                match number.scientific().parse::<$t>() {
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
    fn the_scale_of_a_rating_is_not_a_second_number() {
        assert_eq!(u8::parse_section("4 out of 5"), Ok(4));
        assert_eq!(u8::parse_section("3 stars out of 5 **High**"), Ok(3));
        assert_eq!(u8::parse_section("2 Out Of 10"), Ok(2));
        assert_eq!(f64::parse_section("0.8 out of 1"), Ok(0.8));
        // Only the scale after a number counts as one.
        assert_eq!(
            u8::parse_section("3 of the 5 stars"),
            Err(ValueError::invalid(
                Expected::WholeNumber,
                "3 of the 5 stars"
            ))
        );
        assert_eq!(
            u8::parse_section("4.5 out of 5"),
            Err(ValueError::invalid(Expected::WholeNumber, "4.5 out of 5"))
        );
        assert_eq!(
            u8::parse_section("3 stars, 4 out of 5"),
            Err(ValueError::invalid(
                Expected::WholeNumber,
                "3 stars, 4 out of 5"
            ))
        );
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
        assert_eq!(numbers("6 and 6.0 and 06", NumberStyle::POINT).len(), 1);
        assert_eq!(numbers("-0 and 0", NumberStyle::POINT).len(), 1);
        assert_eq!(numbers("1, 2, 3", NumberStyle::POINT).len(), 2);
    }

    fn invalid(expected: Expected, found: &str) -> Result<u64, ValueError> {
        Err(ValueError::invalid(expected, found))
    }

    #[test]
    fn the_sign_is_kept_wherever_the_currency_sits() {
        assert_eq!(i32::parse_section("-$20"), Ok(-20));
        assert_eq!(i32::parse_section("$-20"), Ok(-20));
        assert_eq!(i32::parse_section("−$20"), Ok(-20));
        assert_eq!(i32::parse_section("−€5 refund"), Ok(-5));
        assert_eq!(i32::parse_section("－¥300"), Ok(-300));
        assert_eq!(i32::parse_section("Balance: –£12"), Ok(-12));
        assert_eq!(i32::parse_section("+$20"), Ok(20));
        assert_eq!(i32::parse_section("US$-7"), Ok(-7));
        assert_eq!(f64::parse_section("-$1,200.50"), Ok(-1200.5));
        assert_eq!(i32::parse_section("minus 5 °C"), Ok(-5));
        assert_eq!(i32::parse_section("Negative $40"), Ok(-40));
        assert_eq!(i32::parse_section("负5"), Ok(-5));
        assert_eq!(i32::parse_section("零下5度"), Ok(-5));
        // A hyphen after a word or a number is no sign.
        assert_eq!(i32::parse_section("Item-$5"), Ok(5));
        assert_eq!(i32::parse_section("Dominus 5"), Ok(5));
        let between = Expected::WholeNumberBetween {
            min: "0".to_owned(),
            max: "4294967295".to_owned(),
        };
        assert_eq!(
            u32::parse_section("-$20"),
            Err(ValueError::invalid(between, "-$20"))
        );
    }

    #[test]
    fn a_negative_in_parentheses_is_negative_or_feedback() {
        // Accounts write a negative in parentheses.
        assert_eq!(i64::parse_section("($20)"), Ok(-20));
        assert_eq!(f64::parse_section("**(€1,200.50)**"), Ok(-1200.5));
        assert_eq!(i64::parse_section("(20 USD)"), Ok(-20));
        assert_eq!(i64::parse_section("(USD 20)"), Ok(-20));
        assert_eq!(i64::parse_section("$(1.5k)"), Ok(-1500));
        // A sign inside is read as written, never turned twice.
        assert_eq!(i64::parse_section("(-$20)"), Ok(-20));
        assert_eq!(i64::parse_section("(+$20)"), Ok(20));
        // The same number said again in parentheses is that number.
        assert_eq!(u32::parse_section("6 weeks (6)"), Ok(6));
        assert_eq!(i64::parse_section("$60 ($60)"), Ok(60));
        // With words around, or without money, a negative or an aside: the
        // text does not say which.
        for text in [
            "Net: ($20)",
            "about sixty dollars ($60)",
            "(20)",
            "(5%)",
            "Loss (20)",
        ] {
            assert_eq!(
                i64::parse_section(text),
                Err(ValueError::invalid(Expected::WholeNumber, text)),
                "{text}"
            );
        }
        // Parentheses that hold more than the number are an aside.
        assert_eq!(u32::parse_section("6 (six) weeks"), Ok(6));
        assert_eq!(u32::parse_section("(about 6 weeks)"), Ok(6));
        let between = Expected::WholeNumberBetween {
            min: "0".to_owned(),
            max: "4294967295".to_owned(),
        };
        assert_eq!(
            u32::parse_section("($20)"),
            Err(ValueError::invalid(between, "($20)"))
        );
    }

    #[test]
    fn every_other_sign_of_a_negative_is_kept_or_feedback() {
        // Minus signs of other forms, before the digits.
        assert_eq!(i32::parse_section("‐20"), Ok(-20));
        assert_eq!(i32::parse_section("﹣20"), Ok(-20));
        assert_eq!(i32::parse_section("➖$20"), Ok(-20));
        assert_eq!(i32::parse_section("‒5 °C"), Ok(-5));
        // A minus sign that is only ever one, after the digits.
        assert_eq!(i32::parse_section("20−"), Ok(-20));
        assert_eq!(f64::parse_section("$1,200.50－"), Ok(-1200.5));
        // A dash after the digits is a minus (as ledgers print it) or a
        // dash; CR and DR are negative in some accounts and positive in
        // others; a triangle marks a negative in Japanese accounts and a
        // rise on a ticker.
        for text in [
            "20-",
            "$1,200-",
            "20–",
            "(20-)",
            "-20−",
            "20 CR",
            "$20 Dr.",
            "▲20",
            "△ 1,000",
            "▼$5",
        ] {
            assert_eq!(
                i32::parse_section(text),
                Err(ValueError::invalid(Expected::WholeNumber, text)),
                "{text}"
            );
        }
        // A hyphen joining words or numbers, or a word starting with the
        // letters, is no sign.
        assert_eq!(u32::parse_section("a 20-year-old bridge"), Ok(20));
        assert_eq!(i64::parse_section("COVID-19-related"), Ok(19));
        assert_eq!(u32::parse_section("3 dresses"), Ok(3));
        assert_eq!(u32::parse_section("5 credits"), Ok(5));
        assert_eq!(u32::parse_section("Week‐3"), Ok(3));
    }

    #[test]
    fn scales_multiply_exactly() {
        assert_eq!(u64::parse_section("$1.5k"), Ok(1_500));
        assert_eq!(u64::parse_section("3k"), Ok(3_000));
        assert_eq!(u64::parse_section("12K users"), Ok(12_000));
        assert_eq!(u64::parse_section("$3.5bn"), Ok(3_500_000_000));
        assert_eq!(u64::parse_section("2.5 million"), Ok(2_500_000));
        assert_eq!(u64::parse_section("2 dozen"), Ok(24));
        assert_eq!(u64::parse_section("1.25 dozen eggs"), Ok(15));
        assert_eq!(u32::parse_section("1.5M"), Ok(1_500_000));
        assert_eq!(u64::parse_section("7B parameters"), Ok(7_000_000_000));
        assert_eq!(u64::parse_section("2 Billion"), Ok(2_000_000_000));
        assert_eq!(u64::parse_section("1 hundred thousand"), Ok(100_000));
        assert_eq!(u64::parse_section("5 grand"), Ok(5_000));
        assert_eq!(u64::parse_section("3 lakh"), Ok(300_000));
        assert_eq!(u64::parse_section("1.2 crore"), Ok(12_000_000));
        assert_eq!(u64::parse_section("$2tn"), Ok(2_000_000_000_000));
        assert_eq!(u64::parse_section("3万"), Ok(30_000));
        assert_eq!(u64::parse_section("1.5亿人"), Ok(150_000_000));
        assert_eq!(u64::parse_section("2千万元"), Ok(20_000_000));
        assert_eq!(u64::parse_section("3千人"), Ok(3_000));
        assert_eq!(u64::parse_section("5k元"), Ok(5_000));
        assert_eq!(u64::parse_section("3K人"), Ok(3_000));
        assert_eq!(u64::parse_section("2.5 million人"), Ok(2_500_000));
        assert_eq!(u64::parse_section("5m元"), Ok(5_000_000));
        assert_eq!(i64::parse_section("-$1.5k"), Ok(-1_500));
        assert_eq!(i64::parse_section("−2.5 million"), Ok(-2_500_000));
        assert_eq!(u64::parse_section("5k (5,000)"), Ok(5_000));
        assert_eq!(f64::parse_section("$3.5bn"), Ok(3.5e9));
        assert_eq!(f64::parse_section("1.2345k"), Ok(1234.5));
        assert_eq!(f64::parse_section("0.1 dozen"), Ok(1.2));
        assert_eq!(f32::parse_section("2.5 million"), Ok(2.5e6));
    }

    #[test]
    fn units_that_look_like_scales_are_units() {
        assert_eq!(u32::parse_section("5kg"), Ok(5));
        assert_eq!(u32::parse_section("3 km"), Ok(3));
        assert_eq!(u32::parse_section("3千米"), Ok(3));
        assert_eq!(u32::parse_section("20MB"), Ok(20));
        assert_eq!(u32::parse_section("5 T-shirts"), Ok(5));
        // Lowercase m is metres or minutes, unless money is meant.
        assert_eq!(u32::parse_section("15m"), Ok(15));
        assert_eq!(u32::parse_section("400 m"), Ok(400));
        assert_eq!(u64::parse_section("$5m"), Ok(5_000_000));
        assert_eq!(u64::parse_section("€2.5 m"), Ok(2_500_000));
        assert_eq!(u64::parse_section("5m dollars"), Ok(5_000_000));
        assert_eq!(u64::parse_section("$300 K"), Ok(300_000));
    }

    #[test]
    fn a_scale_or_unit_that_cannot_be_told_apart_is_feedback() {
        for text in ["300 K", "5 M", "2b", "4T", "5兆", "1½ hours", "10²"] {
            assert_eq!(
                u64::parse_section(text),
                invalid(Expected::WholeNumber, text),
                "{text}"
            );
            assert_eq!(
                f64::parse_section(text),
                Err(ValueError::invalid(Expected::Number, text)),
                "{text}"
            );
        }
    }

    #[test]
    fn a_scaled_number_that_is_not_whole_or_too_big_is_feedback() {
        assert_eq!(
            u64::parse_section("1.2345k"),
            invalid(Expected::WholeNumber, "1.2345k")
        );
        assert_eq!(
            u32::parse_section("0.1 dozen"),
            Err(ValueError::invalid(Expected::WholeNumber, "0.1 dozen"))
        );
        let between = |min: &str, max: &str| Expected::WholeNumberBetween {
            min: min.to_owned(),
            max: max.to_owned(),
        };
        assert_eq!(
            u32::parse_section("5 billion"),
            Err(ValueError::invalid(between("0", "4294967295"), "5 billion"))
        );
        assert_eq!(
            i8::parse_section("-1k"),
            Err(ValueError::invalid(between("-128", "127"), "-1k"))
        );
        assert_eq!(
            u128::parse_section("1e40"),
            Err(ValueError::invalid(
                between("0", "340282366920938463463374607431768211455"),
                "1e40"
            ))
        );
        assert_eq!(
            u128::parse_section("1e38"),
            Ok(100_000_000_000_000_000_000_000_000_000_000_000_000)
        );
        // A huge exponent is never written out.
        assert_eq!(
            u64::parse_section("1e999999999999999999999"),
            Err(ValueError::invalid(
                between("0", "18446744073709551615"),
                "1e999999999999999999999"
            ))
        );
        assert_eq!(
            f64::parse_section("1e999999999999999999999"),
            Err(ValueError::invalid(
                Expected::Number,
                "1e999999999999999999999"
            ))
        );
        assert_eq!(f64::parse_section("1e-999999999999999999999"), Ok(0.0));
    }

    #[test]
    fn a_letter_or_stray_digit_glued_to_the_digits_is_feedback() {
        // A letter O for a zero, l for a one: read as 1, 7.7 and 0 before.
        for text in [
            "1O",
            "10O",
            "$7.7O",
            "l0",
            "1o",
            "1OO",
            "1OOO",
            "O5",
            "1O5",
            "I2",
            "v2",
            "COVID19",
            "5e",
            "2q",
            "5x5",
            "0x1F",
            "1\u{FF15}",
            "\u{FF15}1",
            // Letters that look like digits, of other forms and scripts:
            // read as 1, 5 and 0 before (a letter of another script was
            // taken for a unit, as in 5天).
            "1\u{FF2F}",
            "5\u{FF4B}",
            "\u{FF4C}0",
            "1\u{041E}",
            "1\u{039F}0",
        ] {
            assert_eq!(
                u32::parse_section(text),
                Err(ValueError::invalid(Expected::WholeNumber, text)),
                "{text}"
            );
            assert_eq!(
                f64::parse_section(text),
                Err(ValueError::invalid(Expected::Number, text)),
                "{text}"
            );
        }
        // Known units, ordinals and currency codes glued to the digits.
        for (text, want) in [
            ("5kg", 5),
            ("3h", 3),
            ("2nd", 2),
            ("21st", 21),
            ("3x", 3),
            ("20MB", 20),
            ("6weeks", 6),
            ("5pm", 5),
            ("1080p", 1080),
            ("USD5", 5),
            ("Rs500", 500),
            ("x2", 2),
            ("5天", 5),
            ("约5天", 5),
        ] {
            assert_eq!(u32::parse_section(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn two_numbers_joined_by_one_character_are_feedback() {
        // Each read as 5 before: the two numbers were equal, so counted once.
        for text in ["5/5", "5*5", "5+5", "5^5", "5:5", "5\u{066B}5", "5(5)"] {
            assert_eq!(
                f64::parse_section(text),
                Err(ValueError::invalid(Expected::Number, text)),
                "{text}"
            );
        }
        // The same number said twice, apart, is still that number.
        assert_eq!(u32::parse_section("5 (5)"), Ok(5));
        assert_eq!(u32::parse_section("6 weeks, 6 in all"), Ok(6));
    }

    #[test]
    fn a_second_decimal_point_or_a_decimal_comma_is_feedback() {
        // `1.0.1` read as 1 and `5,5` as 5 before: the two parts were equal.
        for text in ["1.0.1", "5,5", "2.5.2024", "1,000,0"] {
            assert_eq!(
                f64::parse_section(text),
                Err(ValueError::invalid(Expected::Number, text)),
                "{text}"
            );
        }
        assert_eq!(u32::parse_section("1,200."), Ok(1200));
        assert_eq!(u32::parse_section("It is 5. Or so."), Ok(5));
    }

    #[test]
    fn two_signs_are_feedback() {
        // `-+1` read as 1 and `--0001` as -1 before: a minus dropped or
        // doubled.
        for text in [
            "-+1", "--0001", "+-5", "−-3", "-$-20", "+$-20", "-+$20", "minus -5", "$--20",
        ] {
            assert_eq!(
                i64::parse_section(text),
                Err(ValueError::invalid(Expected::WholeNumber, text)),
                "{text}"
            );
            assert_eq!(
                f64::parse_section(text),
                Err(ValueError::invalid(Expected::Number, text)),
                "{text}"
            );
        }
        // One sign, wherever the currency stands, is read.
        assert_eq!(i64::parse_section("-$20"), Ok(-20));
        assert_eq!(i64::parse_section("$-20"), Ok(-20));
        assert_eq!(
            i64::parse_section("- -"),
            Err(ValueError::invalid(Expected::WholeNumber, "- -"))
        );
        assert_eq!(i64::parse_section("Range -- about -5"), Ok(-5));
    }

    #[test]
    fn digits_of_a_name_beside_a_number_in_words_are_feedback() {
        // Read as 1, 1, 19 and 4 before.
        for text in [
            "OAO-1's battery failed after three days",
            "twenty 1",
            "Twenty-1",
            "COVID-19 lasted three years",
            "GPT-4 needed two tries",
        ] {
            assert_eq!(
                u32::parse_section(text),
                Err(ValueError::invalid(Expected::WholeNumber, text)),
                "{text}"
            );
        }
        // The digits of a name with no other number, and a number standing
        // alone beside words, are read.
        assert_eq!(u32::parse_section("Week-3"), Ok(3));
        assert_eq!(u32::parse_section("COVID-19"), Ok(19));
        assert_eq!(u32::parse_section("6 (six) weeks"), Ok(6));
        assert_eq!(u32::parse_section("6 weeks, one of them at sea"), Ok(6));
        assert_eq!(u32::parse_section("three rooms, 4 nights"), Ok(4));
        assert_eq!(u32::parse_section("1 hundred"), Ok(100));
    }

    static COMMA: Phrases = Phrases {
        number_style: NumberStyle::COMMA,
        ..Phrases::ENGLISH
    };

    #[test]
    fn the_comma_style_reads_numbers_as_the_user_writes_them() {
        // Each refused before: twr read only `1,049.95`.
        for (text, want) in [
            ("49,96 €", 49.96),
            ("1.049,95", 1049.95),
            ("1 049,95 zł", 1049.95),
            ("1\u{a0}049,95", 1049.95),
            ("1\u{202f}049,95 €", 1049.95),
            ("CHF 1'049,95", 1049.95),
            ("CHF 1’049,95", 1049.95),
            ("1.144.000", 1_144_000.0),
            ("1.500 €", 1500.0),
            ("-1.049,95", -1049.95),
            ("0,125", 0.125),
            ("3,4", 3.4),
            ("2,5 Mio.", 2_500_000.0),
            ("1,5 Tage", 1.5),
            ("12 €", 12.0),
        ] {
            assert_eq!(f64::parse_section_with(text, &COMMA), Ok(want), "{text}");
        }
        assert_eq!(u32::parse_section_with("1.144.000", &COMMA), Ok(1_144_000));
        assert_eq!(u64::parse_section_with("2,5k", &COMMA), Ok(2_500));
        assert_eq!(
            Vec::<f64>::parse_section_with("- 1,5\n- 2.000,25", &COMMA),
            Ok(vec![1.5, 2000.25])
        );
    }

    #[test]
    fn the_comma_style_refuses_two_readings_and_the_point_style() {
        // `1,500`: 1.5 by the style or 1500 as English writes it; `1.5`,
        // `1,049.95` and `0.125` have no reading in the comma style; two
        // thousands marks; a first group of more than three digits.
        for text in [
            "1,500",
            "12,345 €",
            "1.5",
            "1,049.95",
            "0.125",
            "1.049 500",
            "12345.678",
            "1.0.1",
            "1,000,0",
        ] {
            assert_eq!(
                f64::parse_section_with(text, &COMMA),
                Err(ValueError::invalid(Expected::Number, text)),
                "{text}"
            );
        }
        // Items of a list are lists of numbers, not one grouped number.
        assert_eq!(
            f64::parse_section_with("1, 2, 3", &COMMA),
            Err(ValueError::invalid(Expected::Number, "1, 2, 3"))
        );
    }

    #[test]
    fn the_point_style_reads_as_before() {
        for (text, want) in [("1,049.95", 1049.95), ("1.5", 1.5), ("$1,200.50", 1200.5)] {
            assert_eq!(
                f64::parse_section_with(text, &Phrases::ENGLISH),
                Ok(want),
                "{text}"
            );
            assert_eq!(
                f64::parse_section_with(text, &Phrases::CHINESE),
                Ok(want),
                "{text}"
            );
        }
        // `0,125` was read as 125: after a lone zero the comma is decimal.
        for text in ["0,125", "1.049,95", "49,96 €"] {
            assert_eq!(
                f64::parse_section(text),
                Err(ValueError::invalid(Expected::Number, text)),
                "{text}"
            );
        }
    }

    #[test]
    fn a_currency_without_minor_units_is_never_read_a_thousand_times_off() {
        // `Rp 31.500` and `12.500 ₫` were read as 31.5 and 12.5.
        for phrases in [&Phrases::ENGLISH, &COMMA] {
            for (text, want) in [
                ("Rp 31.500", 31_500),
                ("Rp31.500", 31_500),
                ("12.500 ₫", 12_500),
                ("12.500đ", 12_500),
                ("IDR 1.250.000", 1_250_000),
                ("31.500 IDR", 31_500),
                ("₩12.000", 12_000),
                ("1.500円", 1_500),
                ("12,500 VND", 12_500),
                ("Rp 1,250,000", 1_250_000),
            ] {
                assert_eq!(u64::parse_section_with(text, phrases), Ok(want), "{text}");
            }
            // Two thousands marks in one amount: a typo or two numbers.
            assert_eq!(
                u64::parse_section_with("Rp 1,250.000", phrases),
                Err(ValueError::invalid(Expected::WholeNumber, "Rp 1,250.000"))
            );
        }
        // Fewer than three digits after the mark: its decimal, as written.
        assert_eq!(f64::parse_section("Rp 31.50"), Ok(31.5));
        assert_eq!(f64::parse_section_with("Rp 31,5", &COMMA), Ok(31.5));
    }

    #[test]
    fn ranges_of_scaled_numbers_are_two_numbers() {
        for text in ["5k-10k", "$5k–$10k", "1.5M to 2M", "3万-5万"] {
            assert_eq!(
                u64::parse_section(text),
                invalid(Expected::WholeNumber, text),
                "{text}"
            );
        }
    }
}
