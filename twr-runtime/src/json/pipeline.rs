//! The extraction pipeline: each layer runs only when every earlier one failed.

use std::borrow::Cow;
use std::ops::Range;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::error::Category;

use super::brackets::{scan, Candidates};
use super::duplicate_keys::has_duplicate_key;
use super::error::{locate, shape_error, ShapeError};
use super::fence::{fences, Fence};
use super::repair::{
    colon_then_container, comma_and_container, continues_value, only_closers_after, repair,
    repair_bare_tuple, repair_tuple, Repaired,
};
use super::report::{Extracted, Layer, Repair, Report};
use super::stringified::{looks_stringified, string_holding_json, unescape_marking, Unescaped};
use super::think_blocks::strip_think;

/// At most this many repair attempts per reply: each costs up to the
/// length of the text, so a bound keeps hostile input linear.
const MAX_REPAIRS: usize = 4;

/// Openers never closed that are worth a repair: the outermost few. Each
/// encloses all that follows it, so the rest are ever deeper inside.
const MAX_UNCLOSED: usize = 2;

/// Why nothing could be extracted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// JSON was found but does not fit the target type.
    Shape(ShapeError),
    /// JSON-like text was found but could not be read or repaired; the
    /// message says where and why.
    Syntax(String),
    /// Nothing in the reply looks like JSON.
    NoJson,
}

impl Failure {
    /// The field path (empty for the root) and the message for the model.
    pub(crate) fn into_parts(self) -> (String, String) {
        match self {
            Failure::Shape(e) => (e.path, e.message),
            Failure::Syntax(message) => (String::new(), message),
            Failure::NoJson => (
                String::new(),
                "there is no JSON in it; write the value as JSON, such as an object in { } or an array in [ ]"
                    .to_owned(),
            ),
        }
    }
}

enum Miss {
    Shape(ShapeError),
    Syntax(serde_json::Error),
}

fn attempt<T: DeserializeOwned>(text: &str) -> Result<T, Miss> {
    serde_json::from_str::<T>(text).map_err(|e| match e.classify() {
        Category::Data => Miss::Shape(shape_error::<T>(text, &e)),
        _ => Miss::Syntax(e),
    })
}

/// True when `text` is one complete JSON value (whatever its shape).
fn is_json(text: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(text).is_ok()
}

/// The most useful failure seen so far.
#[derive(Default)]
struct Misses {
    shape: Option<ShapeError>,
    /// (how far the attempt got, message)
    syntax: Option<(usize, String)>,
}

impl Misses {
    /// Keeps a shape error found inside the value over a root mismatch, and
    /// the later one of two alike: models put their final answer last.
    fn shape(&mut self, e: ShapeError) {
        if self
            .shape
            .as_ref()
            .is_none_or(|s| e.is_inside() || !s.is_inside())
        {
            self.shape = Some(e);
        }
    }

    /// Keeps the syntax error of the attempt that got furthest.
    fn syntax(&mut self, progress: usize, message: impl FnOnce() -> String) {
        if self.syntax.as_ref().is_none_or(|(p, _)| progress > *p) {
            self.syntax = Some((progress, message()));
        }
    }

    /// The value read from `start` closed at `end`, but more of it follows.
    /// `progress` is how far a repair got; a span the scan found, which a
    /// repair then reads on its own terms, counts for nothing.
    fn continued(&mut self, text: &str, progress: usize, end: usize) {
        self.syntax(progress, || {
            let (line, column, excerpt) = locate(text, end - 1);
            format!(
                "the JSON breaks at line {line}, column {column} (near `{excerpt}`): the value is \
                 closed here, but more of it follows; remove the extra closing bracket or quote, or close \
                 each container with its own bracket"
            )
        });
    }

    fn into_failure(self) -> Failure {
        match (self.shape, self.syntax) {
            (Some(shape), _) => Failure::Shape(shape),
            (None, Some((_, message))) => Failure::Syntax(message),
            (None, None) => Failure::NoJson,
        }
    }
}

