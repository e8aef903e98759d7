//! Lines to messages and back (protocol/PROTOCOL.md). `parse` reads one referee line: a first word
//! version 1 does not define is `Message::Unknown`; a known word with bad arguments is a
//! `ProtocolError`. `format` writes any message as its line, without the newline. A bot itself
//! writes only `ready`, `decline` and one offered action.

use crate::cards::{Action, Card, ProtocolError, Suit, Who};

pub const MAX_LINE_BYTES: usize = 1024; // §1, without the newline
const DECISIONS: [&str; 5] = ["lead", "follow", "after_trick", "close_exchange", "between_tricks"];

/// Every message of version 1. Per-side figures (score, totals, tricks, awarded) are lists:
/// [mine, theirs] with two players, one per side, side 0 first, with more (§9). A winner of
/// `None` is the wire's `none`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// `sixtysix 1`, or `sixtysix 1 players <n> profile <p>` (§3, §9.1; profile None with two).
    Hello { version: u32, players: usize, profile: Option<String> },
    /// `match ...` (§3, §9.2): `opponent` with two players, `names` with more; words a newer
    /// referee adds are kept in `extra`, in order.
    Match {
        match_id: String,
        profile: String,
        target: u32,
        seat: usize,
        players: usize,
        opponent: Option<String>,
        names: Vec<String>,
        decision_ms: u32,
        extra: Vec<(String, String)>,
    },
    /// `clock first_decision_ms <ms> bank_ms <ms>` (§3, §6).
    Clock { first_decision_ms: u32, bank_ms: u32, extra: Vec<(String, String)> },
    /// `rules <flag>=<value> ...`: several lines add up (§3).
    Rules { flags: Vec<(String, String)> },
    Deal { deal_no: u32, dealer: Who, upcard: Card, stock: u32, hand: Vec<Card>, score: Vec<u32>, pot: u32 },
    /// `lead?`, `follow?`, ... with every legal action (§4.1).
    Request { decision: String, actions: Vec<Action> },
    Played { who: Who, card: Card },
    /// The winner and the trick's cards in the order played, the led card first.
    Trick { who: Who, cards: Vec<Card> },
    Marriage { who: Who, suit: Suit, points: u32 },
    Exchange { who: Who, took: Card, gave: Card },
    Close { who: Who },
    /// `card` is None when the reader may not see it.
    Draw { who: Who, card: Option<Card> },
    Claim { who: Who },
    /// `dead` is empty but with three players (§9.4).
    Settle {
        winner: Option<Who>,
        reason: String,
        points: u32,
        awarded: Vec<u32>,
        totals: Vec<u32>,
        tricks: Vec<u32>,
        score: Vec<u32>,
        pot: u32,
        dead: Vec<Card>,
    },
    /// `fault` is Some((fault, by)) for a forfeit.
    MatchEnd { winner: Option<Who>, reason: String, score: Vec<u32>, fault: Option<(String, Who)> },
    /// A line whose first word version 1 does not define: bots ignore it (§1, §8).
    Unknown(String),
}

/// A cursor over the words after the first, with errors that name the message.
struct Words<'a> {
    first: &'a str,
    rest: Vec<&'a str>,
    pos: usize,
}

impl<'a> Words<'a> {
    fn error(&self, why: &str) -> ProtocolError {
        ProtocolError(format!("{}: {}", self.first, why))
    }

    fn more(&self) -> bool {
        self.pos < self.rest.len()
    }

