'use strict';
// The sample bot: the ideas of the arena's greedy bot (bots/greedy_bot.py, bots/nseat.py) on top of
// the tracker. It claims the moment its side's count reaches the claim target (and never below),
// always exchanges, shows its best marriage, closes only when its sure winners bring it to the
// target, and plays cheaply: it wins a trick when that is cheap or worth it, else throws the card
// worth least. Replace decide() with your own policy: it gets the state and the offered actions,
// and must return one of those actions.

const { pointsOf, strengthOf, suitOf, rankOf, beats } = require('./cards');

const HIGH_POINTS = 10; // an ace or a ten led (or on the table) is worth a trump in phase 1

class SampleBot {
  constructor(name = 'kit-js') {
    this.name = name;
  }

  /** Whether to play a match of `players` in `profile` (the three- and four-player greeting,
   * PROTOCOL.md §9.1). This bot plays them all. */
  supports(players, profile) { // eslint-disable-line no-unused-vars
    return true;
  }

  /** One of `actions` (the request's list, PROTOCOL.md §4.1) for the state `s`. */
  decide(s, actions) {
    const find = (kind) => actions.find((a) => a.kind === kind);
    const claim = find('claim');
    // The count is ours to keep (RULES.md §3): claim exactly when it reaches the target.
    if (claim && s.myPoints() >= s.claimTarget) return claim;
    const exchange = find('exchange');
    if (exchange) return exchange; // the up-card is never worse than the lowest trump
    const close = find('close');
    if (close && closeIsSure(s)) return close;
    const marriages = actions.filter((a) => a.kind === 'marry' && mayMarry(s, a.suit));
    if (marriages.length) return marriages.find((a) => a.suit === s.trump) || marriages[0];
    const plays = actions.filter((a) => a.kind === 'play');
    if (plays.length === 0) return find('pass') || actions[0];
    const cards = plays.map((a) => a.card);
    let card;
    if (s.players === 2) card = s.table.length === 0 ? lead2(s, cards) : follow2(s, cards);
    else card = s.table.length === 0 ? leadN(s, cards) : followN(s, cards);
    return plays.find((a) => a.card === card);
  }
}

// -- what is sure ----------------------------------------------------------------------------------

/** Can no card still out beat `card` led now? With two players and the stock exhausted the
 * opponent's hand is known exactly and must follow suit (RULES.md §6), so a card is sure when it
 * is the best he could answer with; otherwise any unseen card might beat it. */
function sureWinner(s, card, extraOpp = []) {
  const opp = [...new Set([...s.othersPossible(), ...extraOpp])];
  if (s.players === 2 && s.stockState === 'exhausted' && extraOpp.length === 0) {
    const same = opp.filter((o) => suitOf(o) === suitOf(card));
    if (same.length) return same.every((o) => strengthOf(o) > strengthOf(card));
    return suitOf(card) === s.trump || !opp.some((o) => suitOf(o) === s.trump);
  }
  return !opp.some((o) => beats(o, card, s.trump));
}

/** Close only when the count plus sure winners reaches the target (RULES.md §7.4: a failed close
 * costs 2 or 3). The opponent may take the bottom card at the close, so it counts as his. */
function closeIsSure(s) {
  const extra = s.stockBottom === null ? [] : [s.stockBottom];
  const winners = s.hand.filter((c) => sureWinner(s, c, extra));
  if (winners.length === 0) return false;
  const bound = s.myPoints() + s.pendingMarriagePoints() +
    winners.reduce((sum, c) => sum + pointsOf(c), 0);
  return bound >= s.claimTarget;
}

/** Show a marriage, except in phase 2 (two players) when neither card is a sure winner: the
 * marriage must then be led, and losing that trick can cost a close. */
function mayMarry(s, suit) {
  if (s.phase === 1 || s.players !== 2) return true;
  const leads = s.flag('marriage_lead_card', 'king_or_queen') === 'king_only' ? ['K'] : ['K', 'Q'];
  return leads.some((r) => sureWinner(s, r + suit));
}

// -- which card ------------------------------------------------------------------------------------

/** A king or queen whose partner is in hand, while a marriage can still be shown. */
function marriagePart(s, card) {
  const r = rankOf(card);
  if (r !== 'K' && r !== 'Q') return false;
  if (s.phase === 2 && s.flag('marriage_in_phase2', 'false') !== 'true') return false;
  return s.hand.includes((r === 'K' ? 'Q' : 'K') + suitOf(card));
}

