//! The kit's unit tests (`cargo test`): every message of PROTOCOL.md read and written back (two,
//! three and four players), the tracker's mental count on the documents' examples and the rules'
//! corner cases, and the sample bot's answers.

use kit_rust::bot::{Bot, SampleBot};
use kit_rust::cards::{Action, Card, Suit, Who};
use kit_rust::protocol::{decline, format, parse, ready, Message};
use kit_rust::runner::Runner;
use kit_rust::state::{GameState, StockState};

const SIXTY_SIX_RULES: &str = "rules deck_size=24 hand_size=6 deal_pattern=3_3 exchange_who=leader_or_follower \
exchange_requires_trick=true exchange_min_stock=2 exchange_on_opponent_close=true marriage_credit=once_any_trick \
marriage_in_phase2=false marriage_lead_card=king_or_queen claim_after_meld=true close_enabled=true \
claim_mode=explicit last_trick_bonus=10 match_target=7 illegal_move_policy=forfeit_match";

const THREE_PLAYER_RULES: &str = "rules deck_size=32 hand_size=7 deal_pattern=3_4 exchange_who=leader_only \
marriage_credit=once_any_trick last_trick_bonus=10 close_enabled=false players=3 claim_target=66 must_beat_partner=true";

/// PROTOCOL.md §7, seat 1 of a sixty_six match: the referee's lines ("> ") and the answers ("< ").
fn example_2p() -> Vec<String> {
    let lines = [
        "> sixtysix 1", "< ready greedy",
        "> match example17 profile sixty_six target 7 seat 1 opponent random decision_ms 1000",
        "> RULES",
        "> deal 1 dealer opp upcard KC stock 12 hand AC 9C QS JH KD QD score 0 0 pot 0",
        "> lead? close marry:D play:AC play:9C play:QS play:JH play:KD play:QD", "< marry:D",
        "> marriage me D 20", "> lead? claim play:KD play:QD", "< play:QD", "> played me QD",
        "> played opp TS", "> trick me QD TS", "> after_trick? claim close pass", "< pass",
        "> draw me KS", "> draw opp",
        "> lead? exchange close marry:S claim play:AC play:9C play:KS play:QS play:JH play:KD",
        "< exchange", "> exchange me KC 9C",
        "> lead? close marry:S claim play:AC play:KC play:KS play:QS play:JH play:KD", "< marry:S",
        "> marriage me S 20", "> lead? claim play:KS play:QS", "< play:QS", "> played me QS",
        "> played opp TC", "> trick opp QS TC", "> close opp", "> played opp JD", "> follow? play:KD",
        "< play:KD", "> played me KD", "> trick me JD KD", "> after_trick? claim pass", "< pass",
        "> lead? claim play:AC play:KC play:KS play:JH", "< play:AC", "> played me AC",
        "> played opp JC", "> trick me AC JC", "> after_trick? claim pass", "< claim", "> claim me",
        "> settle winner me reason claim_against_close points 2 awarded 2 totals 72 13 tricks 3 1 score 2 0 pot 0",
    ];
    referee_lines(&lines, SIXTY_SIX_RULES)
}

/// PROTOCOL.md §9.7, seat 1 of a three_player match.
fn example_3p() -> Vec<String> {
    let lines = [
        "> sixtysix 1 players 3 profile three_player", "< ready random",
        "> match example300 profile three_player target 7 players 3 seat 1 names random random random decision_ms 1000",
        "> RULES",
        "> deal 1 dealer 0 upcard 9D stock 9 hand AS JS TH KH QH 9H 7D score 0 0 0 pot 0",
        "> lead? marry:H play:AS play:JS play:TH play:KH play:QH play:9H play:7D", "< marry:H",
        "> marriage 1 H 20", "> lead? claim play:KH play:QH", "< play:KH", "> played 1 KH",
        "> played 2 7H", "> played 0 KS", "> trick 1 KH 7H KS", "> after_trick? claim pass", "< pass",
        "> draw 1 JD", "> draw 2", "> draw 0",
        "> lead? exchange claim play:AS play:JS play:TH play:QH play:9H play:JD play:7D", "< exchange",
        "> exchange 1 9D 7D", "> lead? claim play:AS play:JS play:TH play:QH play:9H play:JD play:9D",
        "< play:9D", "> played 1 9D", "> played 2 7S", "> played 0 8H", "> trick 1 9D 7S 8H",
        "> after_trick? claim pass", "< claim", "> claim 1",
        "> settle winner none reason wrong_claim points 2 awarded 2 0 2 totals 0 28 0 tricks 0 2 0 score 2 0 2 pot 0 dead KC AD",
    ];
    referee_lines(&lines, THREE_PLAYER_RULES)
}

