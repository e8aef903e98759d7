'use strict';
// Every message of PROTOCOL.md read and written back, two players and three or four.
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseLine, formatMessage, ready, decline } = require('../src/protocol');
const { ProtocolError, parseAction, beats } = require('../src/cards');
const { EXAMPLE_2P, EXAMPLE_3P, refereeLines } = require('../testdata/transcripts');

// One line per message kind and form; each must read and write back byte for byte.
const LINES = {
  hello: 'sixtysix 1',
  hello_nseat: 'sixtysix 1 players 4 profile four_player',
  match: 'match m-1 profile sixty_six target 7 seat 0 opponent greedy decision_ms 1000',
  match_nseat: 'match g.7 profile four_player target 7 players 4 seat 2 names a b c d decision_ms 500',
  rules: 'rules deck_size=24 claim_after_meld=true',
  deal: 'deal 3 dealer me upcard 9H stock 12 hand AC TC KS QS JD 9D score 2 1 pot 1',
  deal_nseat: 'deal 1 dealer 3 upcard 9D stock 20 hand AS AS TH KH QH 9H 9D score 0 0 pot 0',
  lead: 'lead? exchange close marry:S claim play:AC play:9C',
  follow: 'follow? exchange play:KD',
  after_trick: 'after_trick? claim close pass',
  close_exchange: 'close_exchange? exchange pass',
  between_tricks: 'between_tricks? exchange pass',
  played: 'played opp TS',
  played_nseat: 'played 3 TS',
  trick: 'trick me QD TS',
  trick_nseat: 'trick 2 KH 7H KS AH',
  marriage: 'marriage opp H 40',
  exchange: 'exchange me KC 9C',
  close: 'close opp',
  draw_mine: 'draw me KS',
  draw_hidden: 'draw opp',
  draw_faceup: 'draw opp 9C',
  draw_nseat: 'draw 0',
  claim: 'claim me',
  claim_nseat: 'claim 1',
  settle: 'settle winner me reason claim_against_close points 2 awarded 2 totals 72 13 tricks 3 1 score 2 0 pot 0',
  settle_draw: 'settle winner none reason draw points 0 awarded 0 totals 65 65 tricks 6 6 score 2 0 pot 1',
  settle_3p: 'settle winner none reason wrong_claim points 2 awarded 2 0 2 totals 0 28 0 tricks 0 2 0 score 2 0 2 pot 0 dead KC AD',
  settle_4p: 'settle winner 0 reason claim points 1 awarded 1 0 totals 101 60 tricks 5 3 score 1 0 pot 0',
  match_end: 'match_end winner opp reason target score 3 7',
  match_end_fault: 'match_end winner opp reason forfeit score 0 0 fault malformed by me',
  match_end_nseat: 'match_end winner none reason forfeit score 2 4 1 fault timeout by 2',
};

for (const [name, line] of Object.entries(LINES)) {
  test(`${name} reads and writes back unchanged`, () => {
    const msg = parseLine(line);
    assert.notEqual(msg.type, 'unknown');
    assert.equal(formatMessage(msg), line);
    assert.deepEqual(parseLine(formatMessage(msg)), msg);
  });
}

