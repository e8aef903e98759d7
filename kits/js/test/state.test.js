'use strict';
// The tracker: the mental count (RULES.md §7.1, §10; PROTOCOL.md §4.2, §9.3) and what is public.
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseLine } = require('../src/protocol');
const { GameState } = require('../src/state');
const { SampleBot } = require('../src/bot');
const { answer } = require('../src/run');
const { SIXTY_SIX_RULES, EXAMPLE_2P, EXAMPLE_3P, refereeLines } = require('../testdata/transcripts');

/** A state fed `lines`; `check(state, line)` runs after each one. */
function feed(lines, check = () => {}, state = new GameState()) {
  for (const line of lines) {
    state.update(parseLine(line));
    check(state, line);
  }
  return state;
}

test('PROTOCOL.md §7: seat 1 counts 13, 33, 53, 59, 72 and the bot claims only at 72', () => {
  const seen = [];
  const bot = new SampleBot();
  const state = new GameState();
  const answers = [];
  for (const line of refereeLines(EXAMPLE_2P)) {
    const reply = answer(bot, state, parseLine(line));
    if (line.startsWith('trick ') || line.startsWith('marriage ')) seen.push(state.myPoints());
    if (line.startsWith('after_trick?')) answers.push(reply);
  }
  // marriage D (not yet credited: no trick), trick QD TS (+13 +20), marriage S, trick lost,
  // trick JD KD (+6), trick AC JC (+13)
  assert.deepEqual(seen, [0, 33, 53, 53, 59, 72]);
  assert.deepEqual(answers, ['pass', 'pass', 'claim']);
  assert.equal(state.points(0), 13); // the opponent (seat 0): QS TC, as the settle line says
  assert.equal(state.dealOver, true);
  assert.deepEqual(state.score, [2, 0]);
});

test('PROTOCOL.md §7: hand, trump, stock, exchange and close are tracked', () => {
  const lines = refereeLines(EXAMPLE_2P);
  const upTo = (prefix) => feed(lines.slice(0, lines.findIndex((l) => l.startsWith(prefix)) + 1));
  let s = upTo('deal ');
  assert.equal(s.seat, 1);
  assert.equal(s.dealer, 0);
  assert.equal(s.leader, 1); // the non-dealer leads
  assert.equal(s.trump, 'C');
  assert.equal(s.stock, 12);
  assert.equal(s.claimTarget, 66);
  s = upTo('draw opp');
  assert.equal(s.stock, 10);
  assert.deepEqual(s.hand.slice().sort(), ['9C', 'AC', 'JH', 'KD', 'KS', 'QS'].sort());
  assert.deepEqual(s.handSizes, [6, 6]);
  s = upTo('exchange ');
  assert.ok(s.hand.includes('KC') && !s.hand.includes('9C'));
  assert.equal(s.upcard, '9C');
  assert.equal(s.exchangedBy, 1);
  s = upTo('close ');
  assert.equal(s.stockState, 'closed');
  assert.equal(s.closer, 0);
  assert.equal(s.upcard, null);
  assert.equal(s.stockBottom, '9C');
  assert.equal(s.phase, 2);
  s = upTo('played opp JD');
  assert.equal(s.led, 'JD');
  assert.deepEqual(s.best, { seat: 0, card: 'JD' });
  assert.equal(s.toPlay, 1);
  assert.deepEqual(s.playedBy[0], ['TS', 'TC', 'JD']);
});

test('PROTOCOL.md §9.7: three players, seat 1 counts 28 (8 + 0 + the heart marriage)', () => {
  const s = feed(refereeLines(EXAMPLE_3P).filter((l) => !l.startsWith('settle')));
  assert.equal(s.players, 3);
  assert.equal(s.sides, 3);
  assert.equal(s.myPoints(), 28);
  assert.equal(s.points(0), 0);
  assert.equal(s.stock, 6);
  assert.deepEqual(s.handSizes, [6, 6, 6]); // 7, less two cards played, plus one draw
  assert.equal(s.upcard, '7D');
  assert.deepEqual(s.tricksWon, [0, 2, 0]);
  const last = feed(refereeLines(EXAMPLE_3P));
  assert.deepEqual(last.deadPile, ['KC', 'AD']);
  assert.deepEqual(last.score, [2, 0, 2]);
});

test('the three-player bot does not claim at 28 where the random bot did', () => {
  const bot = new SampleBot();
  const state = new GameState();
  let reply = null;
  for (const line of refereeLines(EXAMPLE_3P)) {
    if (line.startsWith('claim ')) break;
    reply = answer(bot, state, parseLine(line));
  }
  assert.equal(reply, 'pass');
});

