//! The lobby before the activity: SignOn's protobuf and the signed content manifest (NS
//! "SignOn", "The content manifest").

pub mod manifest;
pub mod signon;
