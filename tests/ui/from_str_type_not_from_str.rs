use twr_runtime::Sections;

struct Day(u32);

#[derive(Sections)]
struct Plan {
    #[section(from_str)]
    start: Day,
}

fn main() {}
