use twr_runtime::Sections;

#[derive(Sections)]
union Plan {
    weeks: u32,
    days: u32,
}

fn main() {}
