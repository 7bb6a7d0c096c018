//! Matchmaking, services 42 and 43 (NS "Matchmaking, services 42 and 43"): every request
//! is service 42, its field 2 the kind; the service-43 reply's shape must match the kind
//! (MM-01), and the BAP task id correlates it. The field numbers the pages leave out are
//! facts from Sunrise (`middleware/bap/matchmaking/`): the request's advertisement in
//! field 8 (`1` an existing id, `2` the record: `2` the descriptor message, `4` a variant
//! key); the reply's assignment result in field 1 (2), search results in 3, the
//! configuration in 4, an advertisement id in 5 (`1` the id), a located session in 7 (`1`
//! the id, `2` the descriptor message) and live statistics in 8. A descriptor message
//! carries the 128 bytes in its field 1.

use prost::Message;

/// Service 42: a matchmaking request (C->S).
pub const REQUEST: u16 = 42;
/// Service 43: its reply (S->C).
pub const REPLY: u16 = 43;
/// A join descriptor's length (NS "The join descriptor").
pub const DESCRIPTOR_LEN: usize = 128;
/// Field 1's value in a kind-2 reply: the advertisement id was assigned (MM-06).
pub const ASSIGNED: u32 = 2;

/// The eight request kinds (field 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// 1: session search.
    Search,
    /// 2: update the session advertisement.
    Advertise,
    /// 3: delete the session advertisement.
    DeleteAdvertisement,
    /// 4: matchmaking configuration.
    Configuration,
    /// 5: update the rejoin advertisement.
    AdvertiseRejoin,
    /// 6: delete the rejoin advertisement.
    DeleteRejoin,
    /// 7: locate a session.
    Locate,
    /// 8: live matchmaking statistics.
    LiveStats,
}

impl Kind {
    /// Every kind, in field-2 order.
    pub const ALL: [Kind; 8] = [
        Kind::Search,
        Kind::Advertise,
        Kind::DeleteAdvertisement,
        Kind::Configuration,
        Kind::AdvertiseRejoin,
        Kind::DeleteRejoin,
        Kind::Locate,
        Kind::LiveStats,
    ];

    /// Field 2's value.
    pub fn field(self) -> u32 {
        Kind::ALL
            .iter()
            .position(|k| *k == self)
            .map_or(0, |i| i as u32 + 1)
    }

    /// The kind field 2 names.
    pub fn from_field(value: u32) -> Option<Self> {
        let i = usize::try_from(value.checked_sub(1)?).ok()?;
        Kind::ALL.get(i).copied()
    }

    /// The kind a reply's shape answers: the field it carries, or `None` for an empty
    /// reply (which answers the two deletes and a locate that found nothing).
    pub fn answered_by(reply: &Reply) -> Option<Kind> {
        Some(if reply.search.is_some() {
            Kind::Search
        } else if reply.configuration.is_some() {
            Kind::Configuration
        } else if reply.located.is_some() {
            Kind::Locate
        } else if reply.live_stats.is_some() {
            Kind::LiveStats
        } else if reply.advertisement.is_some() && reply.assignment.is_some() {
            Kind::Advertise
        } else if reply.advertisement.is_some() {
            Kind::AdvertiseRejoin
        } else {
            return None;
        })
    }
}

/// Service 42's protobuf.
#[derive(Clone, PartialEq, Message)]
pub struct Request {
    /// 2: the kind.
    #[prost(uint32, optional, tag = "2")]
    pub kind: Option<u32>,
    /// 8: the advertisement, for kinds 2 and 5.
    #[prost(message, optional, tag = "8")]
    pub advertisement: Option<AdvertisementRequest>,
}

/// Request field 8.
#[derive(Clone, PartialEq, Message)]
pub struct AdvertisementRequest {
    /// 1: an existing advertisement id; none or zero asks for one.
    #[prost(uint64, optional, tag = "1")]
    pub existing_id: Option<u64>,
    /// 2: the record.
    #[prost(message, optional, tag = "2")]
    pub record: Option<Record>,
}

/// An advertisement's record.
#[derive(Clone, PartialEq, Message)]
pub struct Record {
    /// 2: the join descriptor.
    #[prost(message, optional, tag = "2")]
    pub descriptor: Option<DescriptorMessage>,
    /// 4: a variant key.
    #[prost(uint64, optional, tag = "4")]
    pub variant_key: Option<u64>,
}

/// A join descriptor as protobuf: its 128 bytes in field 1.
#[derive(Clone, PartialEq, Message)]
pub struct DescriptorMessage {
    /// 1: the 128-byte join descriptor.
    #[prost(bytes = "vec", optional, tag = "1")]
    pub bytes: Option<Vec<u8>>,
}

/// Service 43's protobuf.
#[derive(Clone, PartialEq, Message)]
pub struct Reply {
    /// 1: the assignment result of kind 2: [`ASSIGNED`].
    #[prost(uint32, optional, tag = "1")]
    pub assignment: Option<u32>,
    /// 3: search results (kind 1); the pages give the results' layout only in words.
    #[prost(bytes = "vec", optional, tag = "3")]
    pub search: Option<Vec<u8>>,
    /// 4: the configuration (kind 4); accepted on its presence alone (MM-03).
    #[prost(bytes = "vec", optional, tag = "4")]
    pub configuration: Option<Vec<u8>>,
    /// 5: an advertisement id (kinds 2 and 5).
    #[prost(message, optional, tag = "5")]
    pub advertisement: Option<AdvertisementId>,
    /// 7: a located session (kind 7).
    #[prost(message, optional, tag = "7")]
    pub located: Option<Located>,
    /// 8: live statistics (kind 8).
    #[prost(bytes = "vec", optional, tag = "8")]
    pub live_stats: Option<Vec<u8>>,
}

/// Reply field 5.
#[derive(Clone, PartialEq, Message)]
pub struct AdvertisementId {
    /// 1: the id, never 0 (MM-06).
    #[prost(uint64, optional, tag = "1")]
    pub id: Option<u64>,
}

/// Reply field 7.
#[derive(Clone, PartialEq, Message)]
pub struct Located {
    /// 1: the advertisement id.
    #[prost(uint64, optional, tag = "1")]
    pub id: Option<u64>,
    /// 2: the session's join descriptor.
    #[prost(message, optional, tag = "2")]
    pub descriptor: Option<DescriptorMessage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_number_one_to_eight_and_replies_say_which() {
        for (i, k) in Kind::ALL.iter().enumerate() {
            assert_eq!(k.field(), i as u32 + 1);
            assert_eq!(Kind::from_field(k.field()), Some(*k));
        }
        assert_eq!(Kind::from_field(0), None);
        assert_eq!(Kind::from_field(9), None);
        let id = Some(AdvertisementId { id: Some(5) });
        let advertise = Reply {
            assignment: Some(ASSIGNED),
            advertisement: id.clone(),
            ..Reply::default()
        };
        assert_eq!(Kind::answered_by(&advertise), Some(Kind::Advertise));
        let rejoin = Reply {
            advertisement: id,
            ..Reply::default()
        };
        assert_eq!(Kind::answered_by(&rejoin), Some(Kind::AdvertiseRejoin));
        assert_eq!(Kind::answered_by(&Reply::default()), None);
        // Sunrise's kind-4 reply: field 4, an empty message
        let config = Reply::decode(&[0x22, 0x00][..]).unwrap();
        assert_eq!(Kind::answered_by(&config), Some(Kind::Configuration));
    }
}
