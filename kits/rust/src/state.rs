//! What one seat has seen of its match, kept up to date from the referee's messages.
//!
//! `GameState::update` folds one message into the state: only what the lines said, plus what
//! follows by the rules (the stock's size, which cards are unseen, which marriages count). The
//! referee sends no totals during a deal (RULES.md §3, PROTOCOL.md §4.2: the mental count), so
//! `my_points` is the seat counting for itself. Players are seat numbers everywhere, also with two
//! players (`me` is `seat`, `opp` the other); a side is a seat, except with four players, where
//! partners (k and k+2) are side k % 2 (§9.1).

use std::collections::BTreeMap;

use crate::cards::{pack, Card, Rank, Suit, Who};
use crate::protocol::Message;

pub const TWO_PLAYER_TARGET: i32 = 66; // §3: every two-player profile
pub const FOUR_PLAYER_TARGET: i32 = 101;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StockState {
    Open,
    Closed,
    Exhausted,
}

/// A marriage as shown, with the side's tricks at that moment (for next_trick_after_meld).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownMarriage {
    pub seat: usize,
    pub suit: Suit,
    pub points: i32,
    pub tricks_before: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrickSeen {
    pub winner: usize,
    pub cards: Vec<Card>,
}

#[derive(Debug, Clone, Default)]
pub struct GameState {
    // The match (§3, §9).
    pub match_id: String,
    pub profile: String,
    pub match_target: u32,
    pub seat: usize,
    pub players: usize,
    pub names: Vec<String>,
    pub opponent: Option<String>,
    pub decision_ms: u32,
    pub first_decision_ms: u32,
    pub bank_ms: u32,
    pub rules: BTreeMap<String, String>, // every flag, as text
    pub score: Vec<u32>,
    pub pot: u32,
    pub last_settle: Option<Message>,
    pub match_end: Option<Message>,
    // The deal.
    pub deal_no: u32,
    pub dealer: Option<usize>,
    pub trump: Option<Suit>,
    pub upcard: Option<Card>,       // the face-up card under an open stock
    pub stock_bottom: Option<Card>, // the bottom card, still known once face down (a close)
    pub stock: u32,                 // cards in the stock, the up-card included (§4)
    pub stock_state: Option<StockState>,
    pub closer: Option<usize>,
    pub exchanged_by: Option<usize>,
    pub claimed_by: Option<usize>,
    pub leader: Option<usize>, // who leads the current (or next) trick
    pub last_trick_winner: Option<usize>,
    pub table: Vec<(usize, Card)>, // the trick under way: seat and card
    pub tricks: Vec<TrickSeen>,
    pub hand: Vec<Card>, // a list: two packs hold twins
    pub played: Vec<Card>,
    pub played_by: Vec<Vec<Card>>,
    pub known: Vec<Vec<Card>>, // cards another seat surely holds
    pub hand_sizes: Vec<u32>,
    pub won: Vec<Vec<Card>>, // cards in each side's tricks
    pub tricks_won: Vec<u32>,
    pub marriages: Vec<ShownMarriage>,
    pub dead_pile: Vec<Card>,
    pub deal_over: bool,
    pub request: Option<Message>,
}

fn remove_one(cards: &mut Vec<Card>, card: Card) {
    if let Some(i) = cards.iter().position(|&c| c == card) {
        cards.remove(i);
    }
}

impl GameState {
    pub fn new() -> GameState {
        let mut s = GameState { players: 2, score: vec![0, 0], ..GameState::default() };
        s.reset_deal();
        s
    }

    fn reset_match(&mut self) {
        *self = GameState::new();
    }

    fn reset_deal(&mut self) {
        self.deal_no = 0;
        self.dealer = None;
        self.trump = None;
        self.upcard = None;
        self.stock_bottom = None;
        self.stock = 0;
        self.stock_state = Some(StockState::Open);
        self.closer = None;
        self.exchanged_by = None;
        self.claimed_by = None;
        self.leader = None;
        self.last_trick_winner = None;
        self.table.clear();
        self.tricks.clear();
        self.hand.clear();
        self.played.clear();
        self.played_by = vec![Vec::new(); self.players];
        self.known = vec![Vec::new(); self.players];
        self.hand_sizes = vec![0; self.players];
        self.won = vec![Vec::new(); self.sides()];
        self.tricks_won = vec![0; self.sides()];
        self.marriages.clear();
        self.dead_pile.clear();
        self.deal_over = false;
        self.request = None;
    }

