//! A lossy datagram path (issue "The peer transport and QoS": a datagram transport with
//! loss, duplication and reordering): every Nth datagram each way dropped, every Mth held
//! back until the next one passes, every Kth delivered twice. Deterministic, so a run
//! through it replays; the in-process transport and `vex proxy --udp-fault` share it.

use crate::link_fault::Direction;
use std::fmt;
use std::str::FromStr;

/// What the path does to the datagrams it carries, counted from 1 each way; 0 turns a
/// fault off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DatagramFault {
    /// Every Nth datagram is lost.
    pub drop_every: u32,
    /// Every Nth datagram is held and passes right after the next one.
    pub reorder_every: u32,
    /// Every Nth datagram arrives twice.
    pub duplicate_every: u32,
}

impl DatagramFault {
    /// The fault the `udp.lossy` case runs: one datagram in 3 lost, one in 4 overtaken,
    /// one in 5 doubled.
    pub const LOSSY: DatagramFault = DatagramFault {
        drop_every: 3,
        reorder_every: 4,
        duplicate_every: 5,
    };
}

impl fmt::Display for DatagramFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "drop={},reorder={},dup={}",
            self.drop_every, self.reorder_every, self.duplicate_every
        )
    }
}

impl FromStr for DatagramFault {
    type Err = String;

    /// `drop=N,reorder=N,dup=N`, any of them, in any order.
    fn from_str(s: &str) -> Result<Self, String> {
        let mut fault = DatagramFault::default();
        for part in s.split(',').filter(|p| !p.is_empty()) {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?}: want NAME=N"))?;
            let n: u32 = value
                .parse()
                .map_err(|e| format!("{part:?}: {value:?} is no count ({e})"))?;
            match name {
                "drop" => fault.drop_every = n,
                "reorder" => fault.reorder_every = n,
                "dup" => fault.duplicate_every = n,
                _ => return Err(format!("{name:?}: want drop, reorder or dup")),
            }
        }
        Ok(fault)
    }
}

/// One direction of the path: its count and the datagram it holds back.
#[derive(Debug, Default)]
struct Way {
    count: u32,
    held: Option<Vec<u8>>,
}

/// The path's state, both ways.
#[derive(Debug, Default)]
pub struct DatagramPath {
    fault: DatagramFault,
    to_host: Way,
    to_client: Way,
}

impl DatagramPath {
    /// A path with `fault`.
    pub fn new(fault: DatagramFault) -> Self {
        Self {
            fault,
            ..Self::default()
        }
    }

    /// `bytes` sent `direction`: what arrives now, in order.
    pub fn pass(&mut self, direction: Direction, bytes: &[u8]) -> Vec<Vec<u8>> {
        let fault = self.fault;
        let way = match direction {
            Direction::ToHost => &mut self.to_host,
            Direction::ToClient => &mut self.to_client,
        };
        way.count += 1;
        let nth = |every: u32| every > 0 && way.count.is_multiple_of(every);
        if nth(fault.drop_every) {
            return Vec::new();
        }
        if nth(fault.reorder_every) && way.held.is_none() {
            way.held = Some(bytes.to_vec());
            return Vec::new();
        }
        let copies = if nth(fault.duplicate_every) { 2 } else { 1 };
        let mut out = vec![bytes.to_vec(); copies];
        out.extend(way.held.take());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Datagrams 1 to 7 to the host through `drop=3,reorder=4,dup=5`: 3 and 6 are lost, 4
    /// passes after 5, 5 twice.
    #[test]
    fn each_fault_at_its_count() {
        let mut path = DatagramPath::new(DatagramFault::LOSSY);
        let arrived: Vec<Vec<Vec<u8>>> = (1u8..=7)
            .map(|i| path.pass(Direction::ToHost, &[i]))
            .collect();
        assert_eq!(
            arrived,
            [
                vec![vec![1]],
                vec![vec![2]],
                vec![],
                vec![],
                vec![vec![5], vec![5], vec![4]],
                vec![],
                vec![vec![7]],
            ]
        );
        // the other way counts on its own
        assert_eq!(path.pass(Direction::ToClient, &[9]), [vec![9]]);
    }

    /// The spec reads back, a fault left out is off, and a bad one is refused.
    #[test]
    fn the_spec() {
        let f: DatagramFault = "drop=3,reorder=4,dup=5".parse().unwrap();
        assert_eq!(f, DatagramFault::LOSSY);
        assert_eq!(f.to_string().parse::<DatagramFault>(), Ok(f));
        let only: DatagramFault = "drop=2".parse().unwrap();
        assert_eq!((only.drop_every, only.reorder_every), (2, 0));
        assert!("drop".parse::<DatagramFault>().is_err());
        assert!("lose=2".parse::<DatagramFault>().is_err());
        assert!("drop=x".parse::<DatagramFault>().is_err());
        let mut clean = DatagramPath::new(DatagramFault::default());
        assert_eq!(clean.pass(Direction::ToHost, &[1]), [vec![1]]);
    }
}
