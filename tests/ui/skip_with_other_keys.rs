use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    steps: String,
    #[section(skip, header = "[Cache]", default)]
    cache: Vec<String>,
}

fn main() {}
