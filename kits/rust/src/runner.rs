//! The loop between the referee and a bot: read a line, fold it into the state, answer requests.
//!
//! PROTOCOL.md §1: one line per message, UTF-8, each answer flushed at once; the bot writes nothing
//! but its `ready` (or `decline`) and one action per request. Logging goes to stderr. One process
//! plays one match: when the referee closes stdin, the loop returns.

use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::bot::Bot;
use crate::cards::Action;
use crate::protocol::{decline, parse, ready, Message};
use crate::state::GameState;

pub struct Runner<B: Bot> {
    pub bot: B,
    pub state: GameState,
    /// Where notes go: stderr by default, which the referee keeps apart from the answers.
    pub log: Box<dyn FnMut(&str)>,
}

impl<B: Bot> Runner<B> {
    pub fn new(bot: B) -> Runner<B> {
        let name = bot.name();
        Runner { bot, state: GameState::new(), log: Box::new(move |text| eprintln!("{}: {}", name, text)) }
    }

    pub fn quiet(bot: B) -> Runner<B> {
        Runner { bot, state: GameState::new(), log: Box::new(|_| {}) }
    }

    /// The answer line to one message, or None when it asks for none (scriptable without a
    /// process).
    pub fn answer(&mut self, msg: &Message) -> Option<String> {
        self.state.update(msg);
        match msg {
            Message::Hello { version, players, profile } => {
                if *version != 1 {
                    (self.log)(&format!("protocol version {} is not 1; answering anyway", version));
                }
                let profile = profile.clone().unwrap_or_default();
                if *players != 2 && !self.bot.supports(*players, &profile) {
                    return Some(decline(&format!("does not support {}", profile)));
                }
                match ready(&self.bot.name()) {
                    Ok(line) => Some(line),
                    Err(err) => {
                        (self.log)(&err.0);
                        Some("ready kit-rust".to_string())
                    }
                }
            }
            Message::Request { actions, .. } => Some(self.choose(actions)),
            _ => None,
        }
    }

    fn choose(&mut self, actions: &[Action]) -> String {
        let (bot, state) = (&mut self.bot, &self.state);
        // A panic in the policy costs a move, not the match.
        let chosen = catch_unwind(AssertUnwindSafe(|| bot.decide(state, actions)));
        match chosen {
            // Only an offered action, written exactly as offered, is legal (§4.1).
            Ok(a) if actions.contains(&a) => return a.to_string(),
            Ok(a) => (self.log)(&format!("decide returned {}, not one of the offered actions", a)),
            Err(_) => (self.log)("decide panicked"),
        }
        let fallback = actions
            .iter()
            .find(|a| **a == Action::Pass)
            .or_else(|| actions.iter().find(|a| !matches!(a, Action::Unknown(_) | Action::Claim)))
            .unwrap_or(&actions[0]);
        fallback.to_string()
    }

    /// Play one match: read lines until the input closes.
    pub fn run(&mut self, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
        for line in input.split(b'\n') {
            let bytes = line?;
            let text = String::from_utf8_lossy(&bytes);
            let msg = match parse(&text) {
                Ok(m) => m,
                Err(err) => {
                    (self.log)(&format!("ignored a line I cannot read: {}", err));
                    continue;
                }
            };
            if let Some(reply) = self.answer(&msg) {
                output.write_all(format!("{}\n", reply).as_bytes())?;
                output.flush()?; // unflushed output has not been sent, and the clock runs
            }
        }
        Ok(())
    }
}
