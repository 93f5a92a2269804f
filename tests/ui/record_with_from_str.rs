use twr_runtime::Sections;

#[derive(serde::Deserialize)]
struct Meta {
    number: String,
}

impl std::str::FromStr for Meta {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(Meta { number: s.to_owned() })
    }
}

#[derive(Sections)]
struct Order {
    #[section(record, from_str)]
    meta: Meta,
}

fn main() {}