test('the fields of each message are read', () => {
  assert.deepEqual(parseLine(LINES.hello_nseat),
    { type: 'hello', version: 1, players: 4, profile: 'four_player' });
  const match = parseLine(LINES.match_nseat);
  assert.equal(match.seat, 2);
  assert.deepEqual(match.names, ['a', 'b', 'c', 'd']);
  assert.equal(match.decisionMs, 500);
  assert.equal(parseLine(LINES.match).opponent, 'greedy');
  assert.deepEqual(parseLine(LINES.rules).flags, { deck_size: '24', claim_after_meld: 'true' });
  const deal = parseLine(LINES.deal_nseat);
  assert.equal(deal.dealer, 3);
  assert.deepEqual(deal.hand, ['AS', 'AS', 'TH', 'KH', 'QH', '9H', '9D']); // two packs: twice
  assert.deepEqual(deal.score, [0, 0]);
  const lead = parseLine(LINES.lead);
  assert.equal(lead.decision, 'lead');
  assert.deepEqual(lead.actions.map((a) => a.kind), ['exchange', 'close', 'marry', 'claim', 'play', 'play']);
  assert.equal(lead.actions[2].suit, 'S');
  assert.equal(lead.actions[4].card, 'AC');
  assert.deepEqual(parseLine(LINES.trick_nseat).cards, ['KH', '7H', 'KS', 'AH']);
  assert.equal(parseLine(LINES.draw_hidden).card, null);
  assert.equal(parseLine(LINES.draw_faceup).card, '9C');
  const settle = parseLine(LINES.settle_3p);
  assert.equal(settle.winner, null);
  assert.deepEqual(settle.awarded, [2, 0, 2]);
  assert.deepEqual(settle.dead, ['KC', 'AD']);
  assert.equal(parseLine(LINES.settle_4p).winner, 0); // side 0 is not "none"
  const end = parseLine(LINES.match_end_fault);
  assert.deepEqual([end.winner, end.reason, end.fault, end.by], ['opp', 'forfeit', 'malformed', 'me']);
});

test('every line of both PROTOCOL.md examples reads and writes back', () => {
  for (const line of [...refereeLines(EXAMPLE_2P), ...refereeLines(EXAMPLE_3P)]) {
    const msg = parseLine(line);
    assert.notEqual(msg.type, 'unknown', line);
    assert.equal(formatMessage(msg), line);
  }
});

test('a line whose first word is new is unknown, not an error (§1, §8)', () => {
  assert.deepEqual(parseLine('chat hello there'), { type: 'unknown', line: 'chat hello there' });
  assert.equal(parseLine('think? play:AC').type, 'unknown'); // version 1 gains no new requests
});

test('a \\r before the \\n is dropped (§1)', () => {
  assert.deepEqual(parseLine('claim opp\r\n'), { type: 'claim', who: 'opp' });
});

test('new words in the match line are kept, not fatal', () => {
  const msg = parseLine('match m profile sixty_six target 7 seat 1 opponent x decision_ms 900 bank_ms 5000');
  assert.equal(msg.decisionMs, 900);
  assert.deepEqual(msg.extra, { bank_ms: '5000' });
});

test('an unknown action word in a request is kept so the bot can choose another', () => {
  const msg = parseLine('lead? teleport play:AC');
  assert.deepEqual(msg.actions.map((a) => a.kind), ['unknown', 'play']);
});

const BAD = [
  'played me XX', 'played someone AC', 'deal x dealer me upcard KC stock 1 hand AC score 0 0 pot 0',
  'marriage me Z 20', 'trick me AC', 'settle winner me', 'match_end winner me reason target',
  'rules novalue', 'claim  me', 'draw me AC KC', 'lead?',
];
for (const line of BAD) {
  test(`a broken known line is a ProtocolError: ${line}`, () => {
    assert.throws(() => parseLine(line), ProtocolError);
  });
}

test('answers: ready, decline, actions', () => {
  assert.equal(ready('kit-js'), 'ready kit-js');
  assert.throws(() => ready('two words'), ProtocolError);
  assert.equal(decline('does not support  four_player'), 'decline does not support four_player');
  assert.equal(decline(), 'decline');
  assert.deepEqual(parseAction('marry:H'), { kind: 'marry', card: null, suit: 'H', text: 'marry:H' });
  assert.throws(() => parseAction('play:1H'), ProtocolError);
});

test('beats: suit, rank and trump (RULES.md §5.1), the first of two twins wins (§10.3)', () => {
  assert.ok(beats('TH', 'KH', 'C'));
  assert.ok(!beats('KH', 'TH', 'C'));
  assert.ok(beats('9C', 'AH', 'C'));
  assert.ok(!beats('AS', '9H', 'C'));
  assert.ok(!beats('AH', 'AH', 'C'));
});