/** Compare arrays of numbers or booleans, first element first. */
function compareKeys(a, b) {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

const minBy = (cards, key) => cards.reduce((m, c) => (compareKeys(key(c), key(m)) < 0 ? c : m));
const maxBy = (cards, key) => cards.reduce((m, c) => (compareKeys(key(c), key(m)) > 0 ? c : m));

/** The card we lose least by giving away: not a trump, not half of a marriage, few points, and
 * among equals the weakest. */
function cheapest(s, cards) {
  return minBy(cards, (c) => [+(suitOf(c) === s.trump), +marriagePart(s, c), pointsOf(c),
    -strengthOf(c)]);
}

const weakest = (cards) => maxBy(cards, (c) => [strengthOf(c)]);

function countIfWon(s, cards) {
  return s.myPoints() + s.pendingMarriagePoints() + cards.reduce((t, c) => t + pointsOf(c), 0);
}

function lead2(s, cards) {
  const winners = cards.filter((c) => sureWinner(s, c));
  if (winners.length) {
    const richest = maxBy(winners, (c) => [pointsOf(c), -strengthOf(c)]);
    // In phase 2 a sure winner keeps the lead and the claim window; in phase 1 it is spent only
    // when it wins the deal.
    if (s.phase === 2 || countIfWon(s, [richest]) >= s.claimTarget) return richest;
  }
  return cheapest(s, cards);
}

function follow2(s, cards) {
  const led = s.led;
  const trump = s.trump;
  const winning = cards.filter((c) => beats(c, led, trump));
  if (winning.length) {
    // Win in suit before trumping, keep marriages, and use the weakest card that does it.
    const cheapestWin = minBy(winning, (c) => [+(suitOf(c) === trump && suitOf(led) !== trump),
      +marriagePart(s, c), -strengthOf(c)]);
    if (countIfWon(s, [led, cheapestWin]) >= s.claimTarget) return cheapestWin;
    if (s.phase === 2) return cheapestWin; // the follow rules already chose the cards offered
    const inSuit = winning.filter((c) => suitOf(c) === suitOf(led) && !marriagePart(s, c));
    if (inSuit.length) return weakest(inSuit);
    if (pointsOf(led) >= HIGH_POINTS && suitOf(led) !== trump) {
      const trumps = winning.filter((c) => suitOf(c) === trump && !marriagePart(s, c));
      if (trumps.length) return weakest(trumps);
    }
  }
  return cheapest(s, cards);
}

/** Three or four players: is `card` beaten by no copy of a card still out? */
function isTop(s, card) {
  for (const other of s.unseenCounts().keys()) if (beats(other, card, s.trump)) return false;
  for (const other of s.knownCards()) if (beats(other, card, s.trump)) return false;
  return true;
}

function leadN(s, cards) {
  if (s.phase === 2) {
    const tops = cards.filter((c) => isTop(s, c));
    if (tops.length) return maxBy(tops, (c) => [pointsOf(c), +(suitOf(c) !== s.trump)]);
  }
  const plain = cards.filter((c) => suitOf(c) !== s.trump && !marriagePart(s, c));
  return cheapest(s, plain.length ? plain : cards);
}

function followN(s, cards) {
  const best = s.best;
  const trump = s.trump;
  const last = s.table.length === s.players - 1;
  const partnerWins = s.partner !== null && best.seat === s.partner;
  if (partnerWins && (last || isTop(s, best.card))) {
    // Load the partner's winning trick with points, trumps last (a side pools its points).
    return maxBy(cards, (c) => [+(suitOf(c) !== trump), pointsOf(c), strengthOf(c)]);
  }
  const winning = cards.filter((c) => beats(c, best.card, trump));
  const tablePoints = s.table.reduce((t, e) => t + pointsOf(e.card), 0);
  if (winning.length && !partnerWins) {
    const cheapestWin = minBy(winning, (c) => [+(suitOf(c) === trump && suitOf(best.card) !== trump),
      +marriagePart(s, c), -strengthOf(c)]);
    if (last || s.phase === 2 || isTop(s, cheapestWin)) {
      if (suitOf(cheapestWin) !== trump || suitOf(best.card) === trump ||
          tablePoints >= HIGH_POINTS || s.phase === 2 ||
          s.myPoints() + tablePoints + pointsOf(cheapestWin) >= s.claimTarget) {
        return cheapestWin;
      }
    } else if (suitOf(cheapestWin) !== trump && pointsOf(cheapestWin) < HIGH_POINTS) {
      return cheapestWin;
    }
  }
  return cheapest(s, cards);
}

module.exports = { SampleBot, sureWinner, closeIsSure, cheapest, isTop };
