use crate::error::KvError;
use crate::value::Value;

/// One request of the line protocol.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Get(String),
    Set(String, Value),
    Delete(String),
    Exists(String),
    Keys(Option<String>),
    Stats,
}

impl Command {
    /// Parse `SET key value`, `GET key`, ... Command names are case-insensitive.
    pub fn parse(line: &str) -> Result<Command, KvError> {
        let mut parts = line.split_whitespace();
        let name = parts.next().ok_or(KvError::EmptyCommand)?;
        let mut arg = |what: &'static str| {
            parts
                .next()
                .map(str::to_string)
                .ok_or(KvError::MissingArgument(what))
        };
        match name.to_ascii_uppercase().as_str() {
            "GET" => Ok(Command::Get(arg("key")?)),
            "SET" => {
                let key = arg("key")?;
                let value = arg("value")?;
                Ok(Command::Set(key, Value::parse(&value)))
            }
            "DEL" | "DELETE" => Ok(Command::Delete(arg("key")?)),
            "EXISTS" => Ok(Command::Exists(arg("key")?)),
            "KEYS" => Ok(Command::Keys(arg("prefix").ok())),
            "STATS" => Ok(Command::Stats),
            _ => Err(KvError::UnknownCommand(name.to_string())),
        }
    }

    /// Whether the command changes the store (and so must be logged).
    pub fn is_write(&self) -> bool {
        matches!(self, Command::Set(..) | Command::Delete(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_set() {
        assert_eq!(
            Command::parse("set answer 42").unwrap(),
            Command::Set("answer".into(), Value::Int(42))
        );
    }

    #[test]
    fn rejects_unknown() {
        assert!(matches!(
            Command::parse("FLY away"),
            Err(KvError::UnknownCommand(_))
        ));
    }
}
