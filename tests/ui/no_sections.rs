use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(skip)]
    cache: Vec<String>,
}

fn main() {}
