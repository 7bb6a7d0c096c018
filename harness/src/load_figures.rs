//! What a load run measured (issue "Under load and faults": joins per second, latency
//! percentiles per message, keepalive jitter, violations by rule, memory and CPU), each
//! figure named with its unit for `vex load --json`.

use crate::load_machine::MachineUse;
use hdrhistogram::Histogram;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::net::SocketAddrV4;
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;
use vex_fake_client::Rule;

/// How many violations a run keeps word for word, as examples, besides the first of each
/// rule.
const EXAMPLES: usize = 10;

/// One latency series, in microseconds.
#[derive(Debug, Clone)]
pub struct Series(Histogram<u64>);

/// The largest sample a series holds apart, in microseconds (an hour); a larger one counts
/// as an hour.
const HIGHEST_MICROS: u64 = 3_600_000_000;

impl Default for Series {
    /// One microsecond to an hour, to three significant figures.
    #[allow(clippy::expect_used)] // the bounds are constants that `new_with_bounds` takes
    fn default() -> Self {
        Self(Histogram::new_with_bounds(1, HIGHEST_MICROS, 3).expect("bounds in range"))
    }
}

impl Series {
    /// Adds one sample of `micros`.
    pub fn record(&mut self, micros: u64) {
        self.0.saturating_record(micros);
    }

    /// Adds every sample of `other`, one past this series' range counting as an hour.
    pub fn merge(&mut self, other: &Histogram<u64>) {
        for v in other.iter_recorded() {
            self.0
                .saturating_record_n(v.value_iterated_to(), v.count_at_value());
        }
    }

    /// The samples themselves.
    pub fn histogram(&self) -> &Histogram<u64> {
        &self.0
    }

    /// The samples' count and percentiles.
    pub fn percentiles(&self) -> Percentiles {
        let ms = |us: u64| us as f64 / 1000.0;
        Percentiles {
            count: self.0.len(),
            p50_ms: ms(self.0.value_at_quantile(0.50)),
            p99_ms: ms(self.0.value_at_quantile(0.99)),
            p999_ms: ms(self.0.value_at_quantile(0.999)),
            max_ms: ms(self.0.max()),
        }
    }
}

/// A series summed up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Percentiles {
    /// Samples.
    pub count: u64,
    /// The median, in milliseconds.
    pub p50_ms: f64,
    /// The 99th percentile, in milliseconds.
    pub p99_ms: f64,
    /// The 99.9th percentile, in milliseconds.
    pub p999_ms: f64,
    /// The largest sample, in milliseconds.
    pub max_ms: f64,
}

/// What the lives one host process was sent to recorded (service 17 named it).
#[derive(Debug, Clone, Default)]
pub struct ProcessSamples {
    /// Lives service 17 sent there.
    pub lives: u64,
    /// Join results received from it.
    pub joins: u64,
    /// The route's latency (`join`) of those lives.
    pub join: Series,
}

impl ProcessSamples {
    /// Adds `other`'s lives, joins and route latencies to these.
    pub fn merge(&mut self, other: &ProcessSamples) {
        self.lives += other.lives;
        self.joins += other.joins;
        self.join.merge(other.join.histogram());
    }
}

