//! The bot trait and the sample bot: the ideas of the arena's greedy bot (bots/greedy_bot.py,
//! bots/nseat.py) on the tracker. It claims the moment its side's count reaches the claim target
//! (and never below), exchanges, shows its best marriage, closes only when its sure winners bring
//! it to the target, and plays cheaply. Replace `SampleBot::decide` with your own policy.

use crate::cards::{Action, Card, Rank, Suit};
use crate::state::{GameState, StockState};

pub trait Bot {
    /// The name it answers the greeting with (1 to 64 of A-Z a-z 0-9 _ . + -).
    fn name(&self) -> String;
    /// Whether it plays a match of `players` in `profile` (the greeting of §9.1).
    fn supports(&self, players: usize, _profile: &str) -> bool {
        players == 2
    }
    /// One of `actions` (the request's list, §4.1) for the state `s`.
    fn decide(&mut self, s: &GameState, actions: &[Action]) -> Action;
}

const HIGH_POINTS: i32 = 10; // an ace or a ten is worth a trump in phase 1

pub struct SampleBot {
    pub name: String,
}

impl SampleBot {
    pub fn new(name: &str) -> SampleBot {
        SampleBot { name: name.to_string() }
    }
}

impl Bot for SampleBot {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn supports(&self, _players: usize, _profile: &str) -> bool {
        true // two, three and four players
    }

    fn decide(&mut self, s: &GameState, actions: &[Action]) -> Action {
        // The count is ours to keep (RULES.md §3): claim exactly when it reaches the target.
        if actions.contains(&Action::Claim) && s.my_points() >= s.claim_target() {
            return Action::Claim;
        }
        if actions.contains(&Action::Exchange) {
            return Action::Exchange; // the up-card is never worse than the lowest trump
        }
        if actions.contains(&Action::Close) && close_is_sure(s) {
            return Action::Close;
        }
        let trump = s.trump;
        let mut marriage = None;
        for a in actions {
            if let Action::Marry(suit) = a {
                if may_marry(s, *suit) && (marriage.is_none() || Some(*suit) == trump) {
                    marriage = Some(a.clone()); // 40 before 20
                }
            }
        }
        if let Some(m) = marriage {
            return m;
        }
        let cards: Vec<Card> = actions
            .iter()
            .filter_map(|a| if let Action::Play(c) = a { Some(*c) } else { None })
            .collect();
        if cards.is_empty() || trump.is_none() {
            if actions.contains(&Action::Pass) {
                return Action::Pass;
            }
            return actions[0].clone();
        }
        let card = match (s.players == 2, s.table.is_empty()) {
            (true, true) => lead2(s, &cards),
            (true, false) => follow2(s, &cards),
            (false, true) => lead_n(s, &cards),
            (false, false) => follow_n(s, &cards),
        };
        Action::Play(card)
    }
}

fn trump_of(s: &GameState) -> Suit {
    s.trump.unwrap_or(Suit::C)
}

/// Can no card still out beat `card` led now? With two players and the stock exhausted the
/// opponent's hand is known exactly and must follow suit (RULES.md §6), so a card is sure when it
/// is the best he could answer with; otherwise any unseen card might beat it.
fn sure_winner(s: &GameState, card: Card, extra_opp: Option<Card>) -> bool {
    let trump = trump_of(s);
    let mut opp = s.others_possible();
    opp.extend(extra_opp);
    if s.players == 2 && s.stock_state == Some(StockState::Exhausted) && extra_opp.is_none() {
        let same: Vec<&Card> = opp.iter().filter(|o| o.suit == card.suit).collect();
        if !same.is_empty() {
            return same.iter().all(|o| o.rank.strength() > card.rank.strength());
        }
        return card.suit == trump || !opp.iter().any(|o| o.suit == trump);
    }
    !opp.iter().any(|o| o.beats(card, trump))
}

/// Close only when the count plus sure winners reaches the target (RULES.md §7.4: a failed close
/// costs 2 or 3). The opponent may take the bottom card at the close: count it as his.
fn close_is_sure(s: &GameState) -> bool {
    let mut bound = s.my_points() + s.pending_marriage_points(s.my_side());
    let mut any = false;
    for &c in &s.hand {
        if sure_winner(s, c, s.stock_bottom) {
            any = true;
            bound += c.points();
        }
    }
    any && bound >= s.claim_target()
}

/// Show a marriage, except in phase 2 (two players) when neither card is a sure winner: it must
/// then be led, and losing that trick can cost a close.
fn may_marry(s: &GameState, suit: Suit) -> bool {
    if s.phase() == 1 || s.players != 2 {
        return true;
    }
    let king_only = s.flag("marriage_lead_card", "king_or_queen") == "king_only";
    sure_winner(s, Card::new(Rank::King, suit), None)
        || (!king_only && sure_winner(s, Card::new(Rank::Queen, suit), None))
}

