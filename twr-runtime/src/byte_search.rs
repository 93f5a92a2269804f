//! The byte searches of the parsers: one byte, for the stream parser and
//! the reasoning lexer, tuned for the short slices a stream fed a few bytes
//! at a time searches; and the lines of a section's content, for the list
//! and record readers.

/// The first `byte` in `haystack`: `memchr` for long slices, a plain loop
/// for short ones, where `memchr`'s set-up costs more than the search (a
/// stream fed a few bytes at a time searches many short slices).
#[inline]
pub(crate) fn find_byte(byte: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() >= 32 {
        return memchr::memchr(byte, haystack);
    }
    // Eight bytes at a time: a byte equal to `byte` is a zero byte of
    // `word ^ pattern`, and the lowest bit the zero-byte test sets is in the
    // first such byte (a false positive can only follow a true one).
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let pattern = u64::from_le_bytes([byte; 8]);
    let mut words = haystack.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default()) ^ pattern;
        let zero = word.wrapping_sub(ONES) & !word & HIGHS;
        if zero != 0 {
            return Some(at + (zero.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let tail = words.remainder();
    tail.iter().position(|&b| b == byte).map(|found| at + found)
}

/// The lines of `text`, as [`str::lines`] gives them (split at `\n`, a
/// `\r` before it dropped, no empty line after a final `\n`), found with
/// one `memchr` iterator: `str::lines` starts a new search for every line,
/// with core's portable search, which costs more than the search itself on
/// the short lines of a long list.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', text.as_bytes());
    std::iter::from_fn(move || {
        let line = match ends.next() {
            Some(end) => {
                let line = &text[start..end];
                start = end + 1;
                line.strip_suffix('\r').unwrap_or(line)
            }
            None if start < text.len() => {
                let line = &text[start..];
                start = text.len();
                line
            }
            None => return None,
        };
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_those_of_str_lines() {
        for text in [
            "",
            "\n",
            "\n\n",
            "a",
            "a\n",
            "a\r\n",
            "a\r",
            "a\rb\r\n\r\nc",
            "\r\n",
            "- one\n- two\r\n\n  - three",
            "日本\n語\r\n",
        ] {
            assert_eq!(
                lines(text).collect::<Vec<_>>(),
                text.lines().collect::<Vec<_>>(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn find_byte_finds_the_first_at_every_position_and_length() {
        // Every byte value around the target, so a near miss (0x0B, 0x8A)
        // is never taken for it; lengths on both sides of the word size and
        // of the memchr cut-off.
        for len in 0..80usize {
            for at in 0..=len {
                let mut hay: Vec<u8> = (0..len).map(|i| (i * 37 % 256) as u8).collect();
                hay.iter_mut().for_each(|b| {
                    if *b == b'\n' {
                        *b = 0x8A;
                    }
                });
                if at < len {
                    hay[at] = b'\n';
                    // A second one after it must not win.
                    if at + 1 < len {
                        hay[at + 1] = b'\n';
                    }
                }
                let expected = (at < len).then_some(at);
                assert_eq!(find_byte(b'\n', &hay), expected, "len {len}, at {at}");
            }
        }
    }
}
