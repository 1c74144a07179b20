//! rustkv: an in-memory key-value store driven by a small text protocol.

pub mod command;
pub mod error;
pub mod snapshot;
pub mod stats;
pub mod store;
pub mod value;

pub use command::Command;
pub use error::KvError;
pub use stats::Stats;
pub use store::Store;
pub use value::Value;

/// Parse one protocol line and run it against `store`.
pub fn handle_line(store: &mut Store, line: &str) -> Result<String, KvError> {
    let command = Command::parse(line)?;
    store.execute(command)
}
