'use strict';
// Every line of protocol version 1 (protocol/PROTOCOL.md) to a message object and back.
//
// parseLine(text) reads one line from the referee: { type: 'hello' | 'match' | 'rules' | 'deal' |
// 'request' | 'played' | 'trick' | 'marriage' | 'exchange' | 'close' | 'draw' | 'claim' | 'settle' |
// 'match_end' | 'unknown', ... }. A first word version 1 does not define is { type: 'unknown' }:
// bots ignore those (§1, §8). A known word with bad arguments throws ProtocolError.
// formatMessage(msg) writes any message back as its line (without the "\n"); a bot itself writes only
// ready(), decline() and the `text` of one offered action.
//
// A player (`who`) is 'me' or 'opp' with two players, a seat number with three or four (§9).
// Per-side figures (score, totals, tricks, awarded) are arrays: [mine, theirs] with two players,
// one number per side, side 0 first, with more.

const { ProtocolError, parseCard, parseSuit, parseAction } = require('./cards');

const PROTOCOL_NAME = 'sixtysix';
const MAX_LINE_BYTES = 1024; // §1: not counting the "\n"
const DECISIONS = ['lead', 'follow', 'after_trick', 'close_exchange', 'between_tricks'];
const NAME_RE = /^[A-Za-z0-9_.+-]{1,64}$/;
const COUNT_RE = /^(0|[1-9][0-9]*)$/;

// -- reading ---------------------------------------------------------------------------------------

/** A cursor over the words after the first, with errors that name the message. */
class Words {
  constructor(first, rest, line) {
    this.first = first;
    this.rest = rest;
    this.pos = 0;
    this.line = line;
  }

  error(reason) {
    return new ProtocolError(`${this.first}: ${reason}`, this.line);
  }

  more() { return this.pos < this.rest.length; }
  peek() { return this.more() ? this.rest[this.pos] : null; }

  word(what) {
    if (!this.more()) throw this.error(`missing ${what}`);
    return this.rest[this.pos++];
  }

  keyword(expected) {
    const word = this.word(`'${expected}'`);
    if (word !== expected) throw this.error(`expected '${expected}', got '${word}'`);
  }

  count(what) {
    const word = this.word(what);
    if (!COUNT_RE.test(word)) throw this.error(`${what} must be a whole number, got '${word}'`);
    return Number(word);
  }

  card(what = 'card') {
    try { return parseCard(this.word(what)); } catch (err) { throw this.error(err.message); }
  }

  suit() {
    try { return parseSuit(this.word('suit')); } catch (err) { throw this.error(err.message); }
  }

  who(what = 'who') {
    const word = this.word(what);
    if (word === 'me' || word === 'opp') return word;
    if (/^[0-3]$/.test(word)) return Number(word);
    throw this.error(`${what} must be me, opp or a seat number, got '${word}'`);
  }

  whoOrNone(what) {
    if (this.peek() === 'none') { this.pos++; return null; }
    return this.who(what);
  }

  /** Whole numbers up to `stop` (or the end of the line): one per side (§9). */
  countsUntil(what, stop) {
    const out = [];
    while (this.more() && this.peek() !== stop) out.push(this.count(what));
    if (out.length === 0) throw this.error(`missing ${what}`);
    return out;
  }

  end() {
    if (this.more()) throw this.error(`unexpected words: '${this.rest.slice(this.pos).join(' ')}'`);
  }
}

function parseHello(w) {
  const msg = { type: 'hello', version: w.count('version'), players: 2, profile: null };
  if (w.more()) { // §9.1: sixtysix 1 players <n> profile <p>
    w.keyword('players');
    msg.players = w.count('players');
    w.keyword('profile');
    msg.profile = w.word('profile');
  }
  return msg;
}

function parseMatch(w) {
  // §3 and §9.2. Read as keyword/value pairs, so a word a newer referee adds is kept in `extra`
  // rather than breaking the line.
  const msg = {
    type: 'match', matchId: w.word('match id'), profile: null, target: 0, seat: 0, players: 2,
    opponent: null, names: [], decisionMs: 0, extra: {},
  };
  while (w.more()) {
    const key = w.word('key');
    switch (key) {
      case 'profile': msg.profile = w.word('profile'); break;
      case 'target': msg.target = w.count('target'); break;
      case 'seat': msg.seat = w.count('seat'); break;
      case 'players': msg.players = w.count('players'); break;
      case 'opponent': msg.opponent = w.word('opponent'); break;
      case 'decision_ms': msg.decisionMs = w.count('decision_ms'); break;
      case 'names':
        while (w.more() && w.peek() !== 'decision_ms') msg.names.push(w.word('name'));
        break;
      default: msg.extra[key] = w.word(key);
    }
  }
  if (msg.profile === null) throw w.error('missing profile');
  return msg;
}

