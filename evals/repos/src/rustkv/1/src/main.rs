use std::env;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use rustkv::{handle_line, snapshot, Store};

fn main() -> io::Result<()> {
    let snapshot_path = env::args().nth(1).map(PathBuf::from);
    let mut store = match &snapshot_path {
        Some(path) if path.exists() => snapshot::load(path),
        _ => Store::new(),
    };

    let stdin = io::stdin();
    let mut stdout = io::stdout();
    write!(stdout, "> ")?;
    stdout.flush()?;
    for line in stdin.lock().lines() {
        let line = line?;
        let trimmed = line.trim();
        if trimmed.eq_ignore_ascii_case("quit") {
            break;
        }
        if !trimmed.is_empty() {
            match handle_line(&mut store, trimmed) {
                Ok(reply) => writeln!(stdout, "{}", reply)?,
                Err(err) => writeln!(stdout, "ERR {} {}", err.code(), err)?,
            }
        }
        write!(stdout, "> ")?;
        stdout.flush()?;
    }

    if let Some(path) = snapshot_path {
        match snapshot::save(&store, &path) {
            Ok(count) => eprintln!("saved {} keys to {}", count, path.display()),
            Err(err) => eprintln!("could not save snapshot: {}", err),
        }
    }
    Ok(())
}