    fn peek(&self) -> &'a str {
        if self.more() {
            self.rest[self.pos]
        } else {
            ""
        }
    }

    fn word(&mut self, what: &str) -> Result<&'a str, ProtocolError> {
        if !self.more() {
            return Err(self.error(&format!("missing {}", what)));
        }
        self.pos += 1;
        Ok(self.rest[self.pos - 1])
    }

    fn keyword(&mut self, expected: &str) -> Result<(), ProtocolError> {
        let w = self.word(&format!("'{}'", expected))?;
        if w != expected {
            return Err(self.error(&format!("expected '{}', got '{}'", expected, w)));
        }
        Ok(())
    }

    fn count(&mut self, what: &str) -> Result<u32, ProtocolError> {
        let w = self.word(what)?;
        let digits = !w.is_empty() && w.len() <= 9 && w.bytes().all(|b| b.is_ascii_digit());
        if !digits || (w.len() > 1 && w.starts_with('0')) {
            return Err(self.error(&format!("{} must be a whole number, got '{}'", what, w)));
        }
        Ok(w.parse().unwrap_or(0))
    }

    fn card(&mut self, what: &str) -> Result<Card, ProtocolError> {
        let w = self.word(what)?;
        Card::parse(w).map_err(|e| self.error(&format!("{}: {}", what, e)))
    }

    fn suit(&mut self) -> Result<Suit, ProtocolError> {
        let w = self.word("suit")?;
        Suit::parse(w).map_err(|e| self.error(&e.0))
    }

    fn who(&mut self, what: &str) -> Result<Who, ProtocolError> {
        let w = self.word(what)?;
        Who::parse(w).map_err(|e| self.error(&format!("{}: {}", what, e)))
    }

    fn who_or_none(&mut self, what: &str) -> Result<Option<Who>, ProtocolError> {
        if self.peek() == "none" {
            self.pos += 1;
            return Ok(None);
        }
        self.who(what).map(Some)
    }

    /// Whole numbers up to `stop` (or the end of the line): one per side (§9).
    fn counts_until(&mut self, what: &str, stop: &str) -> Result<Vec<u32>, ProtocolError> {
        let mut out = Vec::new();
        while self.more() && self.peek() != stop {
            out.push(self.count(what)?);
        }
        if out.is_empty() {
            return Err(self.error(&format!("missing {}", what)));
        }
        Ok(out)
    }

    fn end(&self) -> Result<(), ProtocolError> {
        if self.more() {
            return Err(self.error(&format!("unexpected words: '{}'", self.rest[self.pos..].join(" "))));
        }
        Ok(())
    }
}

/// One referee line (a trailing "\n" and a "\r" before it are dropped, §1) as a message.
pub fn parse(line: &str) -> Result<Message, ProtocolError> {
    let text = line.strip_suffix('\n').unwrap_or(line);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let words: Vec<&str> = text.split(' ').collect();
    let first = words[0];
    let request = first.strip_suffix('?').filter(|d| DECISIONS.contains(d));
    let known = [
        "sixtysix", "match", "clock", "rules", "deal", "played", "trick", "marriage", "exchange",
        "close", "draw", "claim", "settle", "match_end",
    ];
    if request.is_none() && !known.contains(&first) {
        return Ok(Message::Unknown(text.to_string()));
    }
    if words.iter().any(|w| w.is_empty()) {
        return Err(ProtocolError(format!("words must be separated by single spaces: '{}'", text)));
    }
    let mut w = Words { first, rest: words[1..].to_vec(), pos: 0 };
    let msg = match request {
        Some(decision) => {
            let mut actions = Vec::new();
            while w.more() {
                actions.push(Action::parse(w.word("action")?));
            }
            if actions.is_empty() {
                return Err(w.error("a request lists at least one action"));
            }
            Message::Request { decision: decision.to_string(), actions }
        }
        None => parse_known(&mut w)?,
    };
    w.end()?;
    Ok(msg)
}

