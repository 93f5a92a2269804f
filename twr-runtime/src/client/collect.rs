//! Collects the [`Piece`]s of a response, or of every event of a stream,
//! into one [`Reply`]; or, when the call fails after text arrived, into the
//! partial reply that [`ModelError::Incomplete`] keeps.

use super::provider::Piece;
use crate::model::{FinishReason, ModelError, Reply, Usage};
use crate::reasoning::ThinkSplitter;

/// A reply being put together.
#[derive(Default)]
pub(crate) struct Collector {
    /// Visible text, with inline `<think>` blocks moved out as it arrives.
    splitter: ThinkSplitter,
    /// Reasoning sent in its own field or part.
    reasoning: String,
    refusal: Option<String>,
    usage: Usage,
    finish_reason: Option<FinishReason>,
    /// Whether any content or reasoning other than white space arrived.
    has_text: bool,
}

impl Collector {
    /// Applies one piece.
    pub(crate) fn add(&mut self, piece: Piece) {
        match piece {
            Piece::Content(text) => {
                self.has_text |= !text.trim().is_empty();
                self.splitter.push(&text);
            }
            Piece::Reasoning(text) => {
                self.has_text |= !text.trim().is_empty();
                self.reasoning.push_str(&text);
            }
            Piece::Refusal(text) => self.refusal.get_or_insert_with(String::new).push_str(&text),
            Piece::Usage(usage) => self.usage = usage,
            Piece::Finish(reason) => self.finish_reason = Some(reason),
        }
    }

    /// True once any content or reasoning arrived.
    pub(crate) fn has_text(&self) -> bool {
        self.has_text
    }

    /// What arrived, as a reply, with no checks (for a failed call).
    pub(crate) fn partial(self) -> Reply {
        self.into_parts().0
    }

    /// The reply. An empty answer is an error unless the token limit
    /// explains it (the loop then asks for a shorter answer), and a refusal
    /// or a content filter's silence is a refusal, not a glitch to retry.
    pub(crate) fn finish(self) -> Result<Reply, ModelError> {
        let (reply, refusal) = self.into_parts();
        if !reply.content.trim().is_empty() {
            return Ok(reply);
        }
        if let Some(refusal) = refusal.filter(|r| !r.trim().is_empty()) {
            return Err(ModelError::Refused(refusal.trim().to_string()));
        }
        match &reply.finish_reason {
            Some(FinishReason::Length) => Ok(reply),
            Some(FinishReason::ContentFilter) => Err(ModelError::Refused(
                "the server's content filter stopped the reply".to_string(),
            )),
            _ => Err(ModelError::EmptyReply),
        }
    }

    fn into_parts(self) -> (Reply, Option<String>) {
        let (content, inline) = self.splitter.finish();
        let field = self.reasoning.trim();
        let reasoning = match (field.is_empty(), inline) {
            (true, inline) => inline,
            (false, None) => Some(field.to_string()),
            (false, Some(inline)) => Some(format!("{field}\n{inline}")),
        };
        let reply = Reply {
            content,
            reasoning,
            usage: self.usage,
            finish_reason: self.finish_reason,
        };
        (reply, self.refusal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(pieces: Vec<Piece>) -> Collector {
        let mut collector = Collector::default();
        for piece in pieces {
            collector.add(piece);
        }
        collector
    }

    #[test]
    fn reasoning_fields_come_before_inline_blocks() {
        let reply = collect(vec![
            Piece::Reasoning(" field ".into()),
            Piece::Content("<think>inline</think>\nAnswer".into()),
            Piece::Usage(Usage::new(1, 2)),
            Piece::Usage(Usage::new(3, 4)),
            Piece::Finish(FinishReason::Stop),
        ])
        .finish()
        .unwrap();
        assert_eq!(
            reply,
            Reply {
                content: "Answer".into(),
                reasoning: Some("field\ninline".into()),
                usage: Usage::new(3, 4),
                finish_reason: Some(FinishReason::Stop),
            }
        );
    }

    #[test]
    fn empty_answers_refusals_and_filters() {
        let refused = collect(vec![
            Piece::Refusal("No.".into()),
            Piece::Content(" ".into()),
        ]);
        assert!(!refused.has_text());
        assert!(matches!(refused.finish(), Err(ModelError::Refused(m)) if m == "No."));
        let filtered = collect(vec![Piece::Finish(FinishReason::ContentFilter)]);
        assert!(!filtered.has_text());
        assert!(matches!(filtered.finish(), Err(ModelError::Refused(_))));
        let cut = collect(vec![Piece::Finish(FinishReason::Length)]);
        assert_eq!(cut.finish().unwrap().content, "");
        let empty = collect(vec![Piece::Content("<think>only</think>".into())]);
        assert!(matches!(empty.finish(), Err(ModelError::EmptyReply)));
    }

    #[test]
    fn a_partial_reply_keeps_what_arrived() {
        let partial = collect(vec![
            Piece::Reasoning("why".into()),
            Piece::Content("Half an ans".into()),
        ]);
        assert!(partial.has_text());
        assert_eq!(
            partial.partial(),
            Reply {
                content: "Half an ans".into(),
                reasoning: Some("why".into()),
                ..Reply::default()
            }
        );
    }
}
