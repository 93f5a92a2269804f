use twr_runtime::Sections;

#[derive(Sections)]
struct Customer {
    name: String,
}

#[derive(Sections)]
struct Ticket {
    summary: String,
    #[section(flatten)]
    customer: Option<Customer>,
}

fn main() {}
