use twr_runtime::Sections;

#[derive(Sections)]
struct Address {
    street: String,
    city: String,
}

// A field whose type derives Sections, without #[section(flatten)].
#[derive(Sections)]
struct Person {
    name: String,
    address: Address,
}

fn main() {}
