//! What the emulated client does after the join, beyond the route: each action this many
//! milliseconds after the join was accepted (design "The emulated client": a scenario
//! script drives it).

use crate::probe::Probe;
use std::fmt;

/// The client's scripted actions; none by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Script {
    /// Asks for the whole snapshot with message 18 (HOST-03).
    pub refresh_after_ms: Option<u64>,
    /// Returns entity slots with message 21 and asks for more with message 20 (HOST-04).
    pub slot_request_after_ms: Option<u64>,
    /// Leaves with message 15 (LEAVE-01, LEAVE-02).
    pub leave_after_ms: Option<u64>,
    /// Reports its identity with message 23 (HOST-15).
    pub identity_after_ms: Option<u64>,
    /// Joins again this long after it left: service 6, then message 3 (HOST-14).
    pub rejoin_after_ms: Option<u64>,
    /// Asks the host to purge its lowest slots with message 27 (HOST-08).
    pub purge_after_ms: Option<u64>,
    /// Gives up authority over its lowest slots with message 33 (HOST-17).
    pub abdicate_after_ms: Option<u64>,
    /// Posts an incident with message 19, as a player trigger does (HOST-18).
    pub incident_after_ms: Option<u64>,
    /// Asks to start the activity anew with message 11, which is owed the snapshot
    /// (HOST-03).
    pub start_activity_after_ms: Option<u64>,
    /// Moves into the next bubble with message 22, then asks for the new roster with
    /// message 18 (HOST-05, AUTH-13).
    pub move_region_after_ms: Option<u64>,
    /// Changes its patch epoch and reports the new one with message 52 at once; every
    /// message 5 answering a request sent after it must echo it (AUTH-01).
    pub change_epoch_after_ms: Option<u64>,
    /// Probes the session it is in with QoS over UDP, as a client probes a session
    /// matchmaking found before it joins it (QOS-01 to QOS-06).
    pub qos_probe_after_ms: Option<u64>,
    /// Opens a bdNet association with the Activity Host's UDP port (PEER-07 to PEER-10).
    pub associate_after_ms: Option<u64>,
    /// A probe of the host, and when its message goes out; the route's and the refresh's
    /// probes go with those, whatever the time.
    pub probe: Option<(Probe, u64)>,
    /// Calls every lobby service of the registry on the lobby link, after its hello and
    /// before the host lookup (BAP-06, BAP-11, BAP-21, BAP-22).
    pub lobby_calls: bool,
    /// Advertises its activity session with matchmaking once service 7 names it
    /// (`lobby_calls`' kind 2, its join descriptor carrying the session).
    pub advertise: bool,
    /// Finds the session to join with a matchmaking locate (kind 7) after its lobby hello,
    /// and joins the one found.
    pub locate: bool,
}

const REFRESH: &str = "refresh-after";
const SLOTS: &str = "request-slots-after";
const LEAVE: &str = "leave-after";
const IDENTITY: &str = "identity-after";
const REJOIN: &str = "rejoin-after";
const MOVE: &str = "move-region-after";
const START: &str = "start-activity-after";
const PURGE: &str = "purge-after";
const ABDICATE: &str = "abdicate-after";
const INCIDENT: &str = "incident-after";
const EPOCH: &str = "change-epoch-after";
const QOS: &str = "qos-probe-after";
const ASSOCIATE: &str = "associate-after";
/// The prefix of a probe's word: `probe-NAME=MS`.
const PROBE: &str = "probe-";
/// The words with no time: the lobby calls and the locate go with the lobby hello, the
/// advertisement with service 7.
const LOBBY_CALLS: &str = "lobby-calls";
const ADVERTISE: &str = "advertise";
const LOCATE: &str = "locate";