fn referee_lines(transcript: &[&str], rules: &str) -> Vec<String> {
    transcript
        .iter()
        .filter_map(|l| l.strip_prefix("> "))
        .map(|l| if l == "RULES" { rules.to_string() } else { l.to_string() })
        .collect()
}

fn msg(line: &str) -> Message {
    parse(line).unwrap_or_else(|e| panic!("{}: {}", line, e))
}

fn feed(s: &mut GameState, lines: &[String]) {
    for line in lines {
        s.update(&msg(line));
    }
}

fn fed<S: AsRef<str>>(lines: &[S]) -> GameState {
    let mut s = GameState::new();
    for line in lines {
        s.update(&msg(line.as_ref()));
    }
    s
}

fn up_to(lines: &[String], prefix: &str) -> Vec<String> {
    let i = lines.iter().position(|l| l.starts_with(prefix)).expect("a line with the prefix");
    lines[..=i].to_vec()
}

fn cards(words: &str) -> Vec<Card> {
    words.split(' ').map(|w| Card::parse(w).unwrap()).collect()
}

/// Writes a line back unchanged, and reads it as what it says (not unknown).
fn round_trip(line: &str) {
    let m = msg(line);
    assert!(!matches!(m, Message::Unknown(_)), "read as unknown: {}", line);
    assert_eq!(format(&m), line);
    assert_eq!(parse(&format(&m)), Ok(m));
}

