//! Sections typed once per run: the values of sections already read, kept
//! with the content they were read from, so that a section met again with
//! the same content is not read again. A patch merge hands the parser the
//! sections kept from earlier replies beside the new ones; a streamed reply
//! has each section checked as it completes, then the whole reply read.
//! Both meet sections already typed.
//!
//! The values are type-erased (`Box<dyn Any + Send>`): the store crosses
//! the loop's awaits inside a run whose type the loop does not name. A
//! section's value can be kept only when its type is `'static + Send`; the
//! derive asks through [`KeepProbe`] and passes a [`Keeper`] for such
//! types, and nothing for the others (they are read again, as before).

use std::any::Any;
use std::marker::PhantomData;

use crate::json::Report;

/// The values of sections already typed in a run, by position in the
/// specs, each with the trimmed content it was read from.
#[derive(Default)]
pub struct TypedSections {
    slots: Vec<Option<Typed>>,
}

/// One section's value, read from `content`.
struct Typed {
    content: Box<str>,
    value: Box<dyn Any + Send>,
    /// How its JSON was read, for a JSON section: reported again when the
    /// value is used again.
    json: Option<Report>,
}

impl TypedSections {
    /// Takes the value of the section at `index` when it was read from
    /// `content` (trimmed); a value read from other content stays.
    pub(crate) fn take<T>(
        &mut self,
        index: usize,
        content: &str,
        keeper: Keeper<T>,
    ) -> Option<(T, Option<Report>)> {
        let slot = self.slots.get_mut(index)?;
        if slot.as_ref()?.content.as_ref() != content {
            return None;
        }
        let typed = slot.take()?;
        let value = (keeper.from)(typed.value)?;
        Some((value, typed.json))
    }

    /// Keeps `value`, the section at `index` read from `content` (trimmed).
    pub(crate) fn put<T>(
        &mut self,
        index: usize,
        content: &str,
        value: T,
        json: Option<Report>,
        keeper: Keeper<T>,
    ) {
        if self.slots.len() <= index {
            self.slots.resize_with(index + 1, || None);
        }
        self.slots[index] = Some(Typed {
            content: content.into(),
            value: (keeper.into)(value),
            json,
        });
    }

    /// Takes in the sections `newer` kept: for a section both hold, the
    /// newer value.
    pub(crate) fn absorb(&mut self, newer: TypedSections) {
        for (index, typed) in newer.slots.into_iter().enumerate() {
            if let Some(typed) = typed {
                if self.slots.len() <= index {
                    self.slots.resize_with(index + 1, || None);
                }
                self.slots[index] = Some(typed);
            }
        }
    }
}

impl std::fmt::Debug for TypedSections {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The values are of types this store does not name: their
        // positions and contents say what it holds.
        f.debug_map()
            .entries(
                self.slots
                    .iter()
                    .enumerate()
                    .filter_map(|(index, typed)| Some((index, &typed.as_ref()?.content))),
            )
            .finish()
    }
}

/// How a value of a section's type goes in and out of [`TypedSections`]:
/// two functions made where the type is known to be `'static + Send`, so
/// the reader, generic over any type, can keep it.
pub struct Keeper<T> {
    into: fn(T) -> Box<dyn Any + Send>,
    from: fn(Box<dyn Any + Send>) -> Option<T>,
}

impl<T> Clone for Keeper<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Keeper<T> {}

impl<T: Any + Send> Keeper<T> {
    /// The keeper of `T`.
    pub fn new() -> Self {
        Keeper {
            into: |value| Box::new(value),
            from: |value| value.downcast::<T>().ok().map(|value| *value),
        }
    }
}

impl<T: Any + Send> Default for Keeper<T> {
    fn default() -> Self {
        Keeper::new()
    }
}

/// Asks whether a section's type can be kept, for generated code:
/// `(&KeepProbe::<T>::new()).keeper()` with [`CanKeep`] and [`CannotKeep`]
/// in scope is `Some` for a `'static + Send` type and `None` otherwise.
/// Used only for types without type or lifetime parameters, whose fields'
/// types are all `'static`: the probe checks `Send`, which method lookup
/// can tell, and not `'static`, which it cannot.
pub struct KeepProbe<T>(PhantomData<fn() -> T>);

impl<T> KeepProbe<T> {
    /// The probe of `T`.
    pub const fn new() -> Self {
        KeepProbe(PhantomData)
    }
}

impl<T> Default for KeepProbe<T> {
    fn default() -> Self {
        KeepProbe::new()
    }
}

/// The answer of [`KeepProbe`] for a type that can be kept.
pub trait CanKeep<T> {
    /// Its `Keeper`.
    fn keeper(&self) -> Option<Keeper<T>>;
}

impl<T: Any + Send> CanKeep<T> for KeepProbe<T> {
    fn keeper(&self) -> Option<Keeper<T>> {
        Some(Keeper::new())
    }
}

/// The answer of [`KeepProbe`] for a type that cannot be kept.
pub trait CannotKeep<T> {
    /// None.
    fn keeper(&self) -> Option<Keeper<T>> {
        None
    }
}

impl<T> CannotKeep<T> for &KeepProbe<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_taken_back_only_for_the_content_it_was_read_from() {
        let mut typed = TypedSections::default();
        typed.put(2, "41", 41_u32, None, Keeper::new());
        assert_eq!(format!("{typed:?}"), r#"{2: "41"}"#);
        assert_eq!(typed.take(2, "42", Keeper::<u32>::new()), None);
        // A content that differs leaves the slot as it was.
        assert_eq!(typed.take(2, "41", Keeper::<u32>::new()), Some((41, None)));
        assert_eq!(typed.take(2, "41", Keeper::<u32>::new()), None);
        assert_eq!(typed.take(7, "41", Keeper::<u32>::new()), None);
    }

    #[test]
    fn a_newer_store_wins_where_both_hold_a_section() {
        let mut older = TypedSections::default();
        older.put(0, "a", "old a".to_string(), None, Keeper::new());
        older.put(1, "b", "old b".to_string(), None, Keeper::new());
        let mut newer = TypedSections::default();
        newer.put(1, "B", "new b".to_string(), None, Keeper::new());
        older.absorb(newer);
        assert_eq!(format!("{older:?}"), r#"{0: "a", 1: "B"}"#);
        let keeper = Keeper::<String>::new();
        assert_eq!(older.take(1, "B", keeper), Some(("new b".into(), None)));
        assert_eq!(older.take(0, "a", keeper), Some(("old a".into(), None)));
    }

    #[test]
    fn the_probe_keeps_send_types_only() {
        #[allow(unused_imports)]
        use super::{CanKeep as _, CannotKeep as _};
        // As generated code asks: through a reference, so that a type that
        // cannot be kept finds the answer of `&KeepProbe`.
        let (kept, not_kept) = (
            KeepProbe::<Vec<String>>::new(),
            KeepProbe::<std::rc::Rc<str>>::new(),
        );
        let (kept, not_kept) = (&kept, &not_kept);
        assert!(kept.keeper().is_some());
        assert!(not_kept.keeper().is_none());
    }
}
