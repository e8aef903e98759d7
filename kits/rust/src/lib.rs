//! The Rust starter kit: cards and actions as the wire writes them (`cards`), every message of
//! protocol/PROTOCOL.md read and written back (`protocol`, two, three and four players), the
//! tracker with the mental count (`state`), the bot trait and the sample bot (`bot`), and the loop
//! between the referee and a bot (`runner`).

pub mod bot;
pub mod cards;
pub mod protocol;
pub mod runner;
pub mod state;
