//! Web-service RPC, services 10/11 and 110/112 (NS "Web-service RPC, services 10 and 11",
//! "The reply's version barrier"): every request gets its reply, the opcode and the
//! transaction echoed, in the shape its opcode's definition has (`vex_wire::bap::
//! web_service::Shape`). Nothing the host holds changes through it yet, so no reply names
//! a revision (WS-01: -1); the sign-in completes, a family subscription (206) completes and
//! is followed by the family's snapshot, and an equip (403) of an item the host does not
//! hold is an error.

use super::LobbyServices;
use crate::link::Links;
use crate::link_id::LinkId;
use crate::reason::Dropped;
use vex_wire::bap::header::{FrameType, InnerHeader};
use vex_wire::bap::queuez::Subscription;
use vex_wire::bap::web_service::{
    EQUIP, SUBSCRIBE, Shape, Status, WsReply, WsRequest, read_subscribe,
};

/// The status of an equip of an item the host does not hold: an error.
const NO_SUCH_ITEM: i32 = 1;

impl LobbyServices {
    /// Service 10 or 110: the reply of the opcode's shape.
    pub(crate) fn web_service(
        &self,
        links: &mut Links,
        link: LinkId,
        reply_type: FrameType,
        header: InnerHeader,
        body: &[u8],
    ) {
        let request = match WsRequest::decode(body) {
            Ok(r) => r,
            Err(e) => {
                // answered all the same, empty, so the client's ring moves (BAP-06)
                links.drop_input(link, Dropped::WebService(e));
                return links.reply(link, reply_type, header, Vec::new());
            }
        };
        let status = match request.opcode {
            EQUIP => Status {
                code: NO_SUCH_ITEM,
                ..Status::DONE
            },
            _ => Status::DONE,
        };
        let reply = WsReply {
            opcode: request.opcode,
            transaction: request.transaction,
            status: Some(status),
        };
        let shape = Shape::of(request.opcode);
        if shape == Shape::Generic {
            tracing::warn!(
                opcode = request.opcode,
                "a web-service opcode with no known definition: answered with the header alone"
            );
        }
        let bytes = reply.encode(shape);
        links.reply(link, reply_type, header, bytes);
        if let (SUBSCRIBE, Some((family, root))) =
            (request.opcode, read_subscribe(&request.payload))
        {
            self.push_family(links, link, Subscription { family, root });
        }
    }
}