function parseRules(w) {
  // Flags add up over several rules lines (§3); unknown flags are kept, the tracker ignores them.
  const flags = {};
  while (w.more()) {
    const word = w.word('flag');
    const eq = word.indexOf('=');
    if (eq <= 0) throw w.error(`'${word}' is not <flag>=<value>`);
    flags[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return { type: 'rules', flags };
}

function parseDeal(w) {
  const msg = { type: 'deal', dealNo: w.count('deal number') };
  w.keyword('dealer');
  msg.dealer = w.who('dealer');
  w.keyword('upcard');
  msg.upcard = w.card('upcard');
  w.keyword('stock');
  msg.stock = w.count('stock');
  w.keyword('hand');
  msg.hand = [];
  while (w.more() && w.peek() !== 'score') msg.hand.push(w.card('card of the hand'));
  w.keyword('score');
  msg.score = w.countsUntil('score', 'pot');
  w.keyword('pot');
  msg.pot = w.count('pot');
  return msg;
}

function parseRequest(w) {
  // A request lists every legal action (§4.1); an action word version 1 does not define is kept as
  // kind 'unknown' so that a bot can still answer with one it knows.
  const actions = w.rest.map((word) => {
    try { return parseAction(word); } catch (err) {
      return { kind: 'unknown', card: null, suit: null, text: word };
    }
  });
  w.pos = w.rest.length;
  if (actions.length === 0) throw w.error('a request lists at least one action');
  return { type: 'request', decision: w.first.slice(0, -1), actions };
}

function parseTrick(w) {
  const msg = { type: 'trick', who: w.who(), cards: [w.card('led card'), w.card('followed card')] };
  while (w.more()) msg.cards.push(w.card('card of the trick')); // §9: 3 or 4 cards
  return msg;
}

function parseSettle(w) {
  w.keyword('winner');
  const msg = { type: 'settle', winner: w.whoOrNone('winner') };
  w.keyword('reason');
  msg.reason = w.word('reason');
  w.keyword('points');
  msg.points = w.count('points');
  w.keyword('awarded');
  msg.awarded = w.countsUntil('awarded', 'totals'); // one number with two players
  w.keyword('totals');
  msg.totals = w.countsUntil('totals', 'tricks');
  w.keyword('tricks');
  msg.tricks = w.countsUntil('tricks', 'score');
  w.keyword('score');
  msg.score = w.countsUntil('score', 'pot');
  w.keyword('pot');
  msg.pot = w.count('pot');
  msg.dead = [];
  if (w.more()) { // §9.4: three players show the dead pile
    w.keyword('dead');
    msg.dead = [w.card('dead card'), w.card('dead card')];
  }
  return msg;
}

function parseMatchEnd(w) {
  w.keyword('winner');
  const msg = { type: 'match_end', winner: w.whoOrNone('winner'), fault: null, by: null };
  w.keyword('reason');
  msg.reason = w.word('reason');
  w.keyword('score');
  msg.score = w.countsUntil('score', 'fault');
  if (w.more()) {
    w.keyword('fault');
    msg.fault = w.word('fault');
    w.keyword('by');
    msg.by = w.who('offender');
  }
  return msg;
}

const PARSERS = {
  [PROTOCOL_NAME]: parseHello,
  match: parseMatch,
  rules: parseRules,
  deal: parseDeal,
  played: (w) => ({ type: 'played', who: w.who(), card: w.card() }),
  trick: parseTrick,
  marriage: (w) => ({ type: 'marriage', who: w.who(), suit: w.suit(), points: w.count('points') }),
  exchange: (w) => ({ type: 'exchange', who: w.who(), took: w.card('card taken'),
    gave: w.card('card given') }),
  close: (w) => ({ type: 'close', who: w.who() }),
  draw: (w) => ({ type: 'draw', who: w.who(), card: w.more() ? w.card() : null }),
  claim: (w) => ({ type: 'claim', who: w.who() }),
  settle: parseSettle,
  match_end: parseMatchEnd,
};
for (const d of DECISIONS) PARSERS[`${d}?`] = parseRequest;

/** One referee line (with or without its "\n"; a "\r" before it is dropped, §1) as a message. */
function parseLine(line) {
  let text = line.endsWith('\n') ? line.slice(0, -1) : line;
  if (text.endsWith('\r')) text = text.slice(0, -1);
  const words = text.split(' ');
  const parse = PARSERS[words[0]];
  if (parse === undefined) return { type: 'unknown', line: text };
  if (words.includes('')) throw new ProtocolError('words must be separated by single spaces', text);
  const w = new Words(words[0], words.slice(1), text);
  const msg = parse(w);
  w.end();
  return msg;
}

// -- writing ---------------------------------------------------------------------------------------

/** The answer to the greeting (§3). */
function ready(name) {
  if (!NAME_RE.test(name)) throw new ProtocolError(`bad bot name ${JSON.stringify(name)}: 1 to 64 of A-Z a-z 0-9 _ . + -`);
  return `ready ${name}`;
}

/** The answer to a three- or four-player greeting the bot does not play (§9.1). */
function decline(text = '') {
  const clean = text.replace(/[^\x20-\x7e]/g, '').split(' ').filter(Boolean).join(' ');
  return clean ? `decline ${clean}` : 'decline';
}

const orNone = (who) => (who === null ? 'none' : String(who));

/** Any message as its line, without the "\n": parseLine(formatMessage(m)) gives m back. */
function formatMessage(msg) {
  switch (msg.type) {
    case 'hello':
      return msg.profile === null ? `${PROTOCOL_NAME} ${msg.version}`
        : `${PROTOCOL_NAME} ${msg.version} players ${msg.players} profile ${msg.profile}`;
    case 'match': {
      const extra = Object.entries(msg.extra || {}).map(([k, v]) => ` ${k} ${v}`).join('');
      if (msg.opponent !== null) {
        return `match ${msg.matchId} profile ${msg.profile} target ${msg.target} seat ${msg.seat} ` +
          `opponent ${msg.opponent} decision_ms ${msg.decisionMs}${extra}`;
      }
      return `match ${msg.matchId} profile ${msg.profile} target ${msg.target} players ` +
        `${msg.players} seat ${msg.seat} names ${msg.names.join(' ')} decision_ms ${msg.decisionMs}${extra}`;
    }
    case 'rules':
      return ['rules', ...Object.entries(msg.flags).map(([k, v]) => `${k}=${v}`)].join(' ');
    case 'deal':
      return `deal ${msg.dealNo} dealer ${msg.dealer} upcard ${msg.upcard} stock ${msg.stock} ` +
        `hand ${msg.hand.join(' ')} score ${msg.score.join(' ')} pot ${msg.pot}`;
    case 'request':
      return `${msg.decision}? ${msg.actions.map((a) => a.text).join(' ')}`;
    case 'played': return `played ${msg.who} ${msg.card}`;
    case 'trick': return `trick ${msg.who} ${msg.cards.join(' ')}`;
    case 'marriage': return `marriage ${msg.who} ${msg.suit} ${msg.points}`;
    case 'exchange': return `exchange ${msg.who} ${msg.took} ${msg.gave}`;
    case 'close': return `close ${msg.who}`;
    case 'draw': return msg.card === null ? `draw ${msg.who}` : `draw ${msg.who} ${msg.card}`;
    case 'claim': return `claim ${msg.who}`;
    case 'settle': {
      const line = `settle winner ${orNone(msg.winner)} reason ${msg.reason} points ${msg.points} ` +
        `awarded ${msg.awarded.join(' ')} totals ${msg.totals.join(' ')} tricks ` +
        `${msg.tricks.join(' ')} score ${msg.score.join(' ')} pot ${msg.pot}`;
      return msg.dead.length ? `${line} dead ${msg.dead.join(' ')}` : line;
    }
    case 'match_end': {
      const line = `match_end winner ${orNone(msg.winner)} reason ${msg.reason} score ${msg.score.join(' ')}`;
      return msg.fault === null ? line : `${line} fault ${msg.fault} by ${msg.by}`;
    }
    case 'unknown': return msg.line;
    default: throw new TypeError(`not a protocol message: ${JSON.stringify(msg)}`);
  }
}

module.exports = {
  PROTOCOL_NAME, MAX_LINE_BYTES, DECISIONS, parseLine, formatMessage, ready, decline,
};
