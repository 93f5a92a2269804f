//! [`Bounded`]: whether a number that parsed is within its section's
//! bounds (`#[section(min = 0, max = 1)]`), and what feedback says when
//! it is not.

use super::value_error::{Expected, ValueError};
use crate::vocab::Bounds;

/// A value a section's [`Bounds`] apply to: every integer and float type,
/// and a `Vec` of them (each item bounded). The derive checks a field with
/// `#[section(min = .., max = ..)]` through it after the value parsed,
/// before the field's own validator; a hand-written parser may call it
/// with its spec's bounds.
///
/// ```
/// use twr_runtime::parse::{Bounded, Expected, ValueError};
/// use twr_runtime::sections::Bounds;
///
/// let bounds = Bounds::new(Some("0"), Some("1"));
/// assert_eq!(0.5f64.check_bounds(&bounds), Ok(()));
/// assert_eq!(
///     1.25f64.check_bounds(&bounds).unwrap_err().to_string(),
///     "expected a single number from 0 to 1, found '1.25'"
/// );
/// assert_eq!(
///     vec![1u8, 7].check_bounds(&Bounds::new(None, Some("5"))),
///     Err(ValueError::BadItem {
///         index: 2,
///         item: "7".into(),
///         expected: Expected::Within { whole: true, min: None, max: Some("5".into()) },
///     })
/// );
/// ```
pub trait Bounded {
    /// `Ok` when the value is within `bounds`; otherwise what it should
    /// have been and what it is ([`ValueError::Invalid`], or
    /// [`ValueError::BadItem`] naming the first item outside).
    fn check_bounds(&self, bounds: &Bounds) -> Result<(), ValueError>;
}

macro_rules! bounded {
    ($whole:expr => $($t:ty),*) => {$(
        impl Bounded for $t {
            fn check_bounds(&self, bounds: &Bounds) -> Result<(), ValueError> {
                if bounds.contains(*self) {
                    Ok(())
                } else {
                    Err(ValueError::invalid(
                        Expected::within($whole, bounds),
                        &self.to_string(),
                    ))
                }
            }
        }
    )*};
}

bounded!(true => u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
bounded!(false => f32, f64);

impl<T: Bounded> Bounded for Vec<T> {
    fn check_bounds(&self, bounds: &Bounds) -> Result<(), ValueError> {
        for (position, item) in self.iter().enumerate() {
            if let Err(ValueError::Invalid { expected, found }) = item.check_bounds(bounds) {
                return Err(ValueError::BadItem {
                    index: position + 1,
                    item: found,
                    expected,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_reads_the_bound_in_its_own_type() {
        // 0.1 as an f32 is above 0.1 as an f64; bounded at "0.1", an f32
        // of 0.1 is within.
        let max = Bounds::new(None, Some("0.1"));
        assert_eq!(0.1f32.check_bounds(&max), Ok(()));
        assert_eq!(0.1f64.check_bounds(&max), Ok(()));
        assert_eq!(
            0.100001f32.check_bounds(&max),
            Err(ValueError::invalid(
                Expected::Within {
                    whole: false,
                    min: None,
                    max: Some("0.1".into())
                },
                "0.100001"
            ))
        );
    }

    #[test]
    fn bounds_are_included_and_may_be_open() {
        let bounds = Bounds::new(Some("-2"), Some("5"));
        for value in [-2i32, 0, 5] {
            assert_eq!(value.check_bounds(&bounds), Ok(()), "{value}");
        }
        assert_eq!(
            6i32.check_bounds(&bounds),
            Err(ValueError::invalid(
                Expected::WholeNumberBetween {
                    min: "-2".into(),
                    max: "5".into()
                },
                "6"
            ))
        );
        assert_eq!(
            (-2018f64).check_bounds(&Bounds::new(Some("0"), None)),
            Err(ValueError::invalid(
                Expected::Within {
                    whole: false,
                    min: Some("0".into()),
                    max: None
                },
                "-2018"
            ))
        );
        assert_eq!(u64::MAX.check_bounds(&Bounds::NONE), Ok(()));
    }
}
