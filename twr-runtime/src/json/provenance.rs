//! Which JSON sections of a reply needed more than a plain parse, for the
//! retry loop's ledger.
//!
//! `Sections::parse_sections` returns only the value or the feedback, so the
//! JSON layer and repairs of each `#[section(json)]` field travel on a side
//! channel: while the loop parses a reply inside [`collect`], every
//! successful extraction on this thread is recorded with the header of the
//! section being read. Outside [`collect`] recording costs one thread-local
//! check and keeps nothing.

use std::cell::{Cell, RefCell};

use super::report::Report;

/// How the JSON of one section (or of a whole reply read with
/// [`extract`](super::extract)) was obtained.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct JsonProvenance {
    /// The section's header (`[Budget]`); empty when the JSON was read from
    /// the reply as a whole, by a parser of your own.
    pub header: &'static str,
    /// The layer that found the value and the repairs applied.
    pub report: Report,
}

thread_local! {
    static SECTION: Cell<&'static str> = const { Cell::new("") };
    static SINK: RefCell<Option<Vec<JsonProvenance>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns, beside its result, every extraction it made.
/// Nested calls each keep their own record.
pub(crate) fn collect<R>(f: impl FnOnce() -> R) -> (R, Vec<JsonProvenance>) {
    /// Puts the outer record back even if `f` panics.
    struct Restore(Option<Vec<JsonProvenance>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            SINK.with(|sink| *sink.borrow_mut() = outer);
        }
    }
    let _restore = Restore(SINK.with(|sink| sink.replace(Some(Vec::new()))));
    let result = f();
    let mine = SINK
        .with(|sink| sink.borrow_mut().take())
        .unwrap_or_default();
    (result, mine)
}

/// Runs `f` as the reading of the section `header`.
pub(crate) fn in_section<R>(header: &'static str, f: impl FnOnce() -> R) -> R {
    let outer = SECTION.with(|section| section.replace(header));
    let result = f();
    SECTION.with(|section| section.set(outer));
    result
}

/// Records a successful extraction, when a [`collect`] is running.
pub(crate) fn record(report: &Report) {
    SINK.with(|sink| {
        if let Some(records) = sink.borrow_mut().as_mut() {
            records.push(JsonProvenance {
                header: SECTION.with(Cell::get),
                report: report.clone(),
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Layer, Repair};

    fn report(layer: Layer) -> Report {
        Report {
            layer,
            repairs: vec![Repair::TrailingComma],
        }
    }

    #[test]
    fn records_only_inside_collect_with_the_current_section() {
        record(&report(Layer::AsIs));
        let ((), records) = collect(|| {
            in_section("[Budget]", || record(&report(Layer::Repair)));
            record(&report(Layer::Fence));
        });
        assert_eq!(
            records,
            [
                JsonProvenance {
                    header: "[Budget]",
                    report: report(Layer::Repair)
                },
                JsonProvenance {
                    header: "",
                    report: report(Layer::Fence)
                },
            ]
        );
    }

    #[test]
    fn nested_collects_keep_their_own_records() {
        let (inner, outer) = collect(|| {
            record(&report(Layer::Scan));
            let ((), inner) = collect(|| record(&report(Layer::Fence)));
            inner
        });
        assert_eq!(inner.len(), 1);
        assert_eq!(inner[0].report.layer, Layer::Fence);
        assert_eq!(outer.len(), 1);
        assert_eq!(outer[0].report.layer, Layer::Scan);
    }
}