/// Everything the clients of a run recorded, merged.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    /// Latency series by name: `join` (the route, from the first connect to join_result),
    /// then one per request the host answers (`hello`, `host_lookup`, `session`,
    /// `join_result`, `entity_slots`, `roster_request`), and with `--peer` `association`
    /// (from the association's init to its cookie ack).
    pub latency: BTreeMap<Cow<'static, str>, Series>,
    /// How far each host keepalive (message 1) came from its 2-second interval.
    pub keepalive_jitter: Series,
    /// The latest keepalive: how late (microseconds past its 2-second interval), and when
    /// it was read (the wall clock, to find in the host's log).
    pub keepalive_worst: Option<(u64, SystemTime)>,
    /// Messages 1 read after the client sent its leave, before its next join request: sent
    /// by the host before it read the leave (it owes none after), and no keepalive of the
    /// next session.
    pub message_1_after_leave: u64,
    /// How late each client's timer fired: its task woke after the time the client asked
    /// for, as a task does when its process is busy or not scheduled.
    pub client_timer_late: Series,
    /// Violations by rule.
    pub violations: BTreeMap<Rule, u64>,
    /// Violations word for word, by rule: the first of each rule, and the first
    /// [`EXAMPLES`] of any.
    pub examples: Vec<(Rule, String)>,
    /// What went wrong in the load generator itself (a client's task that failed): an
    /// error of the tool, not a finding on the host.
    pub failures: Vec<String>,
    /// Lives begun: a life is one route into an activity and the time spent in it.
    pub lives: u64,
    /// Join results received.
    pub joins: u64,
    /// Associations opened with a group host (a cookie ack came), with `vex load --peer`;
    /// a move to another region's group host is one more.
    pub peer_associated: u64,
    /// Lives that ended in a group session: a membership-update applied with its hash.
    pub peer_in_group_session: u64,
    /// Frames sent by the clients.
    pub frames_sent: u64,
    /// Frames the clients received.
    pub frames_received: u64,
    /// By the process service 17 sent each life to.
    pub per_process: BTreeMap<SocketAddrV4, ProcessSamples>,
}

impl Samples {
    /// Adds what another part of the run recorded (a shard of `vex load --shards`, or a
    /// run's share on another machine): series merge sample by sample, counts add up, the
    /// latest keepalive is the later of the two, and examples are kept as [`Self::example`]
    /// keeps them.
    pub fn merge(&mut self, other: &Samples) {
        for (name, series) in &other.latency {
            let mine = self.latency.entry(name.clone()).or_default();
            mine.merge(series.histogram());
        }
        self.keepalive_jitter
            .merge(other.keepalive_jitter.histogram());
        if let Some((late, at)) = other.keepalive_worst {
            self.keepalive(late, at);
        }
        self.message_1_after_leave += other.message_1_after_leave;
        self.client_timer_late
            .merge(other.client_timer_late.histogram());
        for (rule, n) in &other.violations {
            *self.violations.entry(*rule).or_default() += n;
        }
        for (rule, line) in &other.examples {
            self.example(*rule, line);
        }
        self.failures.extend(other.failures.iter().cloned());
        self.lives += other.lives;
        self.joins += other.joins;
        self.peer_associated += other.peer_associated;
        self.peer_in_group_session += other.peer_in_group_session;
        self.frames_sent += other.frames_sent;
        self.frames_received += other.frames_received;
        for (address, process) in &other.per_process {
            self.per_process.entry(*address).or_default().merge(process);
        }
    }

    /// Adds a violation of `rule` described by `line`.
    pub fn violation(&mut self, rule: Rule, line: String) {
        *self.violations.entry(rule).or_default() += 1;
        self.example(rule, &line);
    }

    /// Keeps `line`, a violation of `rule`, when it is the first of its rule or one of the
    /// first [`EXAMPLES`].
    fn example(&mut self, rule: Rule, line: &str) {
        let first_of_rule = self.examples.iter().all(|(r, _)| *r != rule);
        if first_of_rule || self.examples.len() < EXAMPLES {
            self.examples.push((rule, line.to_string()));
        }
    }

    /// Adds `times` more violations of `rule`, each the same as one added before.
    pub fn violated_again(&mut self, rule: Rule, times: u64) {
        if times > 0 {
            *self.violations.entry(rule).or_default() += times;
        }
    }

    /// A keepalive `late` microseconds past its interval, read `at`.
    pub fn keepalive(&mut self, late: u64, at: SystemTime) {
        self.keepalive_jitter.record(late);
        if self.keepalive_worst.is_none_or(|(worst, _)| late > worst) {
            self.keepalive_worst = Some((late, at));
        }
    }

