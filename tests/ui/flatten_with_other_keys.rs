use twr_runtime::Sections;

#[derive(Sections)]
struct Customer {
    name: String,
}

#[derive(Sections)]
struct Ticket {
    summary: String,
    #[section(flatten, header = "[Customer]", default)]
    customer: Customer,
}

fn main() {}
