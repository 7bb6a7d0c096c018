//! A link's answers held in request order (BAP-16: the client matches a response only
//! against the head of its pending ring). An answer that waits for the lobby's store (a
//! web-service change, answered once it is kept) holds every later answer of the link
//! behind it; they leave together when it is filled.

use std::collections::VecDeque;
use vex_wire::bap::header::FrameType;

/// The most answers a link may have held at once: past it the client asks faster than
/// the store keeps, and the link is closed (`Limit::HeldAnswers`).
pub const MAX_HELD_ANSWERS: usize = 64;

/// A response, whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The frame type it goes out as.
    pub reply_type: FrameType,
    /// The response service.
    pub service: u16,
    /// The task id of the request it answers.
    pub task: u32,
    /// The body.
    pub body: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Held {
    /// The answer to this call, not made yet.
    Waiting(u64),
    Ready(Response),
}

/// The answers held, oldest first; empty when nothing waits.
#[derive(Debug, Clone, Default)]
pub struct Answers(VecDeque<Held>);

impl Answers {
    /// True while an answer waits: a new one must queue behind it.
    pub fn holding(&self) -> bool {
        !self.0.is_empty()
    }

    /// How many answers are held.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The answer to `call` comes later, and every answer after it waits for it.
    pub fn wait_for(&mut self, call: u64) {
        self.0.push_back(Held::Waiting(call));
    }

    /// `response` goes out after the answers held before it.
    pub fn queue(&mut self, response: Response) {
        self.0.push_back(Held::Ready(response));
    }

    /// `response` is the answer to `call`; false when no answer waits for `call`.
    pub fn fill(&mut self, call: u64, response: Response) -> bool {
        let waiting = self.0.iter_mut().find(|h| **h == Held::Waiting(call));
        waiting.map(|h| *h = Held::Ready(response)).is_some()
    }

    /// The oldest answer when it is ready to go.
    pub fn next_ready(&mut self) -> Option<Response> {
        if !matches!(self.0.front(), Some(Held::Ready(_))) {
            return None;
        }
        match self.0.pop_front() {
            Some(Held::Ready(r)) => Some(r),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(task: u32) -> Response {
        Response {
            reply_type: FrameType::Plain,
            service: 11,
            task,
            body: Vec::new(),
        }
    }

    #[test]
    fn answers_leave_in_request_order_behind_the_one_that_waits() {
        let mut answers = Answers::default();
        assert!(!answers.holding());
        answers.wait_for(7);
        answers.queue(response(2));
        assert_eq!(answers.next_ready(), None, "the first answer is not made");
        assert!(!answers.fill(8, response(9)), "no answer waits for call 8");
        assert!(answers.fill(7, response(1)));
        let order: Vec<u32> = std::iter::from_fn(|| answers.next_ready())
            .map(|r| r.task)
            .collect();
        assert_eq!(order, [1, 2]);
        assert!(!answers.holding());
    }
}
