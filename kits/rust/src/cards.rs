//! Cards, suits, ranks and actions, each with the text the wire uses (PROTOCOL.md §2):
//! `Card::parse("TH")` and `card.to_string() == "TH"`.

use std::fmt;

/// A line that breaks protocol/PROTOCOL.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError(pub String);

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProtocolError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suit {
    C,
    S,
    H,
    D,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::C, Suit::S, Suit::H, Suit::D];

    pub fn symbol(self) -> char {
        ['C', 'S', 'H', 'D'][self as usize]
    }

    pub fn parse(word: &str) -> Result<Suit, ProtocolError> {
        match word {
            "C" => Ok(Suit::C),
            "S" => Ok(Suit::S),
            "H" => Ok(Suit::H),
            "D" => Ok(Suit::D),
            _ => Err(ProtocolError(format!("not a suit: '{}'", word))),
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// Ranks, strongest first (RULES.md §1: A > 10 > K > Q > J > 9 > 8 > 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rank {
    Ace,
    Ten,
    King,
    Queen,
    Jack,
    Nine,
    Eight,
    Seven,
}

const RANK_SYMBOLS: [char; 8] = ['A', 'T', 'K', 'Q', 'J', '9', '8', '7'];
const RANKS: [Rank; 8] = [
    Rank::Ace,
    Rank::Ten,
    Rank::King,
    Rank::Queen,
    Rank::Jack,
    Rank::Nine,
    Rank::Eight,
    Rank::Seven,
];

impl Rank {
    pub fn symbol(self) -> char {
        RANK_SYMBOLS[self as usize]
    }

    /// Card points (RULES.md §1): A 11, T 10, K 4, Q 3, J 2, 9 8 7 0.
    pub fn points(self) -> i32 {
        [11, 10, 4, 3, 2, 0, 0, 0][self as usize]
    }

    /// 0 for the ace up to 7 for the seven: a lower number is a stronger card.
    pub fn strength(self) -> i32 {
        self as i32
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card {
    pub suit: Suit,
    pub rank: Rank,
}

impl Card {
    pub fn new(rank: Rank, suit: Suit) -> Card {
        Card { suit, rank }
    }

    pub fn parse(word: &str) -> Result<Card, ProtocolError> {
        let bad = || ProtocolError(format!("not a card: '{}'", word));
        let mut chars = word.chars();
        let (r, s) = match (chars.next(), chars.next(), chars.next()) {
            (Some(r), Some(s), None) => (r, s),
            _ => return Err(bad()),
        };
        let rank = RANK_SYMBOLS.iter().position(|&c| c == r).ok_or_else(bad)?;
        let suit = Suit::parse(&s.to_string()).map_err(|_| bad())?;
        Ok(Card::new(RANKS[rank], suit))
    }

    pub fn points(self) -> i32 {
        self.rank.points()
    }

    /// Does this card, played after `best` (the card winning the trick so far), take the trick?
    /// RULES.md §5.1: the same suit and a higher rank, or a trump on a plain card. Of two
    /// identical cards (two packs, §10.3) the first played wins, so an equal card never beats.
    pub fn beats(self, best: Card, trump: Suit) -> bool {
        if self.suit == best.suit {
            return self.rank.strength() < best.rank.strength();
        }
        self.suit == trump
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank.symbol(), self.suit.symbol())
    }
}

/// The cards of the pack a rules line's `deck_size` names (RULES.md §1, §9, §10).
pub fn pack(deck_size: i32) -> Vec<Card> {
    let ranks = match deck_size {
        20 => 5,
        32 => 8,
        _ => 6, // 24, and 48: two 24-card packs
    };
    let copies = if deck_size == 48 { 2 } else { 1 };
    let mut cards = Vec::new();
    for _ in 0..copies {
        for suit in Suit::ALL {
            for rank in RANKS.iter().take(ranks) {
                cards.push(Card::new(*rank, suit));
            }
        }
    }
    cards
}

/// One action word of a request (§2, §4.1). A word version 1 does not define is `Unknown`, kept
/// so that a bot can still answer with one it knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Play(Card),
    Marry(Suit),
    Exchange,
    Close,
    Claim,
    Pass,
    Unknown(String),
}

impl Action {
    pub fn parse(word: &str) -> Action {
        match word {
            "exchange" => return Action::Exchange,
            "close" => return Action::Close,
            "claim" => return Action::Claim,
            "pass" => return Action::Pass,
            _ => {}
        }
        if let Some(card) = word.strip_prefix("play:") {
            if let Ok(c) = Card::parse(card) {
                return Action::Play(c);
            }
        }
        if let Some(suit) = word.strip_prefix("marry:") {
            if let Ok(s) = Suit::parse(suit) {
                return Action::Marry(s);
            }
        }
        Action::Unknown(word.to_string())
    }
}

/// The word exactly as a request lists it: what the bot writes back.
impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Play(c) => write!(f, "play:{}", c),
            Action::Marry(s) => write!(f, "marry:{}", s),
            Action::Exchange => f.write_str("exchange"),
            Action::Close => f.write_str("close"),
            Action::Claim => f.write_str("claim"),
            Action::Pass => f.write_str("pass"),
            Action::Unknown(w) => f.write_str(w),
        }
    }
}

/// A player as a line names it: `me` or `opp` with two players, a seat number with three or
/// four (§2, §9.1). `GameState::seat_of` turns any of them into a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    Me,
    Opp,
    Seat(usize),
}

impl Who {
    pub fn parse(word: &str) -> Result<Who, ProtocolError> {
        match word {
            "me" => Ok(Who::Me),
            "opp" => Ok(Who::Opp),
            "0" => Ok(Who::Seat(0)),
            "1" => Ok(Who::Seat(1)),
            "2" => Ok(Who::Seat(2)),
            "3" => Ok(Who::Seat(3)),
            _ => Err(ProtocolError(format!("not a player (me, opp or a seat number): '{}'", word))),
        }
    }
}

impl fmt::Display for Who {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Who::Me => f.write_str("me"),
            Who::Opp => f.write_str("opp"),
            Who::Seat(n) => write!(f, "{}", n),
        }
    }
}