    // -- seats and sides --------------------------------------------------------------------

    /// The seat a line's player names: me, opp (two players) or a seat number.
    pub fn seat_of(&self, who: Who) -> usize {
        match who {
            Who::Me => self.seat,
            Who::Opp => 1 - self.seat.min(1),
            Who::Seat(n) => n,
        }
    }

    pub fn sides(&self) -> usize {
        if self.players == 3 {
            3
        } else {
            2
        }
    }

    pub fn side_of(&self, player: usize) -> usize {
        if self.players == 4 {
            player % 2
        } else {
            player
        }
    }

    pub fn my_side(&self) -> usize {
        self.side_of(self.seat)
    }

    /// The seat opposite with four players.
    pub fn partner(&self) -> Option<usize> {
        if self.players == 4 {
            Some((self.seat + 2) % 4)
        } else {
            None
        }
    }

    pub fn next_seat(&self, player: usize) -> usize {
        (player + 1) % self.players
    }

    pub fn flag<'a>(&'a self, name: &str, fallback: &'a str) -> &'a str {
        self.rules.get(name).map(|v| v.as_str()).unwrap_or(fallback)
    }

    /// The card points a side needs for a claim: 66, or 101 with four players (the rules line).
    pub fn claim_target(&self) -> i32 {
        if let Some(Ok(n)) = self.rules.get("claim_target").map(|v| v.parse()) {
            return n;
        }
        if self.players == 4 {
            FOUR_PLAYER_TARGET
        } else {
            TWO_PLAYER_TARGET
        }
    }

    // -- folding messages in ----------------------------------------------------------------

    pub fn update(&mut self, msg: &Message) {
        match msg {
            Message::Hello { players, profile, .. } => {
                self.reset_match();
                self.players = *players;
                self.profile = profile.clone().unwrap_or_default();
                self.reset_deal();
            }
            Message::Match { match_id, profile, target, seat, players, opponent, names, decision_ms, .. } => {
                self.reset_match();
                self.match_id = match_id.clone();
                self.profile = profile.clone();
                self.match_target = *target;
                self.seat = *seat;
                self.players = *players;
                self.names = names.clone();
                self.opponent = opponent.clone();
                self.decision_ms = *decision_ms;
                self.first_decision_ms = *decision_ms;
                self.score = vec![0; self.sides()];
                self.reset_deal();
            }
            Message::Clock { first_decision_ms, bank_ms, .. } => {
                self.first_decision_ms = *first_decision_ms;
                self.bank_ms = *bank_ms;
            }
            Message::Rules { flags } => {
                for (k, v) in flags {
                    self.rules.insert(k.clone(), v.clone()); // several lines add up (§3)
                }
                if let Some(Ok(n)) = self.rules.get("players").map(|v| v.parse::<usize>()) {
                    if n != self.players && (2..=4).contains(&n) {
                        self.players = n;
                        self.reset_deal();
                    }
                }
            }
            Message::Deal { deal_no, dealer, upcard, stock, hand, score, pot } => {
                self.reset_deal();
                self.deal_no = *deal_no;
                let dealer = self.seat_of(*dealer);
                self.dealer = Some(dealer);
                self.upcard = Some(*upcard);
                self.stock_bottom = Some(*upcard);
                self.trump = Some(upcard.suit);
                self.stock = *stock;
                self.hand = hand.clone();
                self.hand_sizes = vec![hand.len() as u32; self.players]; // everyone is dealt as many
                self.score = score.clone();
                self.pot = *pot;
                // The dealer's left leads trick 1: the non-dealer with two players (RULES.md §2.5).
                self.leader = Some(self.next_seat(dealer));
            }
            Message::Played { who, card } => self.on_played(self.seat_of(*who), *card),
            Message::Trick { who, cards } => self.on_trick(self.seat_of(*who), cards),
            Message::Marriage { who, suit, points } => {
                let player = self.seat_of(*who);
                let tricks_before = self.tricks_won[self.side_of(player)];
                self.marriages.push(ShownMarriage { seat: player, suit: *suit, points: *points as i32, tricks_before });
                if player != self.seat {
                    // Both cards were shown; the declarer keeps them until it plays them.
                    for rank in [Rank::King, Rank::Queen] {
                        let card = Card::new(rank, *suit);
                        if !self.known[player].contains(&card) {
                            self.known[player].push(card);
                        }
                    }
                }
            }
            Message::Exchange { who, took, gave } => {
                let player = self.seat_of(*who);
                let held = if player == self.seat { &mut self.hand } else { &mut self.known[player] };
                remove_one(held, *gave);
                held.push(*took);
                self.stock_bottom = Some(*gave);
                // After a close (DP-X) the card goes under a stock that is already face down.
                self.upcard = if self.stock_state == Some(StockState::Open) { Some(*gave) } else { None };
                self.exchanged_by = Some(player);
            }
            Message::Close { who } => {
                self.closer = Some(self.seat_of(*who));
                self.stock_state = Some(StockState::Closed);
                self.upcard = None; // turned face down (RULES.md §5.5); stock_bottom stays known
            }
            Message::Draw { who, card } => self.on_draw(self.seat_of(*who), *card),
            Message::Claim { who } => self.claimed_by = Some(self.seat_of(*who)),
            Message::Request { .. } => self.request = Some(msg.clone()),
            Message::Settle { score, pot, dead, .. } => {
                self.last_settle = Some(msg.clone());
                self.score = score.clone();
                self.pot = *pot;
                self.dead_pile = dead.clone();
                self.deal_over = true;
                self.request = None;
            }
            Message::MatchEnd { score, .. } => {
                self.match_end = Some(msg.clone());
                self.score = score.clone();
                self.request = None;
            }
            Message::Unknown(_) => {}
        }
    }

