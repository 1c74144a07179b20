use std::collections::BTreeMap;

use crate::command::Command;
use crate::error::KvError;
use crate::stats::Stats;
use crate::value::Value;

/// The store: an ordered map plus usage counters.
#[derive(Debug, Default)]
pub struct Store {
    entries: BTreeMap<String, Value>,
    stats: Stats,
}

impl Store {
    pub fn new() -> Self {
        Store {
            entries: BTreeMap::new(),
            stats: Stats::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&mut self, key: &str) -> Result<&Value, KvError> {
        let found = self.entries.get(key);
        self.stats.record_read(found.is_some());
        found.ok_or_else(|| KvError::NotFound(key.to_string()))
    }

    pub fn set(&mut self, key: String, value: Value) -> Option<Value> {
        self.stats.writes += 1;
        self.entries.insert(key, value)
    }

    pub fn delete(&mut self, key: &str) -> Result<Value, KvError> {
        self.stats.writes += 1;
        self.entries
            .remove(key)
            .ok_or_else(|| KvError::NotFound(key.to_string()))
    }

    pub fn keys_with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a String> {
        self.entries.keys().filter(move |k| k.starts_with(prefix))
    }

    pub fn entries(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.entries.iter()
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Run one command and format the protocol reply.
    pub fn execute(&mut self, command: Command) -> Result<String, KvError> {
        match command {
            Command::Get(key) => Ok(self.get(&key)?.to_string()),
            Command::Set(key, value) => match self.set(key, value) {
                Some(old) => Ok(format!("OK (was {})", old)),
                None => Ok("OK".to_string()),
            },
            Command::Delete(key) => {
                self.delete(&key)?;
                Ok("OK".to_string())
            }
            Command::Exists(key) => Ok(self.entries.contains_key(&key).to_string()),
            Command::Keys(prefix) => {
                let prefix = prefix.unwrap_or_default();
                let keys: Vec<&str> = self.keys_with_prefix(&prefix).map(String::as_str).collect();
                Ok(keys.join(" "))
            }
            Command::Stats => Ok(self.stats.to_string()),
        }
    }
}