    /// Every series summed up, by name: the latencies, then `keepalive_jitter` and
    /// `client_timer_late`.
    pub fn series(&self) -> Vec<(String, Percentiles)> {
        self.latency
            .iter()
            .map(|(name, series)| (name.to_string(), series.percentiles()))
            .chain([
                (
                    "keepalive_jitter".to_string(),
                    self.keepalive_jitter.percentiles(),
                ),
                (
                    "client_timer_late".to_string(),
                    self.client_timer_late.percentiles(),
                ),
            ])
            .collect()
    }

    /// Violations of every rule.
    pub fn violation_count(&self) -> u64 {
        self.violations.values().sum()
    }
}

/// Every client's samples, added as they come: one set of series for the whole run.
#[derive(Debug, Default)]
pub struct Tally(Mutex<Samples>);

impl Tally {
    /// Adds to the samples.
    pub fn add(&self, f: impl FnOnce(&mut Samples)) {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner));
    }

    /// Reads the samples.
    pub fn read<T>(&self, f: impl FnOnce(&Samples) -> T) -> T {
        f(&self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The samples, leaving none.
    pub fn take(&self) -> Samples {
        std::mem::take(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// What one process used.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProcessUse {
    /// CPU time, user and system, in seconds.
    pub cpu_s: f64,
    /// Resident memory when the warm-up ended, in MiB.
    pub rss_warm_mib: f64,
    /// Resident memory at the end, in MiB.
    pub rss_end_mib: f64,
    /// The most resident memory seen, in MiB.
    pub rss_max_mib: f64,
}

impl ProcessUse {
    /// What `self` and `other` used together (the most memory: the sum of each one's most,
    /// an upper bound).
    pub fn plus(self, other: Self) -> Self {
        Self {
            cpu_s: self.cpu_s + other.cpu_s,
            rss_warm_mib: self.rss_warm_mib + other.rss_warm_mib,
            rss_end_mib: self.rss_end_mib + other.rss_end_mib,
            rss_max_mib: self.rss_max_mib + other.rss_max_mib,
        }
    }
}

/// A whole run's figures.
#[derive(Debug, Clone)]
pub struct LoadFigures {
    /// Clients run at once.
    pub clients: usize,
    /// How long the run lasted, in seconds.
    pub duration_s: f64,
    /// What the clients recorded.
    pub samples: Samples,
    /// The host's use, when it ran on this machine: every process of it summed.
    pub host: Option<ProcessUse>,
    /// Each host process's own use, when it ran on this machine, by its address.
    pub host_processes: BTreeMap<SocketAddrV4, ProcessUse>,
    /// The load generator's own use: every process of it summed.
    pub generator: ProcessUse,
    /// The load generator's processes: this one, and its `--shards`.
    pub generator_processes: usize,
    /// What the whole machine's CPUs did, where the kernel says.
    pub machine: Option<MachineUse>,
}

/// How late, at the 99th percentile, the load generator's own timers may fire before its
/// timing findings are in doubt: past it, a client may read a punctual message late, and
/// a finding on a deadline (LINK-03, AUTH-16, MEMBER-03, a snapshot's gap) may be the
/// generator's own (design "Fair verdicts").
pub const GENERATOR_LATE_MS: f64 = 100.0;

/// How much of one core, in percent, the rest of the machine (or its hypervisor) may take
/// over a run before its latencies are in doubt: past it, a slow step may be the machine's
/// as much as the host's. Vex's own line, not the pages': the runs of issue 26 on a quiet
/// machine left 6 to 12% to the rest (PostgreSQL among it).
pub const MACHINE_BUSY_PERCENT: f64 = 50.0;

impl LoadFigures {
    /// True when the rest of the machine, or its hypervisor, took more than
    /// [`MACHINE_BUSY_PERCENT`] of one core over the run.
    pub fn machine_busy(&self) -> bool {
        let steal = self.machine.map_or(0.0, |m| m.steal_cpu_s);
        let taken = self.machine_rest_cpu_s().unwrap_or(0.0).max(steal);
        self.share_of_core(taken) > MACHINE_BUSY_PERCENT
    }

    /// True when the generator could not keep up: its timers fired more than
    /// [`GENERATOR_LATE_MS`] late at the 99th percentile.
    pub fn generator_late(&self) -> bool {
        self.samples.client_timer_late.percentiles().p99_ms > GENERATOR_LATE_MS
    }

    /// Join results a second of the run.
    pub fn joins_per_s(&self) -> f64 {
        self.samples.joins as f64 / self.duration_s.max(f64::EPSILON)
    }

    /// `u`'s CPU time as a share of one core over the run, in percent.
    pub fn cpu_percent(&self, u: ProcessUse) -> f64 {
        self.share_of_core(u.cpu_s)
    }

    /// `cpu_s` seconds of CPU time as a share of one core over the run, in percent.
    pub fn share_of_core(&self, cpu_s: f64) -> f64 {
        100.0 * cpu_s / self.duration_s.max(f64::EPSILON)
    }

    /// The CPU time the machine spent on anything but the processes this run measured (the
    /// host's, when it ran here, and the generator's): other programs, a database server
    /// the host uses. Counted by different clocks (the kernel's ticks, each process's
    /// time), so a quiet machine's is near zero, not exactly.
    pub fn machine_rest_cpu_s(&self) -> Option<f64> {
        let measured = self.host.map_or(0.0, |h| h.cpu_s) + self.generator.cpu_s;
        self.machine.map(|m| (m.busy_cpu_s - measured).max(0.0))
    }

    /// The clients one core of the load generator would drive at this load, if its cost
    /// grows linearly.
    pub fn generator_clients_per_core(&self) -> f64 {
        self.clients as f64 * self.duration_s / self.generator.cpu_s.max(0.001)
    }

    /// One row per host process, by address: what the lives sent there recorded, and what
    /// the process used when it ran on this machine.
    pub fn processes(&self) -> Vec<(SocketAddrV4, ProcessSamples, Option<ProcessUse>)> {
        let addresses: std::collections::BTreeSet<SocketAddrV4> = self
            .samples
            .per_process
            .keys()
            .chain(self.host_processes.keys())
            .copied()
            .collect();
        addresses
            .into_iter()
            .map(|a| {
                let samples = self
                    .samples
                    .per_process
                    .get(&a)
                    .cloned()
                    .unwrap_or_default();
                (a, samples, self.host_processes.get(&a).copied())
            })
            .collect()
    }

    /// Every figure, named with its unit, in a fixed order: what `--json` prints.
    pub fn named(&self) -> Vec<(String, f64)> {
        let s = &self.samples;
        let mut out = vec![
            ("clients".to_string(), self.clients as f64),
            (
                "generator_processes".to_string(),
                self.generator_processes as f64,
            ),
            ("duration_s".to_string(), self.duration_s),
            ("lives".to_string(), s.lives as f64),
            ("joins".to_string(), s.joins as f64),
            ("joins_per_s".to_string(), self.joins_per_s()),
            ("frames_sent".to_string(), s.frames_sent as f64),
            ("frames_received".to_string(), s.frames_received as f64),
            ("violations".to_string(), s.violation_count() as f64),
            ("peer_associated".to_string(), s.peer_associated as f64),
            (
                "message_1_after_leave".to_string(),
                s.message_1_after_leave as f64,
            ),
            (
                "peer_in_group_session".to_string(),
                s.peer_in_group_session as f64,
            ),
        ];
        for (name, p) in s.series() {
            out.push((format!("{name}_count"), p.count as f64));
            out.push((format!("{name}_p50_ms"), p.p50_ms));
            out.push((format!("{name}_p99_ms"), p.p99_ms));
            out.push((format!("{name}_p999_ms"), p.p999_ms));
            out.push((format!("{name}_max_ms"), p.max_ms));
        }
        let processes = self
            .host
            .map(|h| ("host", h))
            .into_iter()
            .chain([("generator", self.generator)]);
        for (who, u) in processes {
            out.push((format!("{who}_cpu_s"), u.cpu_s));
            out.push((format!("{who}_cpu_percent"), self.cpu_percent(u)));
            out.push((format!("{who}_rss_warm_mib"), u.rss_warm_mib));
            out.push((format!("{who}_rss_end_mib"), u.rss_end_mib));
            out.push((format!("{who}_rss_max_mib"), u.rss_max_mib));
        }
        if let (Some(m), Some(rest)) = (self.machine, self.machine_rest_cpu_s()) {
            out.push(("machine_cores".to_string(), m.cores as f64));
            out.push(("machine_busy_cpu_s".to_string(), m.busy_cpu_s));
            out.push(("machine_rest_cpu_s".to_string(), rest));
            out.push((
                "machine_rest_cpu_percent".to_string(),
                self.share_of_core(rest),
            ));
            out.push(("machine_steal_cpu_s".to_string(), m.steal_cpu_s));
            let steal = self.share_of_core(m.steal_cpu_s);
            out.push(("machine_steal_cpu_percent".to_string(), steal));
            out.push((
                "machine_steal_peak_percent".to_string(),
                m.steal_peak_percent,
            ));
            let busy = f64::from(u8::from(self.machine_busy()));
            out.push(("machine_busy".to_string(), busy));
        }
        out.push((
            "generator_clients_per_core".to_string(),
            self.generator_clients_per_core(),
        ));
        out.push((
            "generator_late".to_string(),
            f64::from(u8::from(self.generator_late())),
        ));
        if let Some((_, at)) = s.keepalive_worst {
            let unix = at
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default();
            out.push(("keepalive_worst_at_unix_s".to_string(), unix.as_secs_f64()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_in_milliseconds() {
        let mut s = Series::default();
        for us in 1..=100 {
            s.record(us * 1000);
        }
        let p = s.percentiles();
        assert_eq!(p.count, 100);
        assert!((p.p50_ms - 50.0).abs() < 0.1, "{p:?}");
        assert!((p.p99_ms - 99.0).abs() < 0.1, "{p:?}");
        assert!((p.p999_ms - 100.0).abs() < 0.1, "{p:?}");
        assert!((p.max_ms - 100.0).abs() < 0.1, "{p:?}");
    }

    #[test]
    fn a_sample_past_the_others_range_is_kept() {
        let mut s = Series::default();
        s.record(2_000);
        s.record(25_000_000);
        s.record(0);
        let p = s.percentiles();
        assert_eq!(p.count, 3);
        assert!((p.p50_ms - 2.0).abs() < 0.01, "{p:?}");
        assert!((p.max_ms - 25_000.0).abs() < 25.0, "{p:?}");
    }

    #[test]
    fn a_tally_counts_violations_and_keeps_ten_examples_and_one_of_each_rule() {
        let tally = Tally::default();
        for i in 0..8 {
            tally.add(|s| s.violation(Rule::Link01, format!("a{i}")));
            tally.add(|s| s.violation(Rule::Link03, format!("b{i}")));
        }
        assert_eq!(tally.read(Samples::violation_count), 16);
        tally.add(|s| s.violated_again(Rule::Link03, 5));
        tally.add(|s| s.violated_again(Rule::Auth16, 0));
        let s = tally.take();
        assert_eq!(s.violations[&Rule::Link03], 13, "each repeat counts");
        assert!(
            !s.violations.contains_key(&Rule::Auth16),
            "no repeat, no entry"
        );
        assert_eq!(s.examples.len(), 10);
        let mut s = s;
        s.violation(Rule::Auth16, "c".into());
        s.violation(Rule::Auth16, "d".into());
        assert_eq!(s.examples.len(), 11, "the first of a rule is kept past ten");
        assert_eq!(s.examples[10], (Rule::Auth16, "c".into()));
        assert_eq!(tally.read(Samples::violation_count), 0, "taken");
    }

    /// The rest of the machine is its busy time less the host's and the generator's, none
    /// below zero (the clocks differ), and with no host measured (`--target`) all of it but
    /// the generator's; its figures are named only where the kernel's counters were read.
    #[test]
    fn the_rest_of_the_machine_is_what_the_run_did_not_measure() {
        let used = |cpu_s| ProcessUse {
            cpu_s,
            ..ProcessUse::default()
        };
        let machine = MachineUse {
            cores: 2,
            busy_cpu_s: 10.0,
            steal_cpu_s: 1.0,
            steal_peak_percent: 40.0,
        };
        let mut figures = LoadFigures {
            clients: 1,
            duration_s: 10.0,
            samples: Samples::default(),
            host: Some(used(6.0)),
            host_processes: BTreeMap::new(),
            generator: used(3.0),
            generator_processes: 1,
            machine: Some(machine),
        };
        let named = |f: &LoadFigures, name: &str| {
            let found = f.named().into_iter().find(|(n, _)| n == name);
            found.map(|(_, v)| v)
        };
        assert_eq!(figures.machine_rest_cpu_s(), Some(1.0));
        assert_eq!(named(&figures, "machine_busy"), Some(0.0), "10% of a core");
        assert_eq!(named(&figures, "machine_rest_cpu_percent"), Some(10.0));
        assert_eq!(named(&figures, "machine_steal_cpu_percent"), Some(10.0));
        assert_eq!(named(&figures, "machine_steal_peak_percent"), Some(40.0));
        figures.host = None;
        assert_eq!(figures.machine_rest_cpu_s(), Some(7.0));
        assert!(figures.machine_busy(), "the rest took 70% of a core");
        figures.host = Some(used(7.5));
        assert_eq!(figures.machine_rest_cpu_s(), Some(0.0), "never below zero");
        figures.machine = None;
        assert_eq!(figures.machine_rest_cpu_s(), None);
        assert_eq!(named(&figures, "machine_cores"), None);
    }

    /// The machine is busy past half a core taken by the rest of it or by its hypervisor,
    /// over the run: at 50% it is not, at 51% it is, whichever took it.
    #[test]
    fn a_machine_busy_past_half_a_core_is_named() {
        let busy_with = |rest_cpu_s: f64, steal_cpu_s: f64| {
            let figures = LoadFigures {
                clients: 1,
                duration_s: 100.0,
                samples: Samples::default(),
                host: None,
                host_processes: BTreeMap::new(),
                generator: ProcessUse::default(),
                generator_processes: 1,
                machine: Some(MachineUse {
                    cores: 2,
                    busy_cpu_s: rest_cpu_s,
                    steal_cpu_s,
                    steal_peak_percent: 0.0,
                }),
            };
            figures.machine_busy()
        };
        assert!(!busy_with(50.0, 0.0), "the rest at 50%");
        assert!(busy_with(51.0, 0.0), "the rest at 51%");
        assert!(!busy_with(0.0, 50.0), "steal at 50%");
        assert!(busy_with(0.0, 51.0), "steal at 51%");
    }

    /// The generator is late when its timers fire more than 100 ms late at p99, and the
    /// figure says so; at 99 ms it is not (100 ms itself reads as 100.03, the histogram's
    /// precision).
    #[test]
    fn a_generator_late_past_100_ms_at_p99_is_named() {
        let late_by = |ms: u64| {
            let mut samples = Samples::default();
            for _ in 0..100 {
                samples.client_timer_late.record(ms * 1000);
            }
            let figures = LoadFigures {
                clients: 1,
                duration_s: 1.0,
                samples,
                host: None,
                host_processes: BTreeMap::new(),
                generator: ProcessUse::default(),
                generator_processes: 1,
                machine: None,
            };
            let named = figures.named();
            let flag = named
                .iter()
                .find(|(n, _)| n == "generator_late")
                .map(|(_, v)| *v);
            (figures.generator_late(), flag)
        };
        assert_eq!(late_by(99), (false, Some(0.0)));
        assert_eq!(late_by(102), (true, Some(1.0)));
    }
}
