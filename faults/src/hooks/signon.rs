//! The SignOn and manifest faults (`fault.rs`) and variations (`variation.rs`): a fault
//! edits our host's own answer so that one lobby rule breaks, a variation so that it takes
//! a freedom the pages leave (NS "SignOn", "The success fields", "The other outcomes", "The
//! content manifest").

use crate::fault::Fault;
use crate::plan::HostPlan;
use crate::variation::Variation;
use vex_wire::lobby::signon::{
    KeyExchange, Outcome, Queued, SignOnError, SignOnResponse, Throttled,
};

/// A body that is not the manifest's protobuf: field 5 as a varint where a string belongs.
const UNDECODABLE_MANIFEST: [u8; 2] = [0x28, 0x01];

/// Edits `r`, the answer to an account's attempt `attempt` (0 first), as `plan` says.
pub fn answer(plan: &HostPlan, attempt: usize, r: &mut SignOnResponse) {
    let success = |r: &mut SignOnResponse, edit: &dyn Fn(&mut vex_wire::lobby::signon::Success)| {
        if let Some(s) = r.success.as_mut() {
            edit(s);
        }
    };
    for fault in plan.iter() {
        match fault {
            Fault::SignOnReservedMissing => success(r, &|s| s.reserved = None),
            Fault::SignOnTokenMissing => success(r, &|s| s.token = None),
            Fault::SignOnPortMissing => success(r, &|s| s.bap_port = None),
            Fault::SignOnKeyExchangeShort => success(r, &|s| {
                s.key_exchange = Some(KeyExchange {
                    flag: Some(1),
                    block: None,
                    public: Some(vec![0; KeyExchange::PUBLIC_LEN - 1]),
                });
            }),
            Fault::SignOnOutcomeMissing => r.outcome = None,
            Fault::SignOnQueuedBare => arm(r, Outcome::Queued),
            Fault::SignOnShortKey => success(r, &|s| s.aes_key = Some(vec![0x11; 15])),
            Fault::SignOnZeroPort => success(r, &|s| s.bap_port = Some(0)),
            Fault::SignOnBlockLaunch => success(r, &|s| s.block_launch = Some(true)),
            Fault::SignOnQueuedWithoutPosition => queued(r, None),
            Fault::SignOnQueuedWithoutTimeRemaining | Fault::SignOnQueuedWithoutRetryDelay => {
                queued(r, Some(5));
                if let Some(q) = r.queued.as_mut() {
                    if fault == Fault::SignOnQueuedWithoutTimeRemaining {
                        q.seconds_remaining = None;
                    } else {
                        q.retry_seconds = None;
                    }
                }
            }
            Fault::SignOnThrottledWithoutMessage if attempt == 0 => {
                arm(r, Outcome::Throttled);
                r.throttled = Some(Throttled {
                    message: None,
                    retry_seconds: Some(1),
                });
            }
            Fault::SignOnErrorWithoutReason => {
                arm(r, Outcome::Error);
                r.error = Some(SignOnError::default());
            }
            Fault::SignOnErrorTitleOnly | Fault::SignOnErrorBodyOnly => {
                arm(r, Outcome::Error);
                let title_only = fault == Fault::SignOnErrorTitleOnly;
                r.error = Some(SignOnError {
                    reason: Some(SUSPENDED),
                    title: title_only.then(|| "Suspended".into()),
                    body: (!title_only).then(|| "This account is suspended.".into()),
                });
            }
            Fault::SignOnTokenTooLong => success(r, &|s| s.token = Some(vec![0x5A; 569])),
            Fault::SignOnNineFeatures => r.features = vec!["feature".into(); 9],
            _ => {}
        }
    }
    if plan.varies(Variation::QueuedZeros) && attempt < 2 {
        queued(r, Some(if attempt == 0 { 5 } else { 0 }));
        if let (1, Some(q)) = (attempt, r.queued.as_mut()) {
            q.seconds_remaining = Some(0);
            q.retry_seconds = Some(0);
        }
    }
    if plan.varies(Variation::ThrottledNoWait) && attempt < 2 {
        arm(r, Outcome::Throttled);
        r.throttled = Some(Throttled {
            message: Some("busy".into()),
            retry_seconds: Some(0),
        });
    }
    if plan.varies(Variation::SignOnDenied) {
        arm(r, Outcome::Error);
        r.error = Some(SignOnError {
            reason: Some(SUSPENDED),
            title: Some("Suspended".into()),
            body: Some("This account is suspended.".into()),
        });
    }
    if plan.varies(Variation::BlockLaunchFalse) {
        success(r, &|s| s.block_launch = Some(false));
    }
    if plan.varies(Variation::SignOnFull) && r.success.is_some() {
        success(r, &|s| {
            s.floats = vec![0; 3];
            s.relative_expiry = Some(3_600);
            s.key_exchange = Some(KeyExchange {
                flag: Some(1),
                block: None,
                public: Some(vec![0x42; KeyExchange::PUBLIC_LEN]),
            });
            s.city = Some("Vex".into());
            s.country = Some("XX".into());
            s.isp = Some("loopback".into());
        });
        r.features = (1..=FEATURES).map(|i| format!("feature_{i}")).collect();
    }
}

/// SignOn error reason 1: the account is suspended (NS "The other outcomes").
const SUSPENDED: u32 = 1;
/// The feature names SignOn carries at most (NS "SignOn": up to eight).
const FEATURES: usize = 8;

/// `r` turned into the bare arm `outcome`: no success, no sub-message yet.
fn arm(r: &mut SignOnResponse, outcome: Outcome) {
    r.outcome = Some(outcome.field());
    r.success = None;
    r.features.clear();
}

/// `r` turned into a queued answer at `position` (none: left out), 40 s remaining, a
/// retry after 1 s.
fn queued(r: &mut SignOnResponse, position: Option<u32>) {
    arm(r, Outcome::Queued);
    r.queued = Some(Queued {
        position,
        seconds_remaining: Some(40),
        retry_seconds: Some(1),
        server_offline: Some(false),
        cookie: Some(vec![0xC0; 8]),
    });
}

/// The manifest body before signing, as `plan` has it: one that is not the manifest's
/// protobuf for [`Fault::ManifestUndecodable`].
pub fn manifest_body(plan: &HostPlan, body: &mut Vec<u8>) {
    if plan.has(Fault::ManifestUndecodable) {
        *body = UNDECODABLE_MANIFEST.to_vec();
    }
}

/// The signed manifest as `plan` serves it: its HTTP status and body.
pub fn manifest(plan: &HostPlan, status: &mut u16, body: &mut Vec<u8>) {
    for fault in plan.iter() {
        match fault {
            Fault::ManifestBadSignature => {
                if let Some(b) = body.get_mut(8) {
                    *b ^= 0x01;
                }
            }
            Fault::ManifestShort => body.truncate(vex_wire::lobby::manifest::PREFIX_LEN - 1),
            Fault::ManifestNotFound => {
                *status = 404;
                body.clear();
                return;
            }
            _ => {}
        }
    }
}
