use std::collections::HashMap;

use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    steps: String,
    budget: HashMap<String, u32>,
}

fn main() {}
