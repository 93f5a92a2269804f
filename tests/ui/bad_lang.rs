use twr_runtime::Sections;

#[derive(Sections)]
#[sections(lang = "fr")]
struct Plan {
    steps: String,
}

fn main() {}
