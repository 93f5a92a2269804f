//! The soft-format guide appended to the prompt.

use crate::feedback::Lang;
use crate::sections::SectionSpec;

/// The soft-format instructions for `specs`, with a complete example answer.
pub fn format_guide(specs: &[SectionSpec], lang: Lang) -> String {
    let _ = (specs, lang);
    unimplemented!("skeleton: the guide lands in the sections work")
}
