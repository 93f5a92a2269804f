//! Fuzzes the JSON layers and the repair pass through the public API.
//!
//! Run with `cargo fuzz run repair` (cargo-fuzz; `RUSTC_BOOTSTRAP=1` lets a
//! stable toolchain build it). Checks: no input panics; valid JSON comes back
//! exactly as serde_json reads it; whatever is returned is a value that reads
//! back unchanged.
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
    }
    if let Ok(got) = extracted {
        let again = twr_runtime::json::extract_value(&got.value.to_string())
            .expect("a returned value must read back");
        assert_eq!(again, got.value);
    }
    // A typed target walks the shape-error paths too.
    let _ = twr_runtime::json::extract::<Vec<u32>>(text);
});
