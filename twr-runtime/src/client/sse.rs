//! An incremental Server-Sent Events decoder.
//!
//! Bytes arrive in arbitrary pieces: a line, a field name, even a UTF-8
//! character may be split between two network chunks. The decoder keeps the
//! unfinished line and hands out an event only when its terminating blank line
//! has arrived. Each byte is looked at once (memchr finds the line ends).

/// One complete server-sent event, as a [`Provider`](super::Provider)
/// decodes it: its `event:` name (if any) and its `data:` lines joined with
/// `\n`, as the SSE specification says. `id:` and `retry:` fields and
/// comment lines (keep-alive pings) are dropped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, when the server named the event.
    pub(crate) event: Option<String>,
    /// The data lines, joined with `\n`.
    pub(crate) data: String,
    /// The stream ended before the blank line that ends the event: it may
    /// be cut off mid-way (a proxy or server that closed cleanly in the
    /// middle of an event), and when it does not decode, the reply broke
    /// off rather than being unreadable.
    pub(crate) cut: bool,
}

impl SseEvent {
    /// An event with this data and no name, for an adapter's own tests.
    pub fn new(data: impl Into<String>) -> Self {
        SseEvent {
            event: None,
            data: data.into(),
            cut: false,
        }
    }

    /// The event with the name `name` (its `event:` field).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.event = Some(name.into());
        self
    }

    /// The `event:` field, when the server named the event (`"error"`,
    /// `"content-delta"`).
    pub fn name(&self) -> Option<&str> {
        self.event.as_deref()
    }

    /// The data lines, joined with `\n` (a JSON document, or `[DONE]`).
    pub fn data(&self) -> &str {
        &self.data
    }
}

/// Turns a byte stream into [`SseEvent`]s. Lines end with `\n` or `\r\n`;
/// `:` lines are comments (keep-alive pings) and are skipped.
#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    /// Bytes of the line not yet terminated.
    partial: Vec<u8>,
    /// Data lines of the event being read.
    data: Option<String>,
    /// `event:` field of the event being read.
    event: Option<String>,
}

impl SseDecoder {
    /// A decoder with nothing buffered.
    pub(crate) fn new() -> Self {
        SseDecoder::default()
    }

    /// Feeds `bytes` and appends every event they complete to `out`.
    pub(crate) fn push(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        let mut rest = bytes;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            let (line, tail) = rest.split_at(end);
            rest = &tail[1..];
            if self.partial.is_empty() {
                self.line(line, out);
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(line);
                self.line(&whole, out);
                // Reuse the allocation for the next split line.
                whole.clear();
                self.partial = whole;
            }
        }
        self.partial.extend_from_slice(rest);
    }

    /// Ends the stream: a final event the server did not terminate with a
    /// blank line is still delivered (some servers close right after it),
    /// marked [`cut`](SseEvent::cut).
    pub(crate) fn finish(&mut self, out: &mut Vec<SseEvent>) {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.line(&line, out);
        }
        let whole = out.len();
        self.dispatch(out);
        for event in &mut out[whole..] {
            event.cut = true;
        }
    }

    fn line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return; // a comment, e.g. `: ping`
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        // The body reader has checked the bytes are UTF-8 (a line never ends
        // inside a character), so nothing is ever replaced here.
        let value = String::from_utf8_lossy(value);
        match field {
            b"data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(&value);
                }
                None => self.data = Some(value.into_owned()),
            },
            b"event" => self.event = Some(value.into_owned()),
            // `id:` and `retry:` matter for reconnecting, which a chat
            // completion never does; unknown fields are ignored by the spec.
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if let Some(data) = self.data.take() {
            out.push(SseEvent {
                event,
                data,
                cut: false,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(input: &[u8], piece: usize) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        for chunk in input.chunks(piece) {
            decoder.push(chunk, &mut out);
        }
        decoder.finish(&mut out);
        out
    }

    fn data(text: &str) -> SseEvent {
        SseEvent {
            event: None,
            data: text.to_string(),
            cut: false,
        }
    }

    #[test]
    fn events_survive_any_split() {
        let input = "data: {\"a\":1}\n\n: ping\n\ndata: é€\r\n\r\ndata: [DONE]\n\n".as_bytes();
        for piece in 1..input.len() + 1 {
            assert_eq!(
                decode_in_pieces(input, piece),
                vec![data("{\"a\":1}"), data("é€"), data("[DONE]")],
                "piece size {piece}"
            );
        }
    }

    #[test]
    fn multi_line_data_and_event_names() {
        let out = decode_in_pieces(b"event: error\ndata: one\ndata:two\nid: 7\n\n", 3);
        assert_eq!(
            out,
            vec![SseEvent {
                event: Some("error".to_string()),
                data: "one\ntwo".to_string(),
                cut: false,
            }]
        );
    }

    #[test]
    fn unterminated_last_event_is_delivered_at_finish_marked_cut() {
        let cut = |text: &str| SseEvent {
            cut: true,
            ..data(text)
        };
        assert_eq!(decode_in_pieces(b"data: last", 4), vec![cut("last")]);
        assert_eq!(
            decode_in_pieces(b"data: one\n\ndata: {\"a\":\ndata: 1", 3),
            vec![data("one"), cut("{\"a\":\n1")]
        );
    }

    #[test]
    fn comments_and_blank_events_yield_nothing() {
        assert_eq!(decode_in_pieces(b": ping\n\n\n\nevent: x\n\n", 2), vec![]);
    }
}
