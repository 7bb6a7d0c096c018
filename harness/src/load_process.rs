//! What a process of a load run uses, CPU time and resident memory, read from the operating
//! system with `sysinfo`: the host's when it runs on this machine, and the load
//! generator's own (issue "Under load and faults": the load generator's cost).

use crate::load_figures::ProcessUse;
use sysinfo::{Pid, ProcessRefreshKind, ProcessesToUpdate, System};

const MIB: f64 = 1024.0 * 1024.0;

/// Samples one process through a run.
pub struct ProcessMeter {
    system: System,
    pid: Pid,
    usage: ProcessUse,
    warm: bool,
}

impl ProcessMeter {
    /// A meter of process `pid`.
    pub fn new(pid: u32) -> Self {
        Self {
            system: System::new(),
            pid: Pid::from_u32(pid),
            usage: ProcessUse::default(),
            warm: false,
        }
    }

    /// A meter of this process.
    pub fn this_process() -> Self {
        Self::new(std::process::id())
    }

    /// Reads the process now; false once it is gone.
    pub fn sample(&mut self) -> bool {
        let kind = ProcessRefreshKind::nothing().with_cpu().with_memory();
        self.system
            .refresh_processes_specifics(ProcessesToUpdate::Some(&[self.pid]), true, kind);
        let Some(p) = self.system.process(self.pid) else {
            return false;
        };
        let rss = p.memory() as f64 / MIB;
        self.usage.cpu_s = p.accumulated_cpu_time() as f64 / 1000.0;
        self.usage.rss_end_mib = rss;
        self.usage.rss_max_mib = self.usage.rss_max_mib.max(rss);
        if !self.warm {
            self.usage.rss_warm_mib = rss;
        }
        true
    }

    /// The warm-up is over: the memory read now is the one the end is compared with.
    pub fn warmed_up(&mut self) {
        self.sample();
        self.warm = true;
    }

    /// What the process used, as of the last sample.
    pub fn usage(&self) -> ProcessUse {
        self.usage
    }
}
