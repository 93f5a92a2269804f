use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(aliases = ["Schedule", 7])]
    timeline: String,
}

fn main() {}