fn parse_known(w: &mut Words) -> Result<Message, ProtocolError> {
    Ok(match w.first {
        "sixtysix" => {
            let version = w.count("version")?;
            if !w.more() {
                Message::Hello { version, players: 2, profile: None }
            } else {
                w.keyword("players")?; // §9.1
                let players = w.count("players")? as usize;
                w.keyword("profile")?;
                Message::Hello { version, players, profile: Some(w.word("profile")?.to_string()) }
            }
        }
        "match" => parse_match(w)?,
        "clock" => {
            let (mut first_decision_ms, mut bank_ms, mut extra) = (0, 0, Vec::new());
            while w.more() {
                let key = w.word("key")?;
                match key {
                    "first_decision_ms" => first_decision_ms = w.count(key)?,
                    "bank_ms" => bank_ms = w.count(key)?,
                    _ => extra.push((key.to_string(), w.word(key)?.to_string())),
                }
            }
            Message::Clock { first_decision_ms, bank_ms, extra }
        }
        "rules" => {
            let mut flags = Vec::new();
            while w.more() {
                let word = w.word("flag")?;
                match word.find('=') {
                    Some(eq) if eq > 0 => flags.push((word[..eq].to_string(), word[eq + 1..].to_string())),
                    _ => return Err(w.error(&format!("'{}' is not <flag>=<value>", word))),
                }
            }
            Message::Rules { flags }
        }
        "deal" => {
            let deal_no = w.count("deal number")?;
            w.keyword("dealer")?;
            let dealer = w.who("dealer")?;
            w.keyword("upcard")?;
            let upcard = w.card("upcard")?;
            w.keyword("stock")?;
            let stock = w.count("stock")?;
            w.keyword("hand")?;
            let mut hand = Vec::new();
            while w.more() && w.peek() != "score" {
                hand.push(w.card("card of the hand")?);
            }
            w.keyword("score")?;
            let score = w.counts_until("score", "pot")?;
            w.keyword("pot")?;
            Message::Deal { deal_no, dealer, upcard, stock, hand, score, pot: w.count("pot")? }
        }
        "played" => Message::Played { who: w.who("who")?, card: w.card("card")? },
        "trick" => {
            let who = w.who("who")?;
            let mut cards = vec![w.card("led card")?, w.card("followed card")?];
            while w.more() {
                cards.push(w.card("card of the trick")?); // §9: 3 or 4 cards
            }
            Message::Trick { who, cards }
        }
        "marriage" => Message::Marriage { who: w.who("who")?, suit: w.suit()?, points: w.count("points")? },
        "exchange" => Message::Exchange { who: w.who("who")?, took: w.card("card taken")?, gave: w.card("card given")? },
        "close" => Message::Close { who: w.who("who")? },
        "draw" => {
            let who = w.who("who")?;
            let card = if w.more() { Some(w.card("card")?) } else { None };
            Message::Draw { who, card }
        }
        "claim" => Message::Claim { who: w.who("who")? },
        "settle" => {
            w.keyword("winner")?;
            let winner = w.who_or_none("winner")?;
            w.keyword("reason")?;
            let reason = w.word("reason")?.to_string();
            w.keyword("points")?;
            let points = w.count("points")?;
            w.keyword("awarded")?;
            let awarded = w.counts_until("awarded", "totals")?; // one number with two players
            w.keyword("totals")?;
            let totals = w.counts_until("totals", "tricks")?;
            w.keyword("tricks")?;
            let tricks = w.counts_until("tricks", "score")?;
            w.keyword("score")?;
            let score = w.counts_until("score", "pot")?;
            w.keyword("pot")?;
            let pot = w.count("pot")?;
            let mut dead = Vec::new();
            if w.more() {
                w.keyword("dead")?; // §9.4: three players show the dead pile
                dead.push(w.card("dead card")?);
                dead.push(w.card("dead card")?);
            }
            Message::Settle { winner, reason, points, awarded, totals, tricks, score, pot, dead }
        }
        _ => {
            w.keyword("winner")?;
            let winner = w.who_or_none("winner")?;
            w.keyword("reason")?;
            let reason = w.word("reason")?.to_string();
            w.keyword("score")?;
            let score = w.counts_until("score", "fault")?;
            let fault = if w.more() {
                w.keyword("fault")?;
                let fault = w.word("fault")?.to_string();
                w.keyword("by")?;
                Some((fault, w.who("offender")?))
            } else {
                None
            };
            Message::MatchEnd { winner, reason, score, fault }
        }
    })
}

fn parse_match(w: &mut Words) -> Result<Message, ProtocolError> {
    // §3 and §9.2, read as keyword/value pairs: a word a newer referee adds goes to `extra`.
    let match_id = w.word("match id")?.to_string();
    let (mut profile, mut opponent) = (None, None);
    let (mut target, mut seat, mut players, mut decision_ms) = (0, 0, 2, 0);
    let (mut names, mut extra) = (Vec::new(), Vec::new());
    while w.more() {
        let key = w.word("key")?;
        match key {
            "profile" => profile = Some(w.word("profile")?.to_string()),
            "target" => target = w.count("target")?,
            "seat" => seat = w.count("seat")? as usize,
            "players" => players = w.count("players")? as usize,
            "opponent" => opponent = Some(w.word("opponent")?.to_string()),
            "decision_ms" => decision_ms = w.count("decision_ms")?,
            "names" => {
                while w.more() && w.peek() != "decision_ms" {
                    names.push(w.word("name")?.to_string());
                }
            }
            _ => extra.push((key.to_string(), w.word(key)?.to_string())),
        }
    }
    let profile = profile.ok_or_else(|| w.error("missing profile"))?;
    Ok(Message::Match { match_id, profile, target, seat, players, opponent, names, decision_ms, extra })
}

