use twr_runtime::Sections;

// Takes `&str`, but the field is a `u32`.
fn check_weeks(text: &str) -> Result<(), String> {
    if text.is_empty() {
        Err("empty".to_owned())
    } else {
        Ok(())
    }
}

#[derive(Sections)]
struct Plan {
    #[section(validate = check_weeks)]
    weeks: u32,
}

fn main() {}