/// The text form: `refresh-after=MS request-slots-after=MS leave-after=MS
/// identity-after=MS rejoin-after=MS move-region-after=MS start-activity-after=MS
/// purge-after=MS abdicate-after=MS incident-after=MS change-epoch-after=MS
/// qos-probe-after=MS associate-after=MS probe-NAME=MS
/// lobby-calls advertise locate`, the set ones only; empty when there are none.
impl fmt::Display for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words = [
            (REFRESH, self.refresh_after_ms),
            (SLOTS, self.slot_request_after_ms),
            (LEAVE, self.leave_after_ms),
            (IDENTITY, self.identity_after_ms),
            (REJOIN, self.rejoin_after_ms),
            (MOVE, self.move_region_after_ms),
            (START, self.start_activity_after_ms),
            (PURGE, self.purge_after_ms),
            (ABDICATE, self.abdicate_after_ms),
            (INCIDENT, self.incident_after_ms),
            (EPOCH, self.change_epoch_after_ms),
            (QOS, self.qos_probe_after_ms),
            (ASSOCIATE, self.associate_after_ms),
        ];
        let probe = self
            .probe
            .map(|(p, ms)| format!("{PROBE}{}={ms}", p.name()));
        let set: Vec<String> = words
            .iter()
            .filter_map(|(name, ms)| ms.map(|ms| format!("{name}={ms}")))
            .chain(probe)
            .chain(self.lobby_calls.then(|| LOBBY_CALLS.to_string()))
            .chain(self.advertise.then(|| ADVERTISE.to_string()))
            .chain(self.locate.then(|| LOCATE.to_string()))
            .collect();
        f.write_str(&set.join(" "))
    }
}

impl Script {
    /// Reads the text form back.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut s = Script::default();
        for word in text.split_whitespace() {
            let flag = match word {
                LOBBY_CALLS => Some(&mut s.lobby_calls),
                ADVERTISE => Some(&mut s.advertise),
                LOCATE => Some(&mut s.locate),
                _ => None,
            };
            if let Some(flag) = flag {
                *flag = true;
                continue;
            }
            let (name, ms) = word
                .split_once('=')
                .ok_or_else(|| format!("{word:?} is not NAME=MS"))?;
            let ms = ms.parse().map_err(|_| format!("{word:?}: not a number"))?;
            if let Some(probe) = name.strip_prefix(PROBE) {
                let probe =
                    Probe::named(probe).ok_or_else(|| format!("{name:?} is not a probe"))?;
                s.probe = Some((probe, ms));
                continue;
            }
            let slot = match name {
                REFRESH => &mut s.refresh_after_ms,
                SLOTS => &mut s.slot_request_after_ms,
                LEAVE => &mut s.leave_after_ms,
                IDENTITY => &mut s.identity_after_ms,
                REJOIN => &mut s.rejoin_after_ms,
                MOVE => &mut s.move_region_after_ms,
                START => &mut s.start_activity_after_ms,
                PURGE => &mut s.purge_after_ms,
                ABDICATE => &mut s.abdicate_after_ms,
                INCIDENT => &mut s.incident_after_ms,
                EPOCH => &mut s.change_epoch_after_ms,
                QOS => &mut s.qos_probe_after_ms,
                ASSOCIATE => &mut s.associate_after_ms,
                _ => return Err(format!("{name:?} is not a scripted action")),
            };
            *slot = Some(ms);
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        let s = Script {
            refresh_after_ms: Some(1),
            slot_request_after_ms: None,
            leave_after_ms: Some(3000),
            identity_after_ms: Some(2),
            rejoin_after_ms: Some(4),
            move_region_after_ms: Some(5),
            start_activity_after_ms: None,
            purge_after_ms: Some(6),
            abdicate_after_ms: None,
            incident_after_ms: None,
            change_epoch_after_ms: Some(8),
            qos_probe_after_ms: Some(9),
            associate_after_ms: Some(10),
            probe: Some((Probe::ForeignSession, 7)),
            lobby_calls: true,
            advertise: true,
            locate: true,
        };
        assert_eq!(
            s.to_string(),
            "refresh-after=1 leave-after=3000 identity-after=2 rejoin-after=4 move-region-after=5 purge-after=6 change-epoch-after=8 qos-probe-after=9 associate-after=10 probe-foreign-session=7 lobby-calls advertise locate"
        );
        assert_eq!(Script::parse(&s.to_string()), Ok(s));
        assert_eq!(Script::parse(""), Ok(Script::default()));
        assert!(Script::parse("leave-after").is_err());
        assert!(Script::parse("stay=1").is_err());
        assert!(Script::parse("probe-nope=1").is_err());
        assert!(Script::parse("lobby-calls=1").is_err());
    }
}