    fn on_played(&mut self, player: usize, card: Card) {
        self.played.push(card);
        self.played_by[player].push(card);
        self.hand_sizes[player] = self.hand_sizes[player].saturating_sub(1);
        if player == self.seat {
            remove_one(&mut self.hand, card);
        } else {
            remove_one(&mut self.known[player], card);
        }
        if self.table.is_empty() {
            self.leader = Some(player);
        }
        self.table.push((player, card));
    }

    fn on_trick(&mut self, winner: usize, cards: &[Card]) {
        let side = self.side_of(winner);
        self.won[side].extend_from_slice(cards);
        self.tricks_won[side] += 1;
        self.tricks.push(TrickSeen { winner, cards: cards.to_vec() });
        self.leader = Some(winner); // the winner leads next (RULES.md §4)
        self.last_trick_winner = Some(winner);
        self.table.clear();
    }

    fn on_draw(&mut self, player: usize, card: Option<Card>) {
        self.stock = self.stock.saturating_sub(1);
        self.hand_sizes[player] += 1;
        if let Some(c) = card {
            if player == self.seat {
                self.hand.push(c);
            } else {
                self.known[player].push(c); // the face-up card: public
            }
            // The up-card is drawn last (RULES.md §5.2); with two packs its twin may come first.
            if Some(c) == self.stock_bottom && self.players != 4 {
                self.upcard = None;
                self.stock_bottom = None;
            }
        }
        if self.stock == 0 {
            self.upcard = None;
            self.stock_bottom = None;
            self.stock_state = Some(StockState::Exhausted);
        }
    }

    // -- what the seat may know -------------------------------------------------------------

    /// 1 while the stock is open, 2 once it is closed or exhausted (RULES.md §0.3).
    pub fn phase(&self) -> u32 {
        if self.stock_state == Some(StockState::Open) {
            1
        } else {
            2
        }
    }

    /// The seat that plays the next card of the trick under way.
    pub fn to_play(&self) -> Option<usize> {
        if self.deal_over {
            return None;
        }
        match self.table.last() {
            None => self.leader,
            Some((seat, _)) => Some(self.next_seat(*seat)),
        }
    }