fn found<T>(value: T, layer: Layer) -> Result<Extracted<T>, Failure> {
    Ok(Extracted {
        value,
        report: Report::new(layer, Vec::new()),
    })
}

/// Can a bare JSON value (not an object or array) start with `b`?
fn starts_scalar(rest: &str) -> bool {
    let bytes = rest.as_bytes();
    match bytes.first() {
        Some(b'"' | b'\'' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' | b'T' | b'F' | b'N') => true,
        // `+1`, `.25`
        Some(b'+' | b'.') => bytes.get(1).is_some_and(u8::is_ascii_digit),
        // JavaScript's `undefined`, a literal the repair reads as null.
        Some(b'u') => {
            rest.starts_with("undefined")
                && !bytes
                    .get("undefined".len())
                    .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
        }
        _ => rest.starts_with(['\u{201C}', '\u{201D}', '\u{2018}', '\u{2019}']),
    }
}

/// True when `at` lies strictly inside one of the balanced spans (sorted,
/// never overlapping).
fn inside_balanced(balanced: &[(usize, usize)], at: usize) -> bool {
    let i = balanced.partition_point(|&(start, _)| start < at);
    i > 0 && at < balanced[i - 1].1
}

/// Counts unescaped double quotes from a start up to ever later places, so
/// that every fence of a reply costs only the text since the one before.
#[derive(Default)]
struct QuoteParity {
    /// Where the count has reached.
    at: usize,
    odd: bool,
}

impl QuoteParity {
    /// True when an odd number of unescaped `"` stand in `from..to`.
    fn odd_before(&mut self, bytes: &[u8], from: usize, to: usize) -> bool {
        let mut i = self.at.max(from);
        while i < to {
            match bytes[i] {
                b'\\' => i += 2,
                b'"' => {
                    self.odd = !self.odd;
                    i += 1;
                }
                _ => i += 1,
            }
        }
        self.at = self.at.max(i);
        self.odd
    }
}

/// True when the text after `end` holds an odd number of unescaped double
/// quotes and ends with a closing bracket: after the reply's first value, a
/// quote with no pair and structure after it say a stray quote moved where
/// the value's strings end, and the value is a piece. Asked for the first
/// value only, so the pass over the rest is made once per layer.
fn unpaired_quote_then_closer(bytes: &[u8], end: usize) -> bool {
    let last = bytes[end..].iter().rev().find(|b| !b.is_ascii_whitespace());
    matches!(last, Some(b'}' | b']')) && QuoteParity::default().odd_before(bytes, end, bytes.len())
}

/// True when a balanced span starts at `start` and ends after `at`.
fn closes_after(balanced: &[(usize, usize)], start: usize, at: usize) -> bool {
    balanced
        .binary_search_by_key(&start, |&(s, _)| s)
        .is_ok_and(|i| at < balanced[i].1)
}

/// Runs the layers on `raw`.
pub(crate) fn extract<T: DeserializeOwned>(raw: &str) -> Result<Extracted<T>, Failure> {
    extract_from(raw, true)
}

/// Runs the layers on `raw`; `bare_tuples`: a reply of values with commas
/// between (`1, 2`) may be read as a tuple (not a JSONP call's argument,
/// where the commas separate arguments: `cb(1, 2)` passes two).
fn extract_from<T: DeserializeOwned>(
    raw: &str,
    bare_tuples: bool,
) -> Result<Extracted<T>, Failure> {
    // 1. As is: costs one parse when the reply is plain JSON.
    match attempt::<T>(raw) {
        Ok(value) => return found(value, Layer::AsIs),
        // The whole reply is JSON of the wrong shape: nothing else to find,
        // unless it is a string holding the value (`"{\"a\": 1}"`).
        Err(Miss::Shape(e)) if is_json(raw) => {
            return match string_holding_json(raw).map(|inner| extract::<T>(&inner)) {
                Some(Ok(mut got)) => {
                    got.report.layer = Layer::Repair;
                    got.report.repairs.push(Repair::StringifiedJson);
                    got.report.repairs.sort();
                    Ok(got)
                }
                _ => Err(Failure::Shape(e)),
            };
        }
        Err(_) => {}
    }
    let mut misses = Misses::default();
    // Fences and brackets inside think blocks are drafts: look only outside.
    let text = strip_think(raw);

    let candidates = scan(&text);
    let lead = text.len()
        - text
            .trim_start_matches([' ', '\t', '\r', '\n', '\u{FEFF}'])
            .len();

    // A reply that is one JSON string written as the inside of a string
    // (`\"hello\"`): before the scan, which would take brackets in its
    // text for the value.
    if text[lead..].starts_with("\\\"") {
        if let Some(got) = stringified_string::<T>(&text, lead, &mut misses) {
            return Ok(got);
        }
    }

    // 2. Code fences, the first whose content fits. A fence that opens
    // inside a balanced `{...}` or `[...]` is part of that value (a code
    // block in a JSON string, `{"a": "```{}```", "b": 1}`), not the reply's
    // wrapper: its content would be a fragment read for the whole. So is a
    // fence inside a string of the value the reply starts with, when that
    // value is never closed (an odd number of quotes before the fence).
    // Where the fence opens decides, not where its content starts: the
    // content of ```` ```a"],[1] ```` starts after the string that holds
    // the marker has closed.
    let fenced: Vec<Fence> = fences(&text).collect();
    let opened_whole = candidates.unclosed.first() == Some(&lead);
    let mut quotes = QuoteParity::default();
    for fence in &fenced {
        let in_string = opened_whole && quotes.odd_before(text.as_bytes(), lead, fence.open);
        if in_string || inside_balanced(&candidates.balanced, fence.open) {
            continue;
        }
        match attempt::<T>(&text[fence.content.clone()]) {
            Ok(value) => return found(value, Layer::Fence),
            Err(Miss::Shape(e)) => misses.shape(e),
            Err(Miss::Syntax(_)) => {}
        }
    }

    // 3. The reply without its think blocks.
    if let Cow::Owned(stripped) = &text {
        match attempt::<T>(stripped) {
            Ok(value) => return found(value, Layer::ThinkRemoved),
            Err(Miss::Shape(e)) if is_json(stripped) => return Err(Failure::Shape(e)),
            Err(_) => {}
        }
    }

    // 4. Balanced brackets in prose, the first that fits. Brackets after an
    // opener that is never closed lie inside it (a reply cut off): they wait
    // for that opener's repair, or a cut-off list would give its first item.
    let cut = candidates.unclosed.first().copied().unwrap_or(usize::MAX);
    let scalar_start = starts_scalar(&text[lead..]);
    // Where to repair from, in order; with the end of a balanced span not
    // yet tried as it stands.
    let mut queue: Vec<(usize, Option<usize>)> = Vec::new();
    if scalar_start {
        // From 0: the repair pass skips (and records) a byte-order mark.
        queue.push((0, None));
    }
    let mut deferred = Vec::new();
    // A value closed early and continued may run on to its last stray
    // closer: the spans after it wait for its repair, and those inside it
    // are fragments of it.
    // With no stray closer, where it ends is not known: all that follows.
    let stray_end = candidates
        .last_stray
        .iter()
        .flatten()
        .max()
        .map_or(usize::MAX, |&at| at + 1);
    let mut continued_seen = false;
    let mut continued_starts = Vec::new();
    // The reply starts with a value that is not JSON as written: a later
    // span after an odd number of quotes from its start lies in a string
    // of it, or a stray quote shifted the strings the scan saw (`{"  " ":
    // "}<",\n "b": {"c": 1}}`): a piece of it, never the answer.
    let mut first_broke = false;
    let mut quotes = QuoteParity::default();
    for &(start, end) in &candidates.balanced {
        if start > cut || continued_seen {
            deferred.push((start, Some(end)));
            continue;
        }
        if first_broke && quotes.odd_before(text.as_bytes(), lead, start) {
            continue;
        }
        // After the reply's first value broke, a later one waits for its
        // repair: read first, it could be a piece of it (`{"a": 1, "b"}
        // [2]`, where `[2]` is the value of `b`).
        if first_broke {
            deferred.push((start, Some(end)));
            continue;
        }
        // A span the value goes on after is a fragment of it (`{"a": 1},
        // "b": 2}`), never the answer; the repair reads on from its start
        // (a closer of the wrong kind may have ended the span early). So
        // is the reply's first value when the text after it holds a quote
        // with no pair and ends with a closer (`["a,"]",1]` from `["a",
        // "]",1]`): a stray quote shifted its strings.
        if continued_span(&candidates, &text, start, end)
            || (start == lead && unpaired_quote_then_closer(text.as_bytes(), end))
        {
            misses.continued(&text, 0, end);
            queue.push((start, None));
            continued_seen = true;
            continued_starts.push(start);
            continue;
        }
        match attempt::<T>(&text[start..end]) {
            Ok(value) => return found(value, Layer::Scan),
            // Repair changes syntax, not values: the value would still not
            // fit. Save braces that are no JSON object: a Python set
            // (`{'a', 'b'}`) is read as a list, which a list may take.
            Err(Miss::Shape(e)) => {
                misses.shape(e);
                if text.as_bytes()[start] == b'{' && !is_json(&text[start..end]) {
                    first_broke |= start == lead;
                    queue.push((start, None));
                }
            }
            Err(Miss::Syntax(_)) => {
                first_broke |= start == lead;
                queue.push((start, None));
            }
        }
    }
    // Merge the deferred spans and the unclosed openers by position.
    {
        let mut deferred = deferred.into_iter().peekable();
        let mut unclosed = candidates
            .unclosed
            .iter()
            .take(MAX_UNCLOSED)
            .map(|&u| (u, None))
            .peekable();
        loop {
            let next = match (deferred.peek(), unclosed.peek()) {
                (Some(d), Some(u)) if d.0 < u.0 => deferred.next(),
                (_, Some(_)) => unclosed.next(),
                (Some(_), None) => deferred.next(),
                (None, None) => break,
            };
            queue.extend(next);
        }
    }

    // 5. Repair, from each place in the queue. A place inside a value an
    // earlier attempt already read (up to its end, or to where it broke) is
    // a fragment of that value: the inner list of a broken object is not
    // the answer.
    let mut repairs_left = MAX_REPAIRS;
    let mut unescaped = false;
    let mut read_until = 0;
    // An opener never closed encloses all that follows it: once its repair
    // failed, a later opener never closed is a piece of it (a balanced
    // span later may still be the answer after a bracket of prose).
    let unclosed = &candidates.unclosed[..candidates.unclosed.len().min(MAX_UNCLOSED)];
    let mut unclosed_failed = false;
    // An earlier value broke: where it broke may be anywhere in it (a
    // quote too many shifts every string after it, so its own text may
    // hold what looks like an opener), and a later value that needed
    // repairs may be a piece of it, read as a guess. After a break only a
    // later value read without repairs is taken.
    let mut broke = false;
    let mut lead_broke = false;
    for (start, span_end) in queue {
        if start < read_until || lead_broke {
            continue;
        }
        let is_unclosed = span_end.is_none() && unclosed.contains(&start);
        // After a value closed early and continued, an opener never
        // closed is more of it.
        let after_continued = continued_starts.first().is_some_and(|&c| c < start);
        if is_unclosed && (unclosed_failed || after_continued) {
            continue;
        }
        if let Some(end) = span_end.filter(|&end| {
            let continued = continued_span(&candidates, &text, start, end);
            if continued {
                misses.continued(&text, 0, end);
                read_until = read_until.max(stray_end);
            }
            !continued
        }) {
            match attempt::<T>(&text[start..end]) {
                Ok(value) => return found(value, Layer::Scan),
                Err(Miss::Shape(e)) => {
                    misses.shape(e);
                    // Braces that are no JSON object may be a set.
                    if text.as_bytes()[start] != b'{' || is_json(&text[start..end]) {
                        continue;
                    }
                }
                Err(Miss::Syntax(_)) => {}
            }
        }
        if repairs_left == 0 {
            continue;
        }
        repairs_left -= 1;
        let in_fence = fenced.iter().any(|fence| fence.content.contains(&start));
        let mut repaired = match repair(&text, start, in_fence) {
            Ok(repaired) => repaired,
            Err(e) => {
                unclosed_failed |= is_unclosed;
                broke = true;
                // The reply starts with a value that is no JSON and no
                // repair reads: a later value is a piece of it, or a
                // second answer after a first that failed. Either way
                // not the one reading.
                lead_broke |= start == lead && matches!(text.as_bytes()[lead], b'{' | b'[');
                // The opener is never closed and what it holds is JSON:
                // all that follows is inside it.
                if is_unclosed && e.json_like {
                    read_until = usize::MAX;
                }
                // A value closed early and continued: the spans up to its
                // last stray closer are pieces of it.
                if continued_starts.contains(&start) {
                    read_until = read_until.max(stray_end);
                }
                // `{\"a\": 1}`: JSON written as the inside of a string,
                // read unescaped (once: the text is copied).
                if !unescaped && looks_stringified(&text, start) {
                    unescaped = true;
                    if let Some(got) = stringified::<T>(&text[start..], in_fence) {
                        return Ok(got);
                    }
                }
                // A value that starts where this one broke is inside it.
                read_until = read_until.max(e.reached.saturating_add(1));
                misses.syntax(e.at - start, || {
                    let (line, column, excerpt) = locate(&text, e.at);
                    if excerpt.is_empty() {
                        format!("the JSON breaks at its end (line {line}, column {column}): {}", e.message)
                    } else {
                        format!(
                            "the JSON breaks at line {line}, column {column} (near `{excerpt}`): {}",
                            e.message
                        )
                    }
                });
                continue;
            }
        };
        read_until = read_until.max(repaired.end);
        // `1, 2, 3`: values with commas between and nothing around them,
        // a tuple as Python reads it.
        if bare_tuples
            && scalar_start
            && start == 0
            && !repaired.whole
            && comma_then_more(&text[repaired.end..])
        {
            if may_be_one_number(&text) {
                misses.syntax(text.len(), || {
                    let (line, column, excerpt) = locate(&text, lead);
                    format!(
                        "the JSON breaks at line {line}, column {column} (near `{excerpt}`): \
                         digits with commas between and no spaces may be one number (1,234 \
                         grouped in thousands, or 12,5 with a decimal comma) or a list of \
                         numbers; write a number without commas, or a list in [ ]"
                    )
                });
                continue;
            }
            if let Ok(tuple) = repair_bare_tuple(&text, 0, in_fence) {
                match attempt::<T>(&tuple.text) {
                    Ok(value) => return Ok(repaired_value(value, tuple)),
                    Err(Miss::Shape(e)) => {
                        misses.shape(e);
                        continue;
                    }
                    Err(Miss::Syntax(_)) => {}
                }
            }
        }
        // Read as cut off at a code fence, though its brackets close after
        // that fence: the fence is inside the value (`[```\n{"a": 1}\n```]`),
        // which is then an array around a fence, or the fence's object: two
        // readings.
        if repaired.repairs.contains(Repair::Truncated)
            && closes_after(&candidates.balanced, start, repaired.end)
        {
            misses.syntax(repaired.end - start, || {
                let (line, column, excerpt) = locate(&text, repaired.end);
                format!(
                    "the JSON breaks at line {line}, column {column} (near `{excerpt}`): a code \
                     fence stands inside the value; write the JSON whole inside one fence, or \
                     without one"
                )
            });
            continue;
        }
        if !repaired.whole
            && (continues_value(text.as_bytes(), repaired.end)
                || candidates.closed_early(&text, start, repaired.end)
                || (!repaired.repairs.is_empty()
                    && comma_and_container(text.as_bytes(), repaired.end))
                || (start == lead && unpaired_quote_then_closer(text.as_bytes(), repaired.end)))
        {
            misses.continued(&text, repaired.end - start, repaired.end);
            read_until = read_until.max(stray_end);
            // Where the value really ends is not known, so a later value
            // may be a piece of it: only one read without repairs counts.
            broke = true;
            continue;
        }
        if broke && !repaired.repairs.is_empty() {
            continue;
        }
        // A comma left out, and a string over lines, a key left without
        // a value where the text ends, or the text cut off: where the
        // string ends, or whether the text was cut, is one guess and the
        // comma a second one (a
        // stray quote before a pretty-printed list reads that way, its
        // items taken into one string; or a stray quote makes the rest of
        // the text one string that is never closed).
        let over_lines = repaired.repairs.contains(Repair::ControlCharacter);
        let dangling = repaired.repairs.contains(Repair::DanglingKey);
        let cut = repaired.repairs.contains(Repair::Truncated);
        if repaired.repairs.contains(Repair::MissingComma) && (over_lines || dangling || cut) {
            misses.syntax(repaired.end - start, || {
                if over_lines {
                    "a string runs over lines and no comma follows it, so where it ends is not \
                     known; close each string on its line, or write a line break inside it as \\n"
                } else if dangling {
                    "a comma is missing, and a key at the end is left without a value, so a \
                     quote may be a stray one; write the value whole, with a comma between items"
                } else {
                    "a comma is missing and the text is cut off after it, so a quote may be a \
                     stray one that opened the rest; write the value whole, with a comma between \
                     items"
                }
                .to_owned()
            });
            continue;
        }
        // A bare value must be all there is: "True story" is prose. A
        // comma after it and nothing else (`4,`) is a trailing comma.
        if scalar_start && start == 0 && !repaired.whole {
            let after = text[repaired.end..].trim_start();
            if after
                .strip_prefix(',')
                .is_some_and(|rest| rest.trim().is_empty())
            {
                repaired.whole = true;
                repaired.repairs.insert(Repair::TrailingComma);
            }
        }
        if scalar_start && start == 0 && !repaired.whole {
            misses.syntax(repaired.end - start, || {
                let (line, column, excerpt) = locate(&text, repaired.end);
                format!("the JSON breaks at line {line}, column {column} (near `{excerpt}`): unexpected text after the value")
            });
            continue;
        }
        match attempt::<T>(&repaired.text) {
            Ok(value) => {
                return Ok(Extracted {
                    value,
                    report: Report::new(Layer::Repair, repaired.repairs.to_vec())
                        .with_dropped(repaired.dropped),
                })
            }
            Err(Miss::Shape(e)) => misses.shape(e),
            Err(Miss::Syntax(e)) => misses.syntax(repaired.end - start, || {
                let message = e.to_string();
                let message = message
                    .rfind(" at line ")
                    .map_or(&*message, |i| &message[..i]);
                format!("the JSON is not valid: {message}")
            }),
        }
    }
    // Nothing else read: a reply that is one value in parentheses, a
    // Python tuple (`("a", "b")`, `(1)`) or a JSONP call (`cb("x");`),
    // whole or as a fence's content.
    let spans = std::iter::once((0..text.len(), false))
        .chain(fenced.iter().map(|fence| (fence.content.clone(), true)));
    for (span, in_fence) in spans.take(1 + MAX_UNCLOSED) {
        if let Some(got) = parenthesized::<T>(&text, span, in_fence, &mut misses) {
            return Ok(got);
        }
    }
    Err(misses.into_failure())
}

/// The value read by a repair, with its report.
fn repaired_value<T>(value: T, repaired: Repaired) -> Extracted<T> {
    Extracted {
        value,
        report: Report::new(Layer::Repair, repaired.repairs.to_vec())
            .with_dropped(repaired.dropped),
    }
}

/// True when `after` (the text after a value) is a comma and then more.
fn comma_then_more(after: &str) -> bool {
    after
        .trim_start()
        .strip_prefix(',')
        .is_some_and(|rest| !rest.trim().is_empty())
}

/// True when the whole reply is digits with commas between and no white
/// space that may be one number: `1,234` and `1,234,567.5` (grouped in
/// thousands), `12,5` and `1.049,95` (a decimal comma). Python reads each
/// as a tuple; a reply asked for a number means the number as often.
fn may_be_one_number(text: &str) -> bool {
    let text = text.trim();
    if !text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b',' | b'.' | b'-' | b'+'))
    {
        return false;
    }
    let groups: Vec<&[u8]> = text.as_bytes().split(|&b| b == b',').collect();
    if groups.len() < 2 {
        return false;
    }
    let decimal_comma =
        groups.len() == 2 && !groups[1].is_empty() && groups[1].iter().all(u8::is_ascii_digit);
    let thousands = groups[1..].iter().all(|group| {
        group.len() >= 3
            && group[..3].iter().all(u8::is_ascii_digit)
            && group.get(3).is_none_or(|&b| b == b'.')
    });
    decimal_comma || thousands
}