macro_rules! round_trips {
    ($($name:ident: $line:expr,)*) => {
        $(#[test] fn $name() { round_trip($line); })*
    };
}

// One line per message kind and form: each must read and write back byte for byte.
round_trips! {
    hello: "sixtysix 1",
    hello_nseat: "sixtysix 1 players 4 profile four_player",
    match_2p: "match m-1 profile sixty_six target 7 seat 0 opponent greedy decision_ms 1000",
    match_nseat: "match g.7 profile four_player target 7 players 4 seat 2 names a b c d decision_ms 500",
    clock: "clock first_decision_ms 5000 bank_ms 20000",
    rules: "rules deck_size=24 claim_after_meld=true",
    deal: "deal 3 dealer me upcard 9H stock 12 hand AC TC KS QS JD 9D score 2 1 pot 1",
    deal_nseat: "deal 1 dealer 3 upcard 9D stock 20 hand AS AS TH KH QH 9H 9D score 0 0 pot 0",
    lead: "lead? exchange close marry:S claim play:AC play:9C",
    follow: "follow? exchange play:KD",
    after_trick: "after_trick? claim close pass",
    close_exchange: "close_exchange? exchange pass",
    between_tricks: "between_tricks? exchange pass",
    played: "played opp TS",
    played_nseat: "played 3 TS",
    trick: "trick me QD TS",
    trick_nseat: "trick 2 KH 7H KS AH",
    marriage: "marriage opp H 40",
    exchange: "exchange me KC 9C",
    close: "close opp",
    draw_mine: "draw me KS",
    draw_hidden: "draw opp",
    draw_faceup: "draw opp 9C",
    draw_nseat: "draw 0",
    claim: "claim me",
    claim_nseat: "claim 1",
    settle: "settle winner me reason claim_against_close points 2 awarded 2 totals 72 13 tricks 3 1 score 2 0 pot 0",
    settle_draw: "settle winner none reason draw points 0 awarded 0 totals 65 65 tricks 6 6 score 2 0 pot 1",
    settle_3p: "settle winner none reason wrong_claim points 2 awarded 2 0 2 totals 0 28 0 tricks 0 2 0 score 2 0 2 pot 0 dead KC AD",
    settle_4p: "settle winner 0 reason claim points 1 awarded 1 0 totals 101 60 tricks 5 3 score 1 0 pot 0",
    match_end: "match_end winner opp reason target score 3 7",
    match_end_fault: "match_end winner opp reason forfeit score 0 0 fault malformed by me",
    match_end_nseat: "match_end winner none reason forfeit score 2 4 1 fault timeout by 2",
}

#[test]
fn broken_known_lines_are_protocol_errors() {
    for line in [
        "played me XX", "played someone AC", "deal x dealer me upcard KC stock 1 hand AC score 0 0 pot 0",
        "marriage me Z 20", "trick me AC", "settle winner me", "match_end winner me reason target",
        "rules novalue", "claim  me", "draw me AC KC", "lead?", "clock first_decision_ms x",
    ] {
        assert!(parse(line).is_err(), "no error for '{}'", line);
    }
}

#[test]
fn the_fields_of_each_message_are_read() {
    assert_eq!(msg("sixtysix 1 players 4 profile four_player"),
               Message::Hello { version: 1, players: 4, profile: Some("four_player".into()) });
    match msg("match g.7 profile four_player target 7 players 4 seat 2 names a b c d decision_ms 500") {
        Message::Match { seat, names, decision_ms, opponent, .. } => {
            assert_eq!((seat, names.len(), decision_ms, opponent), (2, 4, 500, None));
        }
        other => panic!("{:?}", other),
    }
    match msg("deal 1 dealer 3 upcard 9D stock 20 hand AS AS TH KH QH 9H 9D score 0 0 pot 0") {
        Message::Deal { dealer, hand, score, .. } => {
            assert_eq!(dealer, Who::Seat(3));
            assert_eq!(hand, cards("AS AS TH KH QH 9H 9D")); // two packs: twice
            assert_eq!(score, vec![0, 0]);
        }
        other => panic!("{:?}", other),
    }
    match msg("lead? exchange close marry:S claim play:AC play:9C") {
        Message::Request { decision, actions } => {
            assert_eq!(decision, "lead");
            assert_eq!(actions, vec![Action::Exchange, Action::Close, Action::Marry(Suit::S), Action::Claim,
                                     Action::Play(Card::parse("AC").unwrap()), Action::Play(Card::parse("9C").unwrap())]);
        }
        other => panic!("{:?}", other),
    }
    assert_eq!(msg("draw opp"), Message::Draw { who: Who::Opp, card: None });
    match msg("settle winner none reason wrong_claim points 2 awarded 2 0 2 totals 0 28 0 tricks 0 2 0 score 2 0 2 pot 0 dead KC AD") {
        Message::Settle { winner, awarded, dead, .. } => {
            assert_eq!((winner, awarded, dead), (None, vec![2, 0, 2], cards("KC AD")));
        }
        other => panic!("{:?}", other),
    }
    match msg("match_end winner opp reason forfeit score 0 0 fault malformed by me") {
        Message::MatchEnd { winner, fault, .. } => {
            assert_eq!((winner, fault), (Some(Who::Opp), Some(("malformed".to_string(), Who::Me))));
        }
        other => panic!("{:?}", other),
    }
}

#[test]
fn every_line_of_both_protocol_examples_reads_and_writes_back() {
    for line in example_2p().iter().chain(example_3p().iter()) {
        round_trip(line);
    }
}

#[test]
fn a_line_whose_first_word_is_new_is_unknown_not_an_error() {
    assert_eq!(msg("chat hello there"), Message::Unknown("chat hello there".into()));
    assert_eq!(msg("think? play:AC"), Message::Unknown("think? play:AC".into())); // no new requests
}

#[test]
fn a_carriage_return_before_the_newline_is_dropped() {
    assert_eq!(msg("claim opp\r\n"), Message::Claim { who: Who::Opp });
}

#[test]
fn new_words_in_the_match_line_are_kept_not_fatal() {
    match msg("match m profile sixty_six target 7 seat 1 opponent x decision_ms 900 bank_ms 5000") {
        Message::Match { decision_ms, extra, .. } => {
            assert_eq!(decision_ms, 900);
            assert_eq!(extra, vec![("bank_ms".to_string(), "5000".to_string())]);
        }
        other => panic!("{:?}", other),
    }
}

#[test]
fn an_unknown_action_word_is_kept() {
    assert_eq!(msg("lead? teleport play:AC"),
               Message::Request { decision: "lead".into(),
                                  actions: vec![Action::Unknown("teleport".into()), Action::Play(Card::parse("AC").unwrap())] });
    assert_eq!(Action::parse("play:1H"), Action::Unknown("play:1H".into()));
}

#[test]
fn answers_ready_and_decline() {
    assert_eq!(ready("kit-rust").unwrap(), "ready kit-rust");
    assert!(ready("two words").is_err());
    assert_eq!(decline("does not support  four_player"), "decline does not support four_player");
    assert_eq!(decline(""), "decline");
}

#[test]
fn beats_suit_rank_trump_and_the_first_twin() {
    let c = |w: &str| Card::parse(w).unwrap();
    assert!(c("TH").beats(c("KH"), Suit::C));
    assert!(!c("KH").beats(c("TH"), Suit::C));
    assert!(c("9C").beats(c("AH"), Suit::C)); // a trump beats a plain ace
    assert!(!c("AS").beats(c("9H"), Suit::C)); // another plain suit never wins
    assert!(!c("AH").beats(c("AH"), Suit::C)); // the first of two twins wins
    assert_eq!(c("TH").to_string(), "TH");
}

#[test]
fn protocol_example_seat_1_counts_and_claims_only_at_72() {
    let mut runner = Runner::quiet(SampleBot::new("kit-rust"));
    let (mut seen, mut answers) = (Vec::new(), Vec::new());
    for line in example_2p() {
        let reply = runner.answer(&msg(&line));
        if line.starts_with("trick ") || line.starts_with("marriage ") {
            seen.push(runner.state.my_points());
        }
        if line.starts_with("after_trick?") {
            answers.push(reply.unwrap());
        }
    }
    // marriage D (no trick yet), trick QD TS (+13 +20), marriage S, a lost trick, JD KD, AC JC
    assert_eq!(seen, vec![0, 33, 53, 53, 59, 72]);
    assert_eq!(answers, vec!["pass", "pass", "claim"]);
    assert_eq!(runner.state.points(0), 13); // the opponent: QS TC, as the settle line says
    assert!(runner.state.deal_over);
    assert_eq!(runner.state.score, vec![2, 0]);
}

#[test]
fn protocol_example_hand_trump_stock_exchange_and_close_are_tracked() {
    let lines = example_2p();
    let s = fed(&up_to(&lines, "deal "));
    assert_eq!((s.seat, s.dealer, s.leader), (1, Some(0), Some(1))); // the non-dealer leads
    assert_eq!((s.trump, s.stock, s.claim_target()), (Some(Suit::C), 12, 66));
    let s = fed(&up_to(&lines, "draw opp"));
    assert_eq!(s.stock, 10);
    assert_eq!(s.hand.len(), 6);
    assert_eq!(s.hand_sizes[0], 6);
    let s = fed(&up_to(&lines, "exchange "));
    assert!(s.hand.contains(&Card::parse("KC").unwrap()) && !s.hand.contains(&Card::parse("9C").unwrap()));
    assert_eq!((s.upcard, s.exchanged_by), (Some(Card::parse("9C").unwrap()), Some(1)));
    let s = fed(&up_to(&lines, "close "));
    assert_eq!(s.stock_state, Some(StockState::Closed));
    assert_eq!((s.closer, s.upcard, s.stock_bottom), (Some(0), None, Some(Card::parse("9C").unwrap())));
    assert_eq!(s.phase(), 2);
    let s = fed(&up_to(&lines, "played opp JD"));
    assert_eq!(s.led(), Some(Card::parse("JD").unwrap()));
    assert_eq!(s.best(), Some((0, Card::parse("JD").unwrap())));
    assert_eq!(s.to_play(), Some(1));
    assert_eq!(s.played_by[0], cards("TS TC JD"));
}

#[test]
fn three_players_seat_1_counts_28() {
    let mut lines = example_3p();
    lines.pop(); // before the settle line
    let s = fed(&lines);
    assert_eq!((s.players, s.sides(), s.my_points(), s.points(0), s.stock), (3, 3, 28, 0, 6));
    assert_eq!(s.hand_sizes, vec![6, 6, 6]); // 7, two played, one drawn
    assert_eq!(s.upcard, Some(Card::parse("7D").unwrap()));
    assert_eq!(s.tricks_won, vec![0, 2, 0]);
    let last = fed(&example_3p());
    assert_eq!(last.dead_pile, cards("KC AD"));
    assert_eq!(last.score, vec![2, 0, 2]);
}

#[test]
fn the_three_player_bot_does_not_claim_at_28() {
    let mut runner = Runner::quiet(SampleBot::new("k"));
    let mut reply = None;
    for line in example_3p() {
        if line.starts_with("claim ") {
            break;
        }
        if let Some(r) = runner.answer(&msg(&line)) {
            reply = Some(r);
        }
    }
    assert_eq!(reply.as_deref(), Some("pass"));
}

#[test]
fn four_players_partners_pool_points_and_the_target_is_101() {
    let s = fed(&[
        "sixtysix 1 players 4 profile four_player",
        "match q profile four_player target 7 players 4 seat 1 names a b c d decision_ms 1000",
        "rules deck_size=48 players=4 claim_target=101 marriage_credit=once_any_trick last_trick_bonus=10",
        "deal 1 dealer 0 upcard 9D stock 20 hand AS AS TH KH QH 9H 9D score 0 0 pot 0",
        "marriage 3 C 20", // the partner shows clubs: pending until the side has a trick
        "played 1 AS", "played 2 TS", "played 3 AS", "played 0 KS",
        "trick 1 AS TS AS KS", // the first of two aces wins: side 1 gets 36
        "draw 1 QD", "draw 2", "draw 3", "draw 0",
    ]);
    assert_eq!((s.claim_target(), s.partner(), s.my_side()), (101, Some(3), 1));
    assert_eq!((s.points(1), s.points(0)), (36 + 20, 0));
    assert_eq!(s.known[3], cards("KC QC"));
    assert_eq!((s.stock, s.leader), (16, Some(1)));
    assert_eq!(s.hand.iter().filter(|c| **c == Card::parse("AS").unwrap()).count(), 1); // one twin left
    let unseen = s.unseen_counts();
    assert_eq!(unseen.get(&Card::parse("AS").unwrap()), None);
    assert_eq!(unseen.get(&Card::parse("TS").unwrap()), Some(&1));
}

#[test]
fn next_trick_after_meld_credits_only_a_later_trick() {
    let mut s = fed(&[
        "sixtysix 1", "match m profile x target 7 seat 0 opponent o decision_ms 1000",
        "rules marriage_credit=next_trick_after_meld",
        "deal 1 dealer opp upcard 9C stock 10 hand KH QH AS TS JD score 0 0 pot 0",
        "played me AS", "played opp 9S", "trick me AS 9S", "marriage me H 20",
    ]);
    assert_eq!((s.my_points(), s.pending_marriage_points(0)), (11, 20));
    feed(&mut s, &["played me KH".into(), "played opp JH".into(), "trick me KH JH".into()]);
    assert_eq!(s.my_points(), 11 + 20 + 6);
}

#[test]
fn the_last_trick_bonus_counts_in_a_played_out_deal_not_after_a_close() {
    let start: Vec<String> = vec![
        "sixtysix 1".into(), "match m profile sixty_six target 7 seat 0 opponent o decision_ms 1000".into(),
        SIXTY_SIX_RULES.into(), "deal 1 dealer opp upcard 9C stock 2 hand AS score 0 0 pot 0".into(),
        "draw me TS".into(), "draw opp 9C".into(),
    ];
    let mut open = fed(&start);
    feed(&mut open, &["played me AS".into(), "played opp 9S".into(), "trick me AS 9S".into()]);
    assert_eq!(open.stock_state, Some(StockState::Exhausted));
    assert_eq!(open.my_points(), 11); // a card still in hand: not the last trick
    feed(&mut open, &["played me TS".into(), "played opp 9C".into(), "trick me TS 9C".into()]);
    assert_eq!(open.my_points(), 11 + 10 + 10);
    let closed = fed(&[
        "sixtysix 1", "match m profile sixty_six target 7 seat 0 opponent o decision_ms 1000", SIXTY_SIX_RULES,
        "deal 1 dealer opp upcard 9C stock 4 hand AS score 0 0 pot 0", "close me", "played me AS",
        "played opp 9S", "trick me AS 9S",
    ]);
    assert_eq!(closed.my_points(), 11);
    let mut schnapsen = start.clone();
    schnapsen[2] = "rules last_trick_bonus=0".into();
    let mut no_bonus = fed(&schnapsen);
    feed(&mut no_bonus, &["played me AS".into(), "played opp 9S".into(), "trick me AS 9S".into(),
                          "played me TS".into(), "played opp 9C".into(), "trick me TS 9C".into()]);
    assert_eq!(no_bonus.my_points(), 21);
}

#[test]
fn a_new_deal_and_a_new_match_forget_the_old_one() {
    let mut s = fed(&example_2p());
    feed(&mut s, &["deal 2 dealer me upcard AH stock 12 hand 9H KC QC JS 9S TD score 2 0 pot 0".into()]);
    assert_eq!((s.my_points(), s.marriages.len(), s.leader, s.trump), (0, 0, Some(0), Some(Suit::H)));
    feed(&mut s, &["match n profile schnapsen target 7 seat 0 opponent z decision_ms 800".into()]);
    assert_eq!(s.match_id, "n");
    assert!(s.rules.is_empty());
    assert_eq!(s.score, vec![0, 0]);
}

#[test]
fn the_clock_line_sets_the_first_decisions_limit_and_the_bank() {
    let s = fed(&["sixtysix 1", "match m profile sixty_six target 7 seat 0 opponent o decision_ms 1000",
                  "clock first_decision_ms 4000 bank_ms 9000"]);
    assert_eq!((s.decision_ms, s.first_decision_ms, s.bank_ms), (1000, 4000, 9000));
}

#[test]
fn unseen_cards_are_the_pack_less_the_hand_and_the_bottom_card() {
    let s = fed(&example_2p()[..5]);
    let unseen = s.unseen_counts();
    assert_eq!(unseen.len(), 24 - 6 - 1);
    assert!(!unseen.contains_key(&Card::parse("KC").unwrap()) && !unseen.contains_key(&Card::parse("AC").unwrap()));
}

#[test]
fn greetings_ready_for_two_three_and_four_players() {
    for line in ["sixtysix 1", "sixtysix 1 players 3 profile three_player", "sixtysix 1 players 4 profile four_player"] {
        assert_eq!(Runner::quiet(SampleBot::new("me-bot")).answer(&msg(line)).unwrap(), "ready me-bot");
    }
}

/// A bot that answers what it is told to, for the runner's fallbacks.
struct Scripted(fn(&[Action]) -> Action);

impl Bot for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }
    fn decide(&mut self, _s: &GameState, actions: &[Action]) -> Action {
        (self.0)(actions)
    }
}

