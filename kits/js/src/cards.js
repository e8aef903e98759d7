'use strict';
// Cards, suits and actions as the wire writes them (PROTOCOL.md §2): a card is two characters,
// rank then suit ("TH" is the ten of hearts); an action is one word ("play:TH", "marry:S", "pass").
// Cards stay plain strings, so they compare with === and print as they are sent.

const RANKS = 'ATKQJ987'; // strongest first (RULES.md §1)
const SUITS = 'CSHD';
const POINTS = { A: 11, T: 10, K: 4, Q: 3, J: 2, 9: 0, 8: 0, 7: 0 };

class ProtocolError extends Error {
  constructor(message, line) {
    super(line === undefined ? message : `${message} (line ${JSON.stringify(line)})`);
    this.name = 'ProtocolError';
    this.line = line;
  }
}

function isCard(word) {
  return typeof word === 'string' && word.length === 2 &&
    RANKS.includes(word[0]) && SUITS.includes(word[1]);
}

function parseCard(word) {
  if (!isCard(word)) throw new ProtocolError(`not a card: ${JSON.stringify(word)}`);
  return word;
}

function parseSuit(word) {
  if (typeof word !== 'string' || word.length !== 1 || !SUITS.includes(word)) {
    throw new ProtocolError(`not a suit: ${JSON.stringify(word)}`);
  }
  return word;
}

const rankOf = (card) => card[0];
const suitOf = (card) => card[1];
const pointsOf = (card) => POINTS[card[0]];
/** 0 for an ace up to 7 for a seven: a lower strength number is a stronger card. */
const strengthOf = (card) => RANKS.indexOf(card[0]);

/**
 * Does `card`, played after `best` (the card winning the trick so far), take the trick from it?
 * RULES.md §5.1: the same suit and a higher rank, or a trump on a plain card. Of two identical
 * cards (two packs, §10.3) the one played first wins, so an equal card never beats.
 */
function beats(card, best, trump) {
  if (suitOf(card) === suitOf(best)) return strengthOf(card) < strengthOf(best);
  return suitOf(card) === trump;
}

/** The cards of the pack a rules line's deck_size names (RULES.md §1, §9, §10). */
function packCards(deckSize) {
  const ranks = { 20: 'ATKQJ', 24: 'ATKQJ9', 32: 'ATKQJ987', 48: 'ATKQJ9' }[deckSize] || 'ATKQJ9';
  const copies = deckSize === 48 ? 2 : 1;
  const cards = [];
  for (let n = 0; n < copies; n++) {
    for (const s of SUITS) for (const r of ranks) cards.push(r + s);
  }
  return cards;
}

// -- actions ---------------------------------------------------------------------------------------

const SIMPLE_ACTIONS = new Set(['exchange', 'close', 'claim', 'pass']);

/**
 * An action word as a small object: { kind, card, suit, text }. `text` is the word exactly as the
 * request listed it, which is what the bot must write back (PROTOCOL.md §4.1).
 */
function parseAction(word) {
  if (SIMPLE_ACTIONS.has(word)) return { kind: word, card: null, suit: null, text: word };
  if (word.startsWith('play:') && isCard(word.slice(5))) {
    return { kind: 'play', card: word.slice(5), suit: null, text: word };
  }
  if (word.startsWith('marry:') && word.length === 7 && SUITS.includes(word[6])) {
    return { kind: 'marry', card: null, suit: word[6], text: word };
  }
  throw new ProtocolError(`not an action: ${JSON.stringify(word)}`);
}

module.exports = {
  RANKS, SUITS, POINTS, ProtocolError, isCard, parseCard, parseSuit, rankOf, suitOf, pointsOf,
  strengthOf, beats, packCards, parseAction,
};