fn join<T: std::fmt::Display>(items: &[T]) -> String {
    items.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(" ")
}

fn or_none(who: &Option<Who>) -> String {
    who.map(|w| w.to_string()).unwrap_or_else(|| "none".to_string())
}

fn pairs(extra: &[(String, String)]) -> String {
    extra.iter().map(|(k, v)| format!(" {} {}", k, v)).collect()
}

/// Any message as its line, without the newline: `parse(&format(m)) == Ok(m)`.
pub fn format(msg: &Message) -> String {
    match msg {
        Message::Hello { version, players, profile } => match profile {
            None => format!("sixtysix {}", version),
            Some(p) => format!("sixtysix {} players {} profile {}", version, players, p),
        },
        Message::Match { match_id, profile, target, seat, players, opponent, names, decision_ms, extra } => {
            match opponent {
                Some(o) => format!(
                    "match {} profile {} target {} seat {} opponent {} decision_ms {}{}",
                    match_id, profile, target, seat, o, decision_ms, pairs(extra)
                ),
                None => format!(
                    "match {} profile {} target {} players {} seat {} names {} decision_ms {}{}",
                    match_id, profile, target, players, seat, names.join(" "), decision_ms, pairs(extra)
                ),
            }
        }
        Message::Clock { first_decision_ms, bank_ms, extra } => {
            format!("clock first_decision_ms {} bank_ms {}{}", first_decision_ms, bank_ms, pairs(extra))
        }
        Message::Rules { flags } => {
            let mut line = "rules".to_string();
            for (k, v) in flags {
                line.push_str(&format!(" {}={}", k, v));
            }
            line
        }
        Message::Deal { deal_no, dealer, upcard, stock, hand, score, pot } => format!(
            "deal {} dealer {} upcard {} stock {} hand {} score {} pot {}",
            deal_no, dealer, upcard, stock, join(hand), join(score), pot
        ),
        Message::Request { decision, actions } => format!("{}? {}", decision, join(actions)),
        Message::Played { who, card } => format!("played {} {}", who, card),
        Message::Trick { who, cards } => format!("trick {} {}", who, join(cards)),
        Message::Marriage { who, suit, points } => format!("marriage {} {} {}", who, suit, points),
        Message::Exchange { who, took, gave } => format!("exchange {} {} {}", who, took, gave),
        Message::Close { who } => format!("close {}", who),
        Message::Draw { who, card } => match card {
            Some(c) => format!("draw {} {}", who, c),
            None => format!("draw {}", who),
        },
        Message::Claim { who } => format!("claim {}", who),
        Message::Settle { winner, reason, points, awarded, totals, tricks, score, pot, dead } => {
            let line = format!(
                "settle winner {} reason {} points {} awarded {} totals {} tricks {} score {} pot {}",
                or_none(winner), reason, points, join(awarded), join(totals), join(tricks), join(score), pot
            );
            if dead.is_empty() {
                line
            } else {
                format!("{} dead {}", line, join(dead))
            }
        }
        Message::MatchEnd { winner, reason, score, fault } => {
            let line = format!("match_end winner {} reason {} score {}", or_none(winner), reason, join(score));
            match fault {
                Some((f, by)) => format!("{} fault {} by {}", line, f, by),
                None => line,
            }
        }
        Message::Unknown(line) => line.clone(),
    }
}

/// The answer to the greeting (§3); an error for a name a bot may not have.
pub fn ready(name: &str) -> Result<String, ProtocolError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.+-".contains(&b));
    if !ok {
        return Err(ProtocolError(format!("bad bot name '{}': 1 to 64 of A-Z a-z 0-9 _ . + -", name)));
    }
    Ok(format!("ready {}", name))
}

/// The answer to a three- or four-player greeting the bot does not play (§9.1): printable
/// ASCII, single spaces.
pub fn decline(text: &str) -> String {
    let clean: Vec<&str> = text.split(' ').map(|w| w.trim_matches(|c: char| !(' '..='~').contains(&c))).filter(|w| !w.is_empty()).collect();
    let clean: Vec<String> = clean.iter().map(|w| w.chars().filter(|c| (' '..='~').contains(c)).collect()).collect();
    if clean.is_empty() {
        "decline".to_string()
    } else {
        format!("decline {}", clean.join(" "))
    }
}