#[test]
fn a_bot_that_does_not_play_a_variant_declines_it() {
    let mut runner = Runner::quiet(Scripted(|a| a[0].clone()));
    assert_eq!(runner.answer(&msg("sixtysix 1 players 4 profile four_player")).unwrap(),
               "decline does not support four_player");
    assert_eq!(runner.answer(&msg("sixtysix 1")).unwrap(), "ready scripted");
}

#[test]
fn an_answer_outside_the_offered_list_is_replaced_by_an_offered_one() {
    let mut wrong = Runner::quiet(Scripted(|_| Action::Claim));
    assert_eq!(wrong.answer(&msg("follow? play:AC play:9C")).unwrap(), "play:AC");
    let mut broken = Runner::quiet(Scripted(|_| panic!("a bug in decide")));
    assert_eq!(broken.answer(&msg("after_trick? claim pass")).unwrap(), "pass");
}

#[test]
fn events_and_unknown_lines_get_no_answer() {
    let mut runner = Runner::quiet(SampleBot::new("k"));
    assert_eq!(runner.answer(&msg("played opp TS")), None);
    assert_eq!(runner.answer(&msg("chat hello")), None);
}

#[test]
fn claims_at_exactly_the_target_and_not_one_point_below() {
    let lines = example_2p();
    let cut = lines.iter().position(|l| l == "trick me AC JC").unwrap();
    // 59 before the last trick; the trick's cards make 66 exactly, or 63 to 65.
    for (trick, expected) in [("trick me KC QC", "66 claim"), ("trick me KC JC", "65 pass"),
                              ("trick me JC QC", "64 pass"), ("trick me KC 9S", "63 pass")] {
        let mut runner = Runner::quiet(SampleBot::new("k"));
        for line in &lines[..cut] {
            runner.answer(&msg(line));
        }
        runner.answer(&msg(trick));
        let reply = runner.answer(&msg("after_trick? claim pass")).unwrap();
        assert_eq!(format!("{} {}", runner.state.my_points(), reply), expected);
    }
}

