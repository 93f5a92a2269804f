use twr_runtime::Sections;

#[derive(Sections)]
struct Plan {
    #[section(aliases = ["Schedule", "[]"])]
    timeline: String,
}

fn main() {}
