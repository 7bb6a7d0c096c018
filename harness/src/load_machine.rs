//! What the whole machine's CPUs did during a load run, beside the processes the run
//! measures: the CPU time every process on it used, and the time the hypervisor gave the
//! machine's virtual CPUs to others (steal), from the kernel's counters (`/proc/stat`,
//! read with `procfs`; Linux only, none elsewhere). A run's latencies are the host's own
//! only while the rest of the machine was quiet: another program, a database server or a
//! neighbour of a virtual machine slows every step of every client alike (issue 26, the
//! run whose every latency was two to five times the others').

/// Seconds of CPU time from kernel ticks.
fn seconds(ticks: u64, ticks_per_s: u64) -> f64 {
    ticks as f64 / ticks_per_s.max(1) as f64
}

/// The kernel's counters at one moment, summed over every CPU, in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Counters {
    /// Time the CPUs ran anything: user, nice, system, interrupts (guests are in user).
    busy: u64,
    /// Time the hypervisor ran something else while a CPU of this machine had work.
    steal: u64,
}

/// What the machine's CPUs did over a run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MachineUse {
    /// CPUs the kernel counts.
    pub cores: usize,
    /// CPU time every process used, in seconds.
    pub busy_cpu_s: f64,
    /// CPU time the hypervisor took, in seconds.
    pub steal_cpu_s: f64,
    /// The most the hypervisor took in one second of the run, as a share of one core,
    /// in percent.
    pub steal_peak_percent: f64,
}

/// Follows the machine's counters through a run: read once at its start, then once a
/// second (the worst second's steal), then at its end.
#[derive(Debug)]
pub struct MachineMeter {
    ticks_per_s: u64,
    cores: usize,
    first: Counters,
    last: Counters,
    last_at: std::time::Instant,
    steal_peak_percent: f64,
}

impl MachineMeter {
    /// A meter from now, or `None` where the kernel's counters cannot be read.
    pub fn start() -> Option<Self> {
        let (cores, now, ticks_per_s) = read()?;
        Some(Self {
            ticks_per_s,
            cores,
            first: now,
            last: now,
            last_at: std::time::Instant::now(),
            steal_peak_percent: 0.0,
        })
    }

    /// Reads the counters now: the steal since the last read is a candidate for the worst
    /// second (a read less than half a second after the last only moves the counters on).
    pub fn sample(&mut self) {
        if let Some((_, now, _)) = read() {
            let elapsed = self.last_at.elapsed().as_secs_f64();
            if elapsed >= 0.5 {
                let stolen = seconds(now.steal.saturating_sub(self.last.steal), self.ticks_per_s);
                let percent = 100.0 * stolen / elapsed;
                self.steal_peak_percent = self.steal_peak_percent.max(percent);
            }
            (self.last, self.last_at) = (now, std::time::Instant::now());
        }
    }

    /// What the machine did from the start to the last read.
    pub fn usage(&self) -> MachineUse {
        MachineUse {
            cores: self.cores,
            busy_cpu_s: seconds(
                self.last.busy.saturating_sub(self.first.busy),
                self.ticks_per_s,
            ),
            steal_cpu_s: seconds(
                self.last.steal.saturating_sub(self.first.steal),
                self.ticks_per_s,
            ),
            steal_peak_percent: self.steal_peak_percent,
        }
    }
}

/// The CPUs, the counters now and the ticks a second, from `/proc/stat`.
#[cfg(target_os = "linux")]
fn read() -> Option<(usize, Counters, u64)> {
    use procfs::{CurrentSI, KernelStats};
    let stats = KernelStats::current().ok()?;
    let t = &stats.total;
    let some = |v: Option<u64>| v.unwrap_or(0);
    let counters = Counters {
        busy: t.user + t.nice + t.system + some(t.irq) + some(t.softirq),
        steal: some(t.steal),
    };
    Some((stats.cpu_time.len(), counters, procfs::ticks_per_second()))
}

/// Nowhere but Linux: no counters.
#[cfg(not(target_os = "linux"))]
fn read() -> Option<(usize, Counters, u64)> {
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// A thread that spins for 300 ms is busy time the meter counts (the whole machine's:
    /// at least that, never less), on every CPU the kernel lists.
    #[test]
    fn a_spinning_thread_is_busy_time() {
        let mut meter = MachineMeter::start().expect("/proc/stat reads on Linux");
        let until = Instant::now() + Duration::from_millis(300);
        let mut spins = 0u64;
        while Instant::now() < until {
            spins = std::hint::black_box(spins + 1);
        }
        meter.sample();
        let used = meter.usage();
        assert!(used.cores >= 1, "{used:?}");
        assert!(used.busy_cpu_s >= 0.2, "300 ms spun: {used:?}");
        assert!(used.steal_cpu_s >= 0.0 && used.steal_peak_percent >= 0.0);
    }
}
