use std::fmt;

use crate::error::KvError;

/// A stored value. Text that looks like a number or a boolean is stored typed.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Text(String),
}

impl Value {
    pub fn parse(raw: &str) -> Value {
        if let Ok(n) = raw.parse::<i64>() {
            return Value::Int(n);
        }
        match raw {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::Text(raw.to_string()),
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "int",
            Value::Bool(_) => "bool",
            Value::Text(_) => "text",
        }
    }

    pub fn as_int(&self) -> Result<i64, KvError> {
        match self {
            Value::Int(n) => Ok(*n),
            other => Err(KvError::InvalidValue(format!(
                "expected an int, found {}",
                other.type_name()
            ))),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{}", n),
            Value::Bool(b) => write!(f, "{}", b),
            Value::Text(s) => write!(f, "{:?}", s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_typed_values() {
        assert_eq!(Value::parse("42"), Value::Int(42));
        assert_eq!(Value::parse("true"), Value::Bool(true));
        assert_eq!(Value::parse("hello"), Value::Text("hello".into()));
    }
}