/// A reply that is one JSON string written as the inside of a string,
/// `text[start..]` to the end: `\"hello\"`, cut off (`\"hello\`), its
/// closing quote not escaped (`\"hello"`: a stray backslash before a
/// string or a string stringified whose last escape was left out, the
/// same value). Any other quote not escaped has two readings of where the
/// string ends, and is feedback.
fn stringified_string<T: DeserializeOwned>(
    text: &str,
    start: usize,
    misses: &mut Misses,
) -> Option<Extracted<T>> {
    let body = text[start..].trim_end();
    let Unescaped {
        text: inner,
        bare_quote,
        loose,
    } = unescape_marking(body);
    // `\"hello"`: a closing quote left as it is, nothing after it.
    let closed_bare = bare_quote == Some(inner.len() - 1) && inner.len() > 1;
    if bare_quote.is_some() && !closed_bare {
        misses.syntax(body.len(), || {
            let (line, column, excerpt) = locate(text, start);
            format!(
                "the JSON breaks at line {line}, column {column} (near `{excerpt}`): this string \
                 is written as the inside of a string, its quotes escaped, but a quote in it is \
                 not, so where it ends is not known; write the value as plain JSON, with a \
                 quote inside a string as \\\""
            )
        });
        return None;
    }
    let mut repaired = repair(&inner, 0, false).ok()?;
    if !repaired.whole {
        return None;
    }
    // Read as written, or cut off inside the string: a `\\"`, or a closing
    // quote not escaped, is taken only where the text needs no repair.
    let mut other = repaired.repairs;
    other.remove(Repair::Truncated);
    if !other.is_empty() || ((loose || closed_bare) && !repaired.repairs.is_empty()) {
        return None;
    }
    // Cut off, a string holding brackets may as well be a stray `\"`
    // before the value they open (`\"[1, 2]`): left to the later layers.
    let backslashes = inner.as_bytes()[..inner.len() - 1]
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count();
    let closed = inner.len() > 1 && inner.ends_with('"') && backslashes % 2 == 0;
    if !closed && inner.contains(['[', ']', '{', '}']) {
        return None;
    }
    repaired.repairs.insert(Repair::StringifiedJson);
    match attempt::<T>(&repaired.text) {
        Ok(value) => Some(repaired_value(value, repaired)),
        Err(Miss::Shape(e)) => {
            misses.shape(e);
            None
        }
        Err(Miss::Syntax(_)) => None,
    }
}

