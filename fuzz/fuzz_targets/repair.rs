//! Fuzzes the JSON layers and the repair pass through the public API.
//!
//! Run with `cargo fuzz run repair` (cargo-fuzz; `RUSTC_BOOTSTRAP=1` lets a
//! stable toolchain build it). Checks: no input panics or overflows the
//! stack; valid JSON comes back exactly as serde_json reads it, from the
//! first layer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let extracted = twr_runtime::json::extract_value_with_report(text);
    if let Ok(valid) = serde_json::from_str::<Value>(text) {
        let got = extracted.as_ref().expect("valid JSON must extract");
        assert_eq!(got.value, valid);
        assert_eq!(got.report.layer, twr_runtime::json::Layer::AsIs);
    }
    // A typed target walks the shape-error paths too.
    let _ = twr_runtime::json::extract::<Vec<u32>>(text);
});
