use std::fmt;

/// Counters reported by the `STATS` command.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub reads: u64,
    pub writes: u64,
    pub hits: u64,
    pub misses: u64,
}

impl Stats {
    pub fn new() -> Self {
        Stats {
            reads: 0,
            writes: 0,
            hits: 0,
            misses: 0,
        }
    }

    pub fn hit_rate(&self) -> f64 {
        if self.reads == 0 {
            0.0
        } else {
            self.hits as f64 / self.reads as f64
        }
    }

    pub fn record_read(&mut self, hit: bool) {
        self.reads += 1;
        if hit {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
    }
}

impl Default for Stats {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "reads={} writes={} hits={} misses={} hit_rate={:.2}",
            self.reads,
            self.writes,
            self.hits,
            self.misses,
            self.hit_rate()
        )
    }
}
