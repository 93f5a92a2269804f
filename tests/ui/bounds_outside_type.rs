use twr_runtime::Sections;

#[derive(Sections)]
struct Reading {
    #[section(min = 0, max = 300)]
    level: u8,
    #[section(min = -1)]
    count: Option<u64>,
    #[section(min = "0")]
    share: f64,
}

fn main() {}
