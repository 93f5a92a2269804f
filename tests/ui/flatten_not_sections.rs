use twr_runtime::Sections;

struct Customer {
    name: String,
}

#[derive(Sections)]
struct Ticket {
    summary: String,
    #[section(flatten)]
    customer: Customer,
}

fn main() {}
