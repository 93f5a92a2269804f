//! Telling a model that does not follow the format: a reply that copies
//! the guide instead of answering. Such a model gets focused questions
//! (see `attempt/focused.rs`).

use crate::parse::SectionMap;
use crate::phrases::without_stop;
use crate::prompt::placeholder;
use crate::sections::{Lang, SectionSpec};

/// True when a section of a reply (its sections `map`, of `specs`) is a
/// copy of the guide rather than an answer: its first line repeats the
/// section's description, or its lines are the guide's slot for it (`<a
/// single whole number>`, `- <item>`).
///
/// A capable model never does this; a small one that does will fumble a
/// patch retry as well, so the loop goes straight to focused questions.
pub(crate) fn copies_the_guide(map: &SectionMap<'_>, specs: &[SectionSpec], lang: Lang) -> bool {
    specs.iter().enumerate().any(|(index, spec)| {
        let Some(content) = map.content(index) else {
            return false;
        };
        let mut lines = content.lines().map(str::trim).filter(|l| !l.is_empty());
        let Some(first) = lines.next() else {
            return false;
        };
        let description = without_stop(spec.description.trim());
        let echoes = description.chars().count() >= 12
            && first.len() >= description.len()
            && first.is_char_boundary(description.len())
            && first[..description.len()].eq_ignore_ascii_case(description);
        let slot = placeholder(&spec.kind, lang);
        let slot_lines: Vec<&str> = slot.lines().map(str::trim).collect();
        let is_slot = std::iter::once(first)
            .chain(lines)
            .all(|line| slot_lines.contains(&line));
        echoes || is_slot
    })
}
