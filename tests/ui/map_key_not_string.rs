use std::collections::{BTreeMap, HashMap};

use twr_runtime::Sections;

#[derive(Sections)]
struct Scores {
    by_day: HashMap<u32, String>,
    by_name: BTreeMap<String, u32>,
    by_char: BTreeMap<char, u32>,
}

fn main() {}
