//! What one shard of a load run tells the process that merges the run (issue "The emulated
//! client at wire speed": `vex load --shards`): one JSON object a line, progress while it
//! runs, and at its end its samples and what the shard's process used. The histograms
//! travel whole, in HdrHistogram's V2 encoding (base64), so the merged percentiles are
//! those of every sample, not averages of each shard's.

use crate::load_figures::{ProcessSamples, ProcessUse, Samples, Series};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::serialization::{Deserializer, Serializer, V2Serializer};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::net::SocketAddrV4;
use std::time::SystemTime;
use vex_fake_client::Rule;

/// One line a shard writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShardLine {
    /// Where the shard stands, once a second.
    Progress {
        /// Join results so far.
        joins: u64,
        /// Violations so far.
        violations: u64,
    },
    /// Everything it recorded, and what its process used, at its end.
    End {
        /// What its clients recorded.
        samples: Box<SamplesLine>,
        /// What the shard's process used: it measures itself, as its last moments are
        /// out of reach of another process once it has exited.
        used: ProcessUse,
    },
}

/// [`Samples`] as a line carries them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplesLine {
    latency: BTreeMap<String, String>,
    keepalive_jitter: String,
    keepalive_worst: Option<(u64, SystemTime)>,
    message_1_after_leave: u64,
    client_timer_late: String,
    violations: BTreeMap<String, u64>,
    examples: Vec<(String, String)>,
    failures: Vec<String>,
    lives: u64,
    joins: u64,
    peer_associated: u64,
    peer_in_group_session: u64,
    frames_sent: u64,
    frames_received: u64,
    per_process: Vec<ProcessLine>,
}

/// [`ProcessSamples`] as a line carries them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ProcessLine {
    address: SocketAddrV4,
    lives: u64,
    joins: u64,
    join: String,
}