/// True when more of the value follows the balanced span `start..end`: a
/// member, an item or a closer. Closers and nothing else after a span
/// that is valid JSON as written are closers one too many (`{"a": 1}}`);
/// after a span that needs repair they are still more of it.
fn continued_span(candidates: &Candidates, text: &str, start: usize, end: usize) -> bool {
    // Closers one too many after valid JSON are strays, unless an object
    // in it holds a key twice: then a stray `}` inside it moved members
    // out of the object they were written in (`{"a": {"x": 1}, "a": 2}}`
    // from `{"a": {"x": 1, "a": 2}}`, read as `{"a": 2}`).
    let continued = continues_value(text.as_bytes(), end)
        && !(only_closers_after(text.as_bytes(), end)
            && is_json(&text[start..end])
            && !has_duplicate_key(&text[start..end]));
    continued
        || candidates.closed_early(text, start, end)
        || (colon_then_container(text.as_bytes(), end) && !is_json(&text[start..end]))
}

/// The value of `text[span]` when, trimmed, it is one value in parentheses:
/// a tuple `(…)`, or a JSONP call `name(…)` with an optional `;` (its one
/// argument). A reply that only opens and closes with parentheses around
/// prose is refused as before; a shape miss is kept for the feedback.
fn parenthesized<T: DeserializeOwned>(
    text: &str,
    span: Range<usize>,
    in_fence: bool,
    misses: &mut Misses,
) -> Option<Extracted<T>> {
    let body = &text[span.clone()];
    let trimmed = body.trim_start();
    let start = span.start + (body.len() - trimmed.len());
    let trimmed = trimmed.trim_end();
    let inner_end = trimmed.strip_suffix(';').unwrap_or(trimmed).trim_end();
    if !inner_end.ends_with(')') {
        return None;
    }
    let name_len = trimmed
        .bytes()
        .take_while(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'))
        .count();
    if !trimmed[name_len..].starts_with('(') {
        return None;
    }
    let mut repaired = if name_len > 0 {
        // JSONP: the callback's name must be a name, and its argument
        // one value (`cb(1, 2)` passes two).
        if !trimmed.as_bytes()[0].is_ascii_alphabetic() && !trimmed.starts_with(['_', '$']) {
            return None;
        }
        let argument = &inner_end[name_len + 1..inner_end.len() - 1];
        let got = extract_from::<T>(argument, false).ok()?;
        let mut report = got.report;
        report.layer = Layer::Repair;
        report.repairs.push(Repair::Wrapper);
        report.repairs.sort();
        report.repairs.dedup();
        return Some(Extracted {
            value: got.value,
            report,
        });
    } else {
        repair_tuple(text, start, in_fence).ok()?
    };
    if repaired.end != start + inner_end.len() {
        return None;
    }
    match attempt::<T>(&repaired.text) {
        Ok(value) => {
            repaired.repairs.insert(Repair::PythonTuple);
            Some(Extracted {
                value,
                report: Report::new(Layer::Repair, repaired.repairs.to_vec())
                    .with_dropped(repaired.dropped),
            })
        }
        Err(Miss::Shape(e)) => {
            misses.shape(e);
            None
        }
        Err(Miss::Syntax(_)) => None,
    }
}

/// The value in `text`, stringified JSON (`{\"a\": 1}`), read unescaped.
fn stringified<T: DeserializeOwned>(text: &str, in_fence: bool) -> Option<Extracted<T>> {
    let Unescaped {
        text: inner,
        bare_quote,
        loose,
    } = unescape_marking(text);
    let mut repaired = repair(&inner, 0, in_fence).ok()?;
    if !repaired.whole && continues_value(inner.as_bytes(), repaired.end) {
        return None;
    }
    // A `\\"` is taken only where the text, read so, needs no repair.
    if loose && !repaired.repairs.is_empty() {
        return None;
    }
    if bare_quote.is_some_and(|at| at < repaired.end) {
        return None;
    }
    repaired.repairs.insert(Repair::StringifiedJson);
    let value = attempt::<T>(&repaired.text).ok()?;
    Some(Extracted {
        value,
        report: Report::new(Layer::Repair, repaired.repairs.to_vec())
            .with_dropped(repaired.dropped),
    })
}

#[cfg(test)]
mod tests {
    use super::unpaired_quote_then_closer;

    #[test]
    fn an_unpaired_quote_then_a_closer() {
        let unpaired = |s: &str| unpaired_quote_then_closer(s.as_bytes(), 0);
        assert!(unpaired("\",0.0]"));
        assert!(unpaired(" \",\"_\":\"\\\"\",\"A\":[null],\"\":{}}\n"));
        assert!(unpaired("\\\\\",\"\\\"\":false}"));
        // An escaped quote is no quote; paired quotes, or no closer at the
        // end, say nothing.
        assert!(!unpaired("\\\"]"));
        assert!(!unpaired(", \"b\"]"));
        assert!(!unpaired(" That is 5\" tall."));
    }
}
