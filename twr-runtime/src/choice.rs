//! The [`Choice`] trait: an enum read from one of a fixed set of words.

/// A fieldless enum whose variants are matched from text, ignoring case and
/// surrounding punctuation. Derive it with `#[derive(Choice)]`.
pub trait Choice: Sized + 'static {
    /// The allowed values, as shown to the model, in declaration order.
    const VARIANTS: &'static [&'static str];

    /// The variant named by `text`, if any.
    fn from_choice(text: &str) -> Option<Self>;

    /// The name of this variant as shown to the model.
    fn as_choice(&self) -> &'static str;
}
