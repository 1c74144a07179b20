use std::fmt;
use std::io;

/// Everything that can go wrong while parsing or executing a command.
#[derive(Debug)]
pub enum KvError {
    EmptyCommand,
    UnknownCommand(String),
    MissingArgument(&'static str),
    NotFound(String),
    InvalidValue(String),
    Io(io::Error),
}

impl fmt::Display for KvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KvError::EmptyCommand => write!(f, "empty command"),
            KvError::UnknownCommand(name) => write!(f, "unknown command `{}`", name),
            KvError::MissingArgument(what) => write!(f, "missing argument: {}", what),
            KvError::NotFound(key) => write!(f, "no such key: {}", key),
            KvError::InvalidValue(text) => write!(f, "invalid value: {}", text),
            KvError::Io(err) => write!(f, "i/o error: {}", err),
        }
    }
}

impl std::error::Error for KvError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KvError::Io(err) => Some(err),
            _ => None,
        }
    }
}

impl From<io::Error> for KvError {
    fn from(err: io::Error) -> Self {
        KvError::Io(err)
    }
}

impl KvError {
    /// A short machine-readable code for the protocol's `ERR <code>` replies.
    pub fn code(&self) -> &'static str {
        match self {
            KvError::EmptyCommand | KvError::UnknownCommand(_) => "syntax",
            KvError::MissingArgument(_) => "args",
            KvError::NotFound(_) => "notfound",
            KvError::InvalidValue(_) => "value",
            KvError::Io(_) => "io",
        }
    }
}
