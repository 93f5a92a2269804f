//! A JSON number twr returns reads back as itself: the value its digits
//! spell, correctly rounded, whichever layer found it.

use proptest::prelude::*;
use twr_runtime::json::{extract, extract_value, extract_value_with_report, Layer};

/// 33 digits whose nearest double is 4.15879222790247e32; a parser that is
/// not correctly rounded returns the double one unit below it.
const LONG: &str = "415879222790246972899281402888175";

#[test]
fn a_long_numeral_is_read_correctly_rounded() {
    let want: f64 = LONG.parse().unwrap();
    assert_eq!(want, 4.15879222790247e32);
    assert_eq!(extract::<f64>(LONG).unwrap(), want);
    assert_eq!(extract_value(LONG).unwrap().as_f64(), Some(want));
    // Through the scan and the repair layers as well.
    let got = extract_value_with_report(&format!("The value is [{LONG}].")).unwrap();
    assert_eq!(got.report.layer, Layer::Scan);
    assert_eq!(got.value[0].as_f64(), Some(want));
    let got = extract_value_with_report(&format!("{{'n': {LONG},}}")).unwrap();
    assert_eq!(got.report.layer, Layer::Repair);
    assert_eq!(got.value["n"].as_f64(), Some(want));
}

proptest! {
    #[test]
    fn every_numeral_reads_back_as_the_nearest_double(
        int in "[1-9][0-9]{0,40}",
        frac in proptest::option::of("[0-9]{1,30}"),
        exp in proptest::option::of(-330i32..330),
    ) {
        let mut text = int;
        if let Some(frac) = frac {
            text.push('.');
            text.push_str(&frac);
        }
        if let Some(exp) = exp {
            text.push_str(&format!("e{exp}"));
        }
        let want: f64 = text.parse().unwrap();
        prop_assume!(want.is_finite());
        let got = extract::<f64>(&text).unwrap();
        prop_assert_eq!(got.to_bits(), want.to_bits(), "{}", text);
        let repaired = extract_value(&format!("[{text},]")).unwrap();
        prop_assert_eq!(repaired[0].as_f64().map(f64::to_bits), Some(want.to_bits()), "{}", text);
    }
}