const FOUR = [
  'sixtysix 1 players 4 profile four_player',
  'match q profile four_player target 7 players 4 seat 1 names a b c d decision_ms 1000',
  'rules deck_size=48 players=4 claim_target=101 marriage_credit=once_any_trick last_trick_bonus=10',
  'deal 1 dealer 0 upcard 9D stock 20 hand AS AS TH KH QH 9H 9D score 0 0 pot 0',
];

test('four players: partners pool card points and marriages, the target is 101', () => {
  const s = feed([
    ...FOUR,
    'marriage 3 C 20',            // the partner shows clubs: pending until the side has a trick
    'played 1 AS', 'played 2 TS', 'played 3 AS', 'played 0 KS',
    'trick 1 AS TS AS KS',        // the first of two aces wins: side 1 gets 36
    'draw 1 QD', 'draw 2', 'draw 3', 'draw 0',
  ]);
  assert.equal(s.claimTarget, 101);
  assert.equal(s.partner, 3);
  assert.equal(s.mySide, 1);
  assert.equal(s.points(1), 36 + 20);
  assert.equal(s.points(0), 0);
  assert.deepEqual(s.knownCards(3), ['KC', 'QC']);
  assert.equal(s.stock, 16);
  assert.equal(s.leader, 1);
  // Two packs: the other AS is still in my hand, and no AS is unseen any more.
  assert.deepEqual(s.hand.filter((c) => c === 'AS'), ['AS']);
  assert.equal(s.unseenCounts().get('AS'), undefined);
  assert.equal(s.unseenCounts().get('TS'), 1);
});

test('marriage_credit=next_trick_after_meld credits only a trick won after the marriage', () => {
  const base = ['sixtysix 1', 'match m profile x target 7 seat 0 opponent o decision_ms 1000',
    'rules marriage_credit=next_trick_after_meld',
    'deal 1 dealer opp upcard 9C stock 10 hand KH QH AS TS JD score 0 0 pot 0',
    'played me AS', 'played opp 9S', 'trick me AS 9S', 'marriage me H 20'];
  const s = feed(base);
  assert.equal(s.myPoints(), 11);
  assert.equal(s.pendingMarriagePoints(), 20);
  feed(['played me KH', 'played opp JH', 'trick me KH JH'], () => {}, s);
  assert.equal(s.myPoints(), 11 + 20 + 6);
});

test('the last-trick bonus counts after the last trick of a played-out deal, not after a close', () => {
  const lines = ['sixtysix 1', 'match m profile sixty_six target 7 seat 0 opponent o decision_ms 1000',
    SIXTY_SIX_RULES, 'deal 1 dealer opp upcard 9C stock 2 hand AS score 0 0 pot 0',
    'draw me TS', 'draw opp 9C'];
  const open = feed([...lines, 'played me AS', 'played opp 9S', 'trick me AS 9S']);
  assert.equal(open.stockState, 'exhausted');
  assert.equal(open.hand.length, 1);
  assert.equal(open.myPoints(), 11); // a card still in hand: not the last trick
  feed(['played me TS', 'played opp 9C', 'trick me TS 9C'], () => {}, open);
  assert.equal(open.myPoints(), 11 + 10 + 10);
  const closed = feed(['sixtysix 1', 'match m profile sixty_six target 7 seat 0 opponent o decision_ms 1000',
    SIXTY_SIX_RULES, 'deal 1 dealer opp upcard 9C stock 4 hand AS score 0 0 pot 0', 'close me',
    'played me AS', 'played opp 9S', 'trick me AS 9S']);
  assert.equal(closed.myPoints(), 11);
  const schnapsen = feed([...lines.slice(0, 2), 'rules last_trick_bonus=0', ...lines.slice(3),
    'played me AS', 'played opp 9S', 'trick me AS 9S', 'played me TS', 'played opp 9C', 'trick me TS 9C']);
  assert.equal(schnapsen.myPoints(), 21);
});

test('a new deal and a new match forget the old one', () => {
  const s = feed(refereeLines(EXAMPLE_2P));
  feed(['deal 2 dealer me upcard AH stock 12 hand 9H KC QC JS 9S TD score 2 0 pot 0'], () => {}, s);
  assert.equal(s.myPoints(), 0);
  assert.equal(s.marriages.length, 0);
  assert.equal(s.leader, 0);
  assert.equal(s.trump, 'H');
  feed(['match n profile schnapsen target 7 seat 0 opponent z decision_ms 800'], () => {}, s);
  assert.equal(s.matchId, 'n');
  assert.deepEqual(s.rules, {});
  assert.deepEqual(s.score, [0, 0]);
});

test('unseen cards: the pack less the hand, the played cards and the bottom card', () => {
  const s = feed(refereeLines(EXAMPLE_2P).slice(0, 5));
  const unseen = [...s.unseenCounts().keys()];
  assert.equal(unseen.length, 24 - 6 - 1);
  assert.ok(!unseen.includes('KC') && !unseen.includes('AC'));
});
