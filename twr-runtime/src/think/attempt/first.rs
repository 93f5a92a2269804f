//! The opening request of a run: the prompt with the format guide (see
//! `think/demo.rs`), asking for the whole answer.

use super::{full, Asking, Kind, Strategy};
use crate::sections::{Lang, SectionSpec, WaysSpec};

/// The opening request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct First;

impl Kind for First {
    const NAME: &'static str = "first";

    /// The first request is what it is, whatever model or grammar it goes
    /// with.
    const NAMED_SO_HOWEVER_SENT: bool = true;

    /// The first request is the one asked several times: its replies, all
    /// to the same prompt, each answer the whole; later ones follow
    /// feedback on the answer they agreed on.
    fn may_sample(&self) -> bool {
        true
    }

    /// A reply to the first request that does not follow the format has
    /// had no feedback yet: no sign of a struggling model.
    fn headerless_is_struggle(&self) -> bool {
        false
    }

    /// Asked for after problems, the opening request is the whole answer
    /// again.
    fn ask(&self, asking: Asking<'_>) -> String {
        full::ask_whole(asking)
    }

    fn restate(&self, specs: &[SectionSpec], ways: &[WaysSpec], lang: Lang) -> String {
        full::restate_whole(specs, ways, lang)
    }

    /// Asked again, the whole answer is a full retry: the guide and the
    /// first feedback are behind it.
    fn again(self) -> Strategy {
        Strategy::full()
    }
}