/// A king or queen whose partner is in hand, while a marriage can still be shown.
fn marriage_part(s: &GameState, card: Card) -> bool {
    let other = match card.rank {
        Rank::King => Rank::Queen,
        Rank::Queen => Rank::King,
        _ => return false,
    };
    if s.phase() == 2 && s.flag("marriage_in_phase2", "false") != "true" {
        return false;
    }
    s.hand.contains(&Card::new(other, card.suit))
}

/// The card we lose least by giving away: not a trump, not half of a marriage, few points, and
/// among equals the weakest.
fn cheapest(s: &GameState, cards: &[Card]) -> Card {
    let trump = trump_of(s);
    *cards
        .iter()
        .min_by_key(|c| (c.suit == trump, marriage_part(s, **c), c.points(), -c.rank.strength()))
        .expect("a card")
}

fn weakest(cards: &[Card]) -> Card {
    *cards.iter().max_by_key(|c| c.rank.strength()).expect("a card")
}

fn count_if_won(s: &GameState, cards: &[Card]) -> i32 {
    s.my_points() + s.pending_marriage_points(s.my_side()) + cards.iter().map(|c| c.points()).sum::<i32>()
}

/// The cheapest winning card: in suit before trumping, keeping marriages, the weakest.
fn cheapest_win(s: &GameState, winning: &[Card], against: Card) -> Card {
    let trump = trump_of(s);
    *winning
        .iter()
        .min_by_key(|c| (c.suit == trump && against.suit != trump, marriage_part(s, **c), -c.rank.strength()))
        .expect("a card")
}

fn lead2(s: &GameState, cards: &[Card]) -> Card {
    let richest = cards
        .iter()
        .filter(|c| sure_winner(s, **c, None))
        .max_by_key(|c| (c.points(), -c.rank.strength()));
    if let Some(&r) = richest {
        // In phase 2 a sure winner keeps the lead and the claim window; in phase 1 it is spent
        // only when it wins the deal.
        if s.phase() == 2 || count_if_won(s, &[r]) >= s.claim_target() {
            return r;
        }
    }
    cheapest(s, cards)
}

fn follow2(s: &GameState, cards: &[Card]) -> Card {
    let trump = trump_of(s);
    let led = match s.led() {
        Some(c) => c,
        None => return cheapest(s, cards),
    };
    let winning: Vec<Card> = cards.iter().copied().filter(|c| c.beats(led, trump)).collect();
    if !winning.is_empty() {
        let win = cheapest_win(s, &winning, led);
        if count_if_won(s, &[led, win]) >= s.claim_target() || s.phase() == 2 {
            return win;
        }
        let in_suit: Vec<Card> = winning.iter().copied().filter(|c| c.suit == led.suit && !marriage_part(s, *c)).collect();
        if !in_suit.is_empty() {
            return weakest(&in_suit);
        }
        if led.points() >= HIGH_POINTS && led.suit != trump {
            let trumps: Vec<Card> = winning.iter().copied().filter(|c| c.suit == trump && !marriage_part(s, *c)).collect();
            if !trumps.is_empty() {
                return weakest(&trumps);
            }
        }
    }
    cheapest(s, cards)
}

/// Three or four players: is `card` beaten by no card still out?
fn is_top(s: &GameState, card: Card) -> bool {
    let trump = trump_of(s);
    !s.others_possible().iter().any(|o| o.beats(card, trump))
}

fn lead_n(s: &GameState, cards: &[Card]) -> Card {
    let trump = trump_of(s);
    if s.phase() == 2 {
        if let Some(&top) = cards.iter().filter(|c| is_top(s, **c)).max_by_key(|c| (c.points(), c.suit != trump)) {
            return top;
        }
    }
    let plain: Vec<Card> = cards.iter().copied().filter(|c| c.suit != trump && !marriage_part(s, *c)).collect();
    cheapest(s, if plain.is_empty() { cards } else { &plain })
}

fn follow_n(s: &GameState, cards: &[Card]) -> Card {
    let trump = trump_of(s);
    let (best_seat, best) = match s.best() {
        Some(b) => b,
        None => return cheapest(s, cards),
    };
    let last = s.table.len() + 1 == s.players;
    let partner_wins = s.partner() == Some(best_seat);
    if partner_wins && (last || is_top(s, best)) {
        // Load the partner's winning trick with points, trumps last (a side pools its points).
        return *cards.iter().max_by_key(|c| (c.suit != trump, c.points(), c.rank.strength())).expect("a card");
    }
    let winning: Vec<Card> = cards.iter().copied().filter(|c| c.beats(best, trump)).collect();
    let table_points: i32 = s.table.iter().map(|(_, c)| c.points()).sum();
    if !winning.is_empty() && !partner_wins {
        let win = cheapest_win(s, &winning, best);
        if last || s.phase() == 2 || is_top(s, win) {
            if win.suit != trump
                || best.suit == trump
                || table_points >= HIGH_POINTS
                || s.phase() == 2
                || s.my_points() + table_points + win.points() >= s.claim_target()
            {
                return win;
            }
        } else if win.suit != trump && win.points() < HIGH_POINTS {
            return win;
        }
    }
    cheapest(s, cards)
}
