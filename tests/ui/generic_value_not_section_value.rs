use twr_runtime::Sections;

// A generic wrapper: its parameter is a section's value, so what the type
// given for it must implement is what a section's value does.
#[derive(Debug, Sections)]
struct Wrapper<T> {
    value: T,
}

struct Opaque;

fn parse<T: Sections>(raw: &str) -> Option<T> {
    T::parse_sections(raw).ok()
}

fn main() {
    let _ = parse::<Wrapper<Opaque>>("[Value]\nx");
}
