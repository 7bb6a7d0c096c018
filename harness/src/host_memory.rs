//! The resident memory of a host under test that the run started (`vex check --spawn`):
//! the process and every process under it (a `sh -c` or `cargo run` that starts the host
//! counts with it), read with `sysinfo`, for the figures a hostile case reports.

use std::fmt;
use sysinfo::{Pid, ProcessRefreshKind, ProcessesToUpdate, System};

const MIB: f64 = 1024.0 * 1024.0;

/// Samples the memory of a process and its descendants.
pub struct HostMemory {
    system: System,
    root: Pid,
    figures: MemoryFigures,
}

/// Resident memory in MiB: before an attack, the most seen during it, and after it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MemoryFigures {
    /// Before the attack.
    pub before_mib: f64,
    /// The most during it.
    pub peak_mib: f64,
    /// After it.
    pub after_mib: f64,
}

impl fmt::Display for MemoryFigures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "host memory {:.1} MiB before, {:.1} MiB at most during, {:.1} MiB after",
            self.before_mib, self.peak_mib, self.after_mib
        )
    }
}

impl HostMemory {
    /// A meter of process `pid` and the processes under it.
    pub fn new(pid: u32) -> Self {
        Self {
            system: System::new(),
            root: Pid::from_u32(pid),
            figures: MemoryFigures::default(),
        }
    }

    /// The resident memory of the process and its descendants now, in MiB.
    fn read(&mut self) -> f64 {
        let kind = ProcessRefreshKind::nothing().with_memory();
        self.system
            .refresh_processes_specifics(ProcessesToUpdate::All, true, kind);
        let processes = self.system.processes();
        let under_root = |mut pid: Pid| loop {
            if pid == self.root {
                return true;
            }
            match processes.get(&pid).and_then(sysinfo::Process::parent) {
                Some(parent) => pid = parent,
                None => return false,
            }
        };
        let bytes: u64 = processes
            .iter()
            .filter(|(pid, _)| under_root(**pid))
            .map(|(_, p)| p.memory())
            .sum();
        bytes as f64 / MIB
    }

    /// Before the attack.
    pub fn before(&mut self) {
        self.figures.before_mib = self.read();
        self.figures.peak_mib = self.figures.before_mib;
    }

    /// During it: the peak keeps the most.
    pub fn during(&mut self) {
        let now = self.read();
        self.figures.peak_mib = self.figures.peak_mib.max(now);
    }

    /// After it: the figures.
    pub fn after(mut self) -> MemoryFigures {
        let now = self.read();
        self.figures.peak_mib = self.figures.peak_mib.max(now);
        self.figures.after_mib = now;
        self.figures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test's own process has memory, and a process that does not exist has none.
    #[test]
    fn a_live_process_has_memory_and_a_gone_one_none() {
        let mut meter = HostMemory::new(std::process::id());
        meter.before();
        let figures = meter.after();
        assert!(figures.before_mib > 1.0, "{figures}");
        assert!(figures.peak_mib >= figures.before_mib, "{figures}");
        let mut gone = HostMemory::new(u32::MAX - 1);
        gone.before();
        assert_eq!(gone.after(), MemoryFigures::default());
    }
}
