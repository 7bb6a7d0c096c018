//! The protobuf answers of the registry whose schemas the pages leave out: 19 (client
//! config), 33 (user message) and 305 (Steam certificate signing) are "protobuf" in NS
//! "The service registry", and "an empty body is not a neutral answer" (NS "The frame";
//! PB-01: a missing required field fails the whole message). What each must hold comes
//! from Sunrise's source, not the pages or the facts sheet: 19 has two required varint
//! fields, 1 and 2; 33 one, field 4; 305 reports success in field 1 (0) and carries the
//! certificate wrapper of 304's field 3 back in its own field 3. These are the smallest
//! bodies with those fields. Service 22 (purchased offers) is answered empty, as facts 2.2
//! records Sunrise does.

use prost::Message;

/// The request answered by service 19 (client config).
pub const CLIENT_CONFIG: u16 = 18;
/// The request answered by service 33 (user message).
pub const USER_MESSAGE: u16 = 32;
/// The request answered by service 305 (Steam certificate signing).
pub const STEAM_CERTIFICATE: u16 = 304;

/// Service 19's smallest body: both required fields, 0.
#[derive(Clone, PartialEq, Message)]
pub struct ClientConfig {
    /// Field 1, required.
    #[prost(uint64, required, tag = "1")]
    pub first: u64,
    /// Field 2, required.
    #[prost(uint64, required, tag = "2")]
    pub second: u64,
}

/// Service 33's smallest body: its required field, 0.
#[derive(Clone, PartialEq, Message)]
pub struct UserMessage {
    /// Field 4, required.
    #[prost(uint64, required, tag = "4")]
    pub value: u64,
}

/// What service 304 asks to have signed: the certificate wrapper in field 3.
#[derive(Clone, PartialEq, Message)]
pub struct CertificateRequest {
    /// Field 3: the certificate wrapper.
    #[prost(bytes = "vec", optional, tag = "3")]
    pub wrapper: Option<Vec<u8>>,
}

/// Service 305: the outcome (0, success) and the wrapper of the request.
#[derive(Clone, PartialEq, Message)]
pub struct CertificateResponse {
    /// Field 1: 0 is success.
    #[prost(uint64, required, tag = "1")]
    pub status: u64,
    /// Field 3: the request's certificate wrapper.
    #[prost(bytes = "vec", optional, tag = "3")]
    pub wrapper: Option<Vec<u8>>,
}

/// The answer to the protobuf registry request `request` whose body is `body`: the
/// smallest body with the fields its answer's schema requires; empty for one with none.
pub fn answer(request: u16, body: &[u8]) -> Vec<u8> {
    match request {
        CLIENT_CONFIG => ClientConfig::default().encode_to_vec(),
        USER_MESSAGE => UserMessage::default().encode_to_vec(),
        STEAM_CERTIFICATE => CertificateResponse {
            status: 0,
            wrapper: CertificateRequest::decode(body)
                .ok()
                .and_then(|r| r.wrapper),
        }
        .encode_to_vec(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_answer_holds_its_required_fields() {
        assert_eq!(answer(CLIENT_CONFIG, &[]), [0x08, 0x00, 0x10, 0x00]);
        assert_eq!(answer(USER_MESSAGE, &[]), [0x20, 0x00]);
        assert_eq!(
            answer(21, &[]),
            [] as [u8; 0],
            "22: empty, as Sunrise answers it"
        );
    }

    #[test]
    fn the_certificate_wrapper_comes_back() {
        let request = CertificateRequest {
            wrapper: Some(vec![1, 2, 3]),
        }
        .encode_to_vec();
        assert_eq!(
            answer(STEAM_CERTIFICATE, &request),
            [0x08, 0x00, 0x1A, 0x03, 1, 2, 3]
        );
        let unreadable = answer(STEAM_CERTIFICATE, &[0xFF]);
        assert_eq!(
            unreadable,
            [0x08, 0x00],
            "an unreadable request: success alone"
        );
    }
}
