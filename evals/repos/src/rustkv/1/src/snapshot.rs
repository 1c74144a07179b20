//! Save the store to a file and load it back, one `key<TAB>value` line per entry.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use crate::error::KvError;
use crate::store::Store;
use crate::value::Value;

pub fn save(store: &Store, path: &Path) -> Result<usize, KvError> {
    let file = File::create(path)?;
    let mut out = BufWriter::new(file);
    let mut count = 0;
    for (key, value) in store.entries() {
        let raw = match value {
            Value::Text(s) => s.clone(),
            other => other.to_string(),
        };
        writeln!(out, "{}\t{}", key, raw)?;
        count += 1;
    }
    out.flush()?;
    Ok(count)
}

pub fn load(path: &Path) -> Store {
    let file = File::open(path).unwrap();
    let reader = BufReader::new(file);
    let mut store = Store::new();
    for line in reader.lines() {
        let line = line.unwrap();
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, raw) = line.split_once('\t').unwrap();
        store.set(key.to_string(), Value::parse(raw));
    }
    store
}
