//! What of a huge failed reply goes back to the model: the reply whole when
//! it is of a normal size, else a bounded reply (its edges and the
//! surroundings of the failing headers).
//!
//! Not the feedback's one-line quote of a value (`parse::excerpt`), nor the
//! client's scrubbed quote of server text (`Secrets::scrubbed_quote`): this
//! keeps whole lines of the reply, many kilobytes of them, for the model.
//!
//! The retry request carries the latest failed reply so that the feedback
//! makes sense to the model. A reply of megabytes (a model that looped, a
//! million header-like lines) would make every retry request as large, so
//! beyond [`WHOLE_MAX`] the request carries its beginning, its end, and the
//! surroundings of the last place each failing section's header appears,
//! with a note saying how much was left out at each cut. The full reply
//! stays in the ledger and the transcript.

use memchr::memmem;

/// The longest failed reply sent back whole, in bytes (32 KiB).
pub(crate) const WHOLE_MAX: usize = 32 * 1024;
/// Bytes kept at the beginning and at the end of a longer reply.
const EDGE: usize = 8 * 1024;
/// Bytes kept before and after a failing section's header.
const BEFORE: usize = 1024;
const AFTER: usize = 4 * 1024;
/// Failing sections located at most (the rest are still in the feedback).
const MAX_FOCUS: usize = 8;
/// How far a cut may move to fall on a line break.
const LINE_SLACK: usize = 256;

/// The bounded form of `raw` to send back, or `None` when it goes back whole.
/// `focus` are the headers of the failing sections; `note` writes the
/// marker for a cut of that many bytes. At most
/// `2 * EDGE + MAX_FOCUS * (BEFORE + AFTER)` bytes of the reply (56 KiB)
/// plus the notes; one linear search per header.
pub(crate) fn bounded_reply(
    raw: &str,
    focus: &[&str],
    note: impl Fn(usize) -> String,
) -> Option<String> {
    if raw.len() <= WHOLE_MAX {
        return None;
    }
    let mut spans = vec![(0, EDGE), (raw.len() - EDGE, raw.len())];
    for header in focus.iter().filter(|h| !h.is_empty()).take(MAX_FOCUS) {
        if let Some(at) = memmem::rfind(raw.as_bytes(), header.as_bytes()) {
            spans.push((at.saturating_sub(BEFORE), (at + AFTER).min(raw.len())));
        }
    }
    let spans: Vec<(usize, usize)> = spans
        .into_iter()
        .map(|(start, end)| (line_start(raw, start), line_end(raw, end)))
        .collect();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    let mut sorted = spans;
    sorted.sort_unstable();
    for (start, end) in sorted {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    let mut text = String::with_capacity(merged.iter().map(|(s, e)| e - s).sum::<usize>() + 256);
    let mut at = 0;
    for (start, end) in merged {
        if start > at {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&note(start - at));
            text.push('\n');
        }
        text.push_str(&raw[start..end]);
        at = end;
    }
    if at < raw.len() {
        text.push('\n');
        text.push_str(&note(raw.len() - at));
    }
    Some(text)
}

/// `at`, moved forward to just after a line break when one is near, and
/// always onto a character boundary.
fn line_start(raw: &str, at: usize) -> usize {
    if at == 0 || raw.as_bytes()[at - 1] == b'\n' {
        return at;
    }
    let window = &raw.as_bytes()[at..(at + LINE_SLACK).min(raw.len())];
    match memchr::memchr(b'\n', window) {
        Some(i) => at + i + 1,
        None => ceil_boundary(raw, at),
    }
}

/// `at`, moved back to just after a line break when one is near, and
/// always onto a character boundary.
fn line_end(raw: &str, at: usize) -> usize {
    if at >= raw.len() {
        return raw.len();
    }
    let window = &raw.as_bytes()[at.saturating_sub(LINE_SLACK)..at];
    match memchr::memrchr(b'\n', window) {
        Some(i) => at - window.len() + i + 1,
        None => floor_boundary(raw, at),
    }
}

fn floor_boundary(raw: &str, mut at: usize) -> usize {
    while !raw.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(raw: &str, mut at: usize) -> usize {
    while !raw.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(bytes: usize) -> String {
        format!("[{bytes} left out]")
    }

    #[test]
    fn a_normal_reply_goes_back_whole() {
        assert_eq!(bounded_reply("[Days]\nmany", &["[Days]"], note), None);
        assert_eq!(bounded_reply(&"x".repeat(WHOLE_MAX), &[], note), None);
    }

    #[test]
    fn a_huge_reply_keeps_its_edges_and_the_failing_section() {
        let line = "filler line of the reply\n"; // 25 bytes
        let mut raw = line.repeat(4000);
        let header_at = raw.len();
        raw.push_str("[Days]\nmany\n");
        raw.push_str(&line.repeat(4000));
        let text = bounded_reply(&raw, &["[Days]", "[Absent]"], note).unwrap();
        // The first and last 327 whole lines (8,175 bytes), and from the
        // line 1,000 bytes before the failing header to the last whole line
        // 4,096 bytes after it; each cut noted with its size.
        let head = &raw[..8175];
        let days = &raw[header_at - 1000..header_at + 12 + 163 * 25];
        let tail = &raw[raw.len() - 8175..];
        assert_eq!(
            text,
            format!("{head}[90825 left out]\n{days}[87750 left out]\n{tail}")
        );
        assert_eq!(8175 + 90825 + days.len() + 87750 + 8175, raw.len());
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        // Three bytes a character, no line breaks: 8,192 bytes end inside
        // a character, so both cuts move to the nearest boundary inside.
        let raw = "語".repeat(40_000);
        let text = bounded_reply(&raw, &[], note).unwrap();
        let edge = "語".repeat(2730);
        assert_eq!(text, format!("{edge}\n[103620 left out]\n{edge}"));
    }
}
