use twr_runtime::Sections;

struct Why;

fn check_steps(steps: &String) -> Result<(), Why> {
    if steps.is_empty() {
        Err(Why)
    } else {
        Ok(())
    }
}

#[derive(Sections)]
struct Plan {
    #[section(validate = check_steps)]
    steps: String,
}

fn main() {}