/// Why a shard's line cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum ShardLineError {
    /// Not a line of this shape.
    #[error("not a shard's line: {0}")]
    Json(#[from] serde_json::Error),
    /// A histogram that is not base64.
    #[error("a histogram that is not base64: {0}")]
    Base64(#[from] base64::DecodeError),
    /// A histogram that does not decode.
    #[error("a histogram that does not decode: {0:?}")]
    Histogram(hdrhistogram::serialization::DeserializeError),
    /// A rule id this build does not know: the shard ran another version of Vex.
    #[error("rule {0} is not one this vex knows: the shard ran another version")]
    UnknownRule(String),
}

impl ShardLine {
    /// The line as JSON, without its newline.
    pub fn to_json(&self) -> String {
        // a map of strings and numbers always serializes
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads one line.
    pub fn from_json(line: &str) -> Result<Self, ShardLineError> {
        Ok(serde_json::from_str(line)?)
    }
}

impl SamplesLine {
    /// `samples` as a line carries them.
    pub fn of(samples: &Samples) -> Self {
        Self {
            latency: samples
                .latency
                .iter()
                .map(|(name, s)| (name.to_string(), encode(s)))
                .collect(),
            keepalive_jitter: encode(&samples.keepalive_jitter),
            keepalive_worst: samples.keepalive_worst,
            message_1_after_leave: samples.message_1_after_leave,
            client_timer_late: encode(&samples.client_timer_late),
            violations: samples
                .violations
                .iter()
                .map(|(rule, n)| (rule.id().to_string(), *n))
                .collect(),
            examples: samples
                .examples
                .iter()
                .map(|(rule, line)| (rule.id().to_string(), line.clone()))
                .collect(),
            failures: samples.failures.clone(),
            lives: samples.lives,
            joins: samples.joins,
            peer_associated: samples.peer_associated,
            peer_in_group_session: samples.peer_in_group_session,
            frames_sent: samples.frames_sent,
            frames_received: samples.frames_received,
            per_process: samples
                .per_process
                .iter()
                .map(|(address, p)| ProcessLine {
                    address: *address,
                    lives: p.lives,
                    joins: p.joins,
                    join: encode(&p.join),
                })
                .collect(),
        }
    }

    /// The samples the line carries.
    pub fn samples(&self) -> Result<Samples, ShardLineError> {
        let mut latency = BTreeMap::new();
        for (name, s) in &self.latency {
            latency.insert(Cow::Owned(name.clone()), decode(s)?);
        }
        let mut violations = BTreeMap::new();
        for (id, n) in &self.violations {
            violations.insert(rule_of(id)?, *n);
        }
        let mut examples = Vec::new();
        for (id, line) in &self.examples {
            examples.push((rule_of(id)?, line.clone()));
        }
        let mut per_process = BTreeMap::new();
        for p in &self.per_process {
            let samples = ProcessSamples {
                lives: p.lives,
                joins: p.joins,
                join: decode(&p.join)?,
            };
            per_process.insert(p.address, samples);
        }
        Ok(Samples {
            latency,
            keepalive_jitter: decode(&self.keepalive_jitter)?,
            keepalive_worst: self.keepalive_worst,
            message_1_after_leave: self.message_1_after_leave,
            client_timer_late: decode(&self.client_timer_late)?,
            violations,
            examples,
            failures: self.failures.clone(),
            lives: self.lives,
            joins: self.joins,
            peer_associated: self.peer_associated,
            peer_in_group_session: self.peer_in_group_session,
            frames_sent: self.frames_sent,
            frames_received: self.frames_received,
            per_process,
        })
    }
}

/// The rule `id` names.
fn rule_of(id: &str) -> Result<Rule, ShardLineError> {
    Rule::from_id(id).ok_or_else(|| ShardLineError::UnknownRule(id.to_string()))
}

/// `series` in the V2 encoding, as base64.
fn encode(series: &Series) -> String {
    let mut bytes = Vec::new();
    // writing to a Vec does not fail, and the series' counts are in range
    let _ = V2Serializer::new().serialize(series.histogram(), &mut bytes);
    STANDARD.encode(bytes)
}

/// The series `text` encodes, in a series of the usual range.
fn decode(text: &str) -> Result<Series, ShardLineError> {
    let bytes = STANDARD.decode(text)?;
    let histogram: hdrhistogram::Histogram<u64> = Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(ShardLineError::Histogram)?;
    let mut series = Series::default();
    series.merge(&histogram);
    Ok(series)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Samples with something in every field.
    fn full(seed: u64) -> Samples {
        let mut s = Samples::default();
        for us in 1..=200 {
            s.latency
                .entry(Cow::Borrowed("join"))
                .or_default()
                .record(us * 1_000 * seed);
            s.keepalive_jitter.record(us * 100 + seed);
            s.client_timer_late.record(us * 10);
        }
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_000 + seed);
        s.keepalive(50_000 * seed, at);
        s.message_1_after_leave = seed;
        s.violation(Rule::Link03, format!("client {seed}: late"));
        s.failures.push(format!("failure {seed}"));
        (s.lives, s.joins, s.frames_sent, s.frames_received) = (seed, 2 * seed, 30, 40);
        (s.peer_associated, s.peer_in_group_session) = (seed, seed);
        let address = SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, 30_000);
        let p = s.per_process.entry(address).or_default();
        (p.lives, p.joins) = (seed, seed);
        p.join.record(5_000 * seed);
        s
    }

    fn through_a_line(samples: &Samples) -> Samples {
        let used = ProcessUse {
            cpu_s: 1.5,
            rss_warm_mib: 10.0,
            rss_end_mib: 11.0,
            rss_max_mib: 12.0,
        };
        let samples = Box::new(SamplesLine::of(samples));
        let line = ShardLine::End { samples, used }.to_json();
        let ShardLine::End {
            samples,
            used: read,
        } = ShardLine::from_json(&line).unwrap()
        else {
            panic!("not an end: {line}");
        };
        assert_eq!(read, used);
        samples.samples().unwrap()
    }

    /// Every field survives the line: read back, the samples give the same line, and the
    /// same figures.
    #[test]
    fn samples_survive_a_line() {
        let samples = full(3);
        let read = through_a_line(&samples);
        assert_eq!(SamplesLine::of(&read), SamplesLine::of(&samples));
        assert_eq!(read.series(), samples.series());
        assert_eq!(read.violations, samples.violations);
        assert_eq!(read.keepalive_worst, samples.keepalive_worst);
    }

    /// Two shards merged through their lines give the figures of one run that recorded
    /// both: the percentiles of every sample, counts summed, the later worst keepalive.
    #[test]
    fn shards_merged_through_lines_are_one_run() {
        let (a, b) = (full(1), full(2));
        let mut whole = a.clone();
        whole.merge(&b);
        let mut merged = through_a_line(&a);
        merged.merge(&through_a_line(&b));
        assert_eq!(merged.series(), whole.series());
        assert_eq!(SamplesLine::of(&merged), SamplesLine::of(&whole));
        assert_eq!(merged.lives, 3);
        assert_eq!(merged.violations[&Rule::Link03], 2);
        assert_eq!(merged.keepalive_worst, b.keepalive_worst, "the later one");
        let join = merged.latency["join"].percentiles();
        assert_eq!(join.count, 400);
        assert!((join.max_ms - 400.0).abs() < 0.5, "{join:?}");
    }

    /// A line that is not a shard's, a histogram that is not base64 or does not decode,
    /// and a rule this build does not know are each an error, not a panic.
    #[test]
    fn a_bad_line_is_an_error() {
        assert!(ShardLine::from_json("{\"progress\":{}}").is_err());
        let good = SamplesLine::of(&full(1));
        let mut bad = good.clone();
        bad.keepalive_jitter = "not base64!".into();
        assert!(matches!(bad.samples(), Err(ShardLineError::Base64(_))));
        let mut bad = good.clone();
        bad.keepalive_jitter = STANDARD.encode([1, 2, 3]);
        assert!(matches!(bad.samples(), Err(ShardLineError::Histogram(_))));
        let mut bad = good;
        bad.violations.insert("LINK-99".into(), 1);
        assert!(matches!(bad.samples(), Err(ShardLineError::UnknownRule(_))));
    }
}
