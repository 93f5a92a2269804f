use std::collections::HashSet;

use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    steps: String,
    budget: HashSet<String>,
}

fn main() {}