    /// The card winning the trick under way so far, and who played it.
    pub fn best(&self) -> Option<(usize, Card)> {
        let trump = self.trump?;
        let mut best: Option<(usize, Card)> = None;
        for &(seat, card) in &self.table {
            if best.map_or(true, |(_, b)| card.beats(b, trump)) {
                best = Some((seat, card));
            }
        }
        best
    }

    pub fn led(&self) -> Option<Card> {
        self.table.first().map(|&(_, c)| c)
    }

    /// Cards every other seat surely holds: shown marriages, an exchanged or drawn up-card.
    pub fn others_known(&self) -> Vec<Card> {
        let mut out = Vec::new();
        for (s, cards) in self.known.iter().enumerate() {
            if s != self.seat {
                out.extend_from_slice(cards);
            }
        }
        out
    }

    /// How many copies of each card the seat knows nothing about: in other hands, the stock or
    /// (three players) the dead pile.
    pub fn unseen_counts(&self) -> BTreeMap<Card, u32> {
        let fallback = match self.players {
            4 => "48",
            3 => "32",
            _ => "24",
        };
        let mut counts = BTreeMap::new();
        for c in pack(self.flag("deck_size", fallback).parse().unwrap_or(24)) {
            *counts.entry(c).or_insert(0) += 1;
        }
        let mut seen: Vec<Card> = self.hand.clone();
        seen.extend_from_slice(&self.played);
        seen.extend(self.others_known());
        seen.extend_from_slice(&self.dead_pile);
        seen.extend(self.stock_bottom);
        for c in seen {
            if let Some(n) = counts.get_mut(&c) {
                *n -= 1;
                if *n == 0 {
                    counts.remove(&c);
                }
            }
        }
        counts
    }

    /// Cards any other seat may hold: known or unseen.
    pub fn others_possible(&self) -> Vec<Card> {
        let mut out = self.others_known();
        for c in self.unseen_counts().keys() {
            if !out.contains(c) {
                out.push(*c);
            }
        }
        out
    }

    // -- the mental count (RULES.md §7.1, §10; PROTOCOL.md §4.2, §9.3) -----------------------

    /// RULES.md §5.4: a marriage counts once its side has a trick (by default any trick; with
    /// marriage_credit=next_trick_after_meld only one won after it was shown).
    pub fn credited(&self, m: &ShownMarriage) -> bool {
        let tricks = self.tricks_won[self.side_of(m.seat)];
        if self.flag("marriage_credit", "once_any_trick") == "next_trick_after_meld" {
            return tricks > m.tricks_before;
        }
        tricks > 0
    }

    /// RULES.md §7.1: the winner of the last trick of a deal played out with the stock exhausted
    /// (never closed); it counts already at the after_trick? that follows that trick (§4.2).
    pub fn last_trick_bonus(&self, side: usize) -> i32 {
        let played_out = self.stock_state == Some(StockState::Exhausted)
            && self.hand.is_empty()
            && self.table.is_empty()
            && !self.tricks.is_empty();
        match self.last_trick_winner {
            Some(w) if played_out && self.side_of(w) == side => self.flag("last_trick_bonus", "10").parse().unwrap_or(0),
            _ => 0,
        }
    }

    /// A side's total so far: every card of every trick is public, and so is every marriage.
    pub fn points(&self, side: usize) -> i32 {
        let cards: i32 = self.won[side].iter().map(|c| c.points()).sum();
        let marriages: i32 = self
            .marriages
            .iter()
            .filter(|m| self.side_of(m.seat) == side && self.credited(m))
            .map(|m| m.points)
            .sum();
        cards + marriages + self.last_trick_bonus(side)
    }

    /// The seat's own count: its side's card points, credited marriages and last-trick bonus.
    pub fn my_points(&self) -> i32 {
        self.points(self.my_side())
    }

    /// Marriage points of a side that count once it wins a trick.
    pub fn pending_marriage_points(&self, side: usize) -> i32 {
        self.marriages
            .iter()
            .filter(|m| self.side_of(m.seat) == side && !self.credited(m))
            .map(|m| m.points)
            .sum()
    }
}
