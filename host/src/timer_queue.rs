//! The host's deadlines in time order: every link timer and every activity's next
//! timeline commit that is armed has an entry, so the next deadline is the front of a heap
//! rather than a scan of every link and activity (issue 12; issue 10's note: the scan cost
//! O(links) on every pass of the IO loop).
//!
//! Entries are not removed when a deadline is cleared or moved: the owner of the deadlines
//! says whether an entry still holds, and one that does not is dropped when it reaches the
//! front, or when the owner compacts a queue grown past its live deadlines.

use std::cmp::Reverse;

/// How many entries a queue may hold per live deadline before its stale ones are dropped.
const QUEUE_SLACK: usize = 4;
use std::collections::BinaryHeap;
use vex_wire::time::Instant;

/// The armed deadlines of things keyed by `K`, earliest first; among equal instants, by
/// key (for links, link then timer: the order the host fires them in).
#[derive(Debug)]
pub(crate) struct TimerQueue<K: Ord> {
    heap: BinaryHeap<Reverse<(Instant, K)>>,
}

impl<K: Ord> Default for TimerQueue<K> {
    fn default() -> Self {
        Self {
            heap: BinaryHeap::new(),
        }
    }
}

impl<K: Ord + Copy> TimerQueue<K> {
    /// Arms `key` at `at`. A queue past [`QUEUE_SLACK`] entries for each of the at most
    /// `live` deadlines its owner has first drops every entry that no longer `holds`:
    /// what keeps it bounded when deadlines move faster than they come due, at O(1) a
    /// deadline armed.
    pub(crate) fn arm(
        &mut self,
        at: Instant,
        key: K,
        live: usize,
        holds: impl Fn(&(Instant, K)) -> bool,
    ) {
        if self.heap.len() > QUEUE_SLACK * (live + 1) {
            self.heap.retain(|Reverse(d)| holds(d));
        }
        self.heap.push(Reverse((at, key)));
    }

    /// The earliest deadline that still `holds`, dropping those in front of it that do not.
    pub(crate) fn next(&mut self, holds: impl Fn(&(Instant, K)) -> bool) -> Option<Instant> {
        while let Some(Reverse(front)) = self.heap.peek() {
            if holds(front) {
                return Some(front.0);
            }
            self.heap.pop();
        }
        None
    }

    /// Takes every deadline at or before `now` that still `holds`, in firing order, each
    /// once (a deadline armed twice is one timer).
    pub(crate) fn take_due(
        &mut self,
        now: Instant,
        holds: impl Fn(&(Instant, K)) -> bool,
    ) -> Vec<(Instant, K)> {
        let mut due: Vec<(Instant, K)> = Vec::new();
        while let Some(Reverse(front)) = self.heap.peek() {
            if front.0 > now {
                break;
            }
            let front = *front;
            self.heap.pop();
            if holds(&front) && due.last() != Some(&front) {
                due.push(front);
            }
        }
        due
    }

    /// Entries held, stale ones included.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_timer::HostTimer;
    use crate::link_id::LinkId;

    type Deadline = (Instant, (LinkId, HostTimer));

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    /// Arms `key` at `ms` in a queue whose owner has many live deadlines (no compaction).
    fn arm(q: &mut TimerQueue<(LinkId, HostTimer)>, ms: u64, key: (LinkId, HostTimer)) {
        q.arm(at(ms), key, 1000, |_| true);
    }

    #[test]
    fn earliest_first_and_stale_entries_dropped_at_the_front() {
        let mut q: TimerQueue<(LinkId, HostTimer)> = TimerQueue::default();
        arm(&mut q, 30, (LinkId(1), HostTimer::Keepalive));
        arm(&mut q, 10, (LinkId(2), HostTimer::Hello));
        arm(&mut q, 20, (LinkId(1), HostTimer::SlowFrame));
        assert_eq!(q.next(|_| true), Some(at(10)));
        // link 2's hello came: its entry no longer holds
        let holds = |d: &Deadline| d.1.0 != LinkId(2);
        assert_eq!(q.next(holds), Some(at(20)));
        assert_eq!(q.len(), 2, "the stale front was dropped");
    }

    #[test]
    fn due_deadlines_in_firing_order_each_once() {
        let mut q: TimerQueue<(LinkId, HostTimer)> = TimerQueue::default();
        arm(&mut q, 10, (LinkId(2), HostTimer::Keepalive));
        arm(&mut q, 10, (LinkId(1), HostTimer::Hello));
        arm(&mut q, 10, (LinkId(1), HostTimer::Keepalive));
        arm(&mut q, 10, (LinkId(1), HostTimer::Keepalive));
        arm(&mut q, 11, (LinkId(3), HostTimer::Keepalive));
        let due = q.take_due(at(10), |_| true);
        assert_eq!(
            due,
            [
                (at(10), (LinkId(1), HostTimer::Keepalive)),
                (at(10), (LinkId(1), HostTimer::Hello)),
                (at(10), (LinkId(2), HostTimer::Keepalive)),
            ]
        );
        assert_eq!(q.next(|_| true), Some(at(11)), "a later deadline stays");
        assert!(q.take_due(at(10), |_| true).is_empty());
    }

    #[test]
    fn a_queue_past_its_bound_drops_what_no_longer_holds() {
        let mut q: TimerQueue<(LinkId, HostTimer)> = TimerQueue::default();
        let holds = |d: &Deadline| d.0 >= at(5);
        for ms in 0..10 {
            // one live deadline: more than QUEUE_SLACK * 2 entries are compacted
            q.arm(at(ms), (LinkId(1), HostTimer::Keepalive), 1, holds);
        }
        assert_eq!(q.len(), 5, "0 to 4 no longer hold; 5 to 9 do");
        assert_eq!(q.next(holds), Some(at(5)));
    }
}
