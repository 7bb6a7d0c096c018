//! vex-harness: connects a host and the emulated client, in-process with a virtual clock
//! or over TCP, and records every frame as a transcript.

pub mod datagram_fault;
pub mod host_memory;
pub mod hostile;
pub mod hostile_tcp;
pub mod in_process;
pub mod link_fault;
pub mod link_judge;
pub mod link_proxy;
pub mod load;
pub mod load_client;
pub mod load_figures;
pub mod load_machine;
pub mod load_process;
pub mod load_shard;
pub mod pair;
pub mod replay;
pub mod report;
pub mod signon;
pub mod signon_record;
pub mod tcp;
pub mod transcript;
pub mod wire;

pub use report::RunReport;
