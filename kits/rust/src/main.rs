//! The sample bot as a program: `./bot [NAME]` plays one match over stdin and stdout.

use kit_rust::bot::SampleBot;
use kit_rust::runner::Runner;

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "kit-rust".to_string());
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    // A panic in decide() is caught and logged by the runner; the default hook would print it too.
    std::panic::set_hook(Box::new(|info| eprintln!("panic: {}", info)));
    if let Err(err) = Runner::new(SampleBot::new(&name)).run(stdin.lock(), stdout.lock()) {
        eprintln!("{}: {}", name, err);
    }
}