#[test]
fn the_loop_plays_a_scripted_dialogue_over_streams() {
    let mut input = String::new();
    let mut requests = 0;
    for line in example_2p() {
        if line.starts_with("claim") || line.starts_with("settle") {
            continue;
        }
        input.push_str(&line);
        input.push_str("\r\n"); // with the tolerated \r
        requests += line.contains("? ") as usize;
    }
    let mut out = Vec::new();
    Runner::quiet(SampleBot::new("kit-rust")).run(input.as_bytes(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let answers: Vec<&str> = text.lines().collect();
    assert_eq!(answers[0], "ready kit-rust");
    assert_eq!(answers.len(), 1 + requests);
    assert_eq!(*answers.last().unwrap(), "claim");
}

#[test]
fn the_program_answers_over_real_pipes_and_exits_0() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_kit-rust"))
        .arg("piped")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"sixtysix 1\nfollow? play:9C play:AC\n").unwrap();
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(out, "ready piped\nplay:9C\n");
}

#[test]
fn every_answer_of_a_four_player_deal_is_offered() {
    let mut runner = Runner::quiet(SampleBot::new("k"));
    for line in [
        "sixtysix 1 players 4 profile four_player",
        "match w profile four_player target 7 players 4 seat 1 names a b c d decision_ms 1000",
        "rules deck_size=48 players=4 claim_target=101 must_beat_partner=true",
        "deal 1 dealer 0 upcard 9D stock 20 hand AS AS TH KH QH 9H 9D score 0 0 pot 0",
        "lead? marry:H play:AS play:AS play:TH play:KH play:QH play:9H play:9D",
        "marriage 1 H 20", "lead? claim play:KH play:QH", "played 1 KH", "played 2 TH",
        "played 3 AH", "played 0 9H", "trick 3 KH TH AH 9H", "draw 3", "draw 0", "draw 1 JD",
        "draw 2", "played 3 QS", "played 0 KS",
        "follow? play:AS play:AS play:TH play:QH play:9H play:JD play:9D",
    ] {
        let m = msg(line);
        let reply = runner.answer(&m);
        if let Message::Request { actions, .. } = &m {
            let reply = reply.unwrap();
            assert!(actions.iter().any(|a| a.to_string() == reply), "{} answers {}", reply, line);
        }
    }
}
