'use strict';
// What one seat has seen of its match, kept up to date from the referee's messages.
//
// GameState.update(msg) folds one parsed message (protocol.js) into the state. The state holds
// only what the lines said, plus what follows from them by the rules: the stock's size, which
// cards are still unseen, which marriages count. The referee sends no totals during a deal
// (RULES.md §3, PROTOCOL.md §4.2: the mental count), so myPoints() is the seat counting for itself.
//
// Players are seat numbers everywhere in the state, also with two players ('me' is `seat`, 'opp'
// the other seat). A side is a seat, except with four players, where partners (seats k and k+2)
// make one side: seat % 2 (PROTOCOL.md §9.1).

const { pointsOf, suitOf, beats, packCards } = require('./cards');

const TWO_PLAYER_TARGET = 66; // §3: the claim target of every two-player profile
const FOUR_PLAYER_TARGET = 101;

class GameState {
  constructor() {
    this.resetMatch();
  }

  resetMatch() {
    this.matchId = null;
    this.profile = null;
    this.matchTarget = 0;     // game points to win the match (the `target` of the match line)
    this.seat = 0;
    this.players = 2;
    this.names = [];
    this.opponent = null;
    this.decisionMs = 0;
    this.rules = {};          // every flag of the rules lines, as text (RULES.md §11)
    this.score = [0, 0];      // as the wire says: [mine, theirs], or one per side with more players
    this.pot = 0;
    this.lastSettle = null;
    this.matchEnd = null;
    this.resetDeal();
  }

  resetDeal() {
    const n = this.players;
    this.dealNo = 0;
    this.dealer = null;
    this.trump = null;
    this.upcard = null;       // the face-up card under an open stock
    this.stockBottom = null;  // the bottom card, still known once it lies face down (a close)
    this.stock = 0;           // cards in the stock, the up-card included (§4)
    this.stockState = 'open'; // 'open' (phase 1), 'closed' or 'exhausted' (phase 2)
    this.closer = null;
    this.exchangedBy = null;
    this.claimedBy = null;
    this.leader = null;       // who leads the current (or next) trick
    this.table = [];          // the trick under way: [{ seat, card }], the led card first
    this.tricks = [];         // finished tricks: [{ winner, cards }]
    this.lastTrickWinner = null;
    this.hand = [];           // an array, not a set: with two packs a card may be held twice
    this.played = [];         // every card played this deal, in order
    this.playedBy = Array.from({ length: n }, () => []);
    this.known = Array.from({ length: n }, () => []); // cards another seat surely holds
    this.handSizes = new Array(n).fill(0);
    this.won = new Array(this.sides).fill(null).map(() => []); // cards in each side's tricks
    this.tricksWon = new Array(this.sides).fill(0);
    this.marriages = [];      // [{ seat, suit, points, tricksBefore }]
    this.deadPile = [];
    this.dealOver = false;
    this.request = null;
  }

  // -- seats and sides ---------------------------------------------------------------------------

  /** The seat a line's `who` names: 'me', 'opp' (two players) or a seat number. */
  seatOf(who) {
    if (who === 'me') return this.seat;
    if (who === 'opp') return 1 - this.seat;
    return who;
  }

  get sides() { return this.players === 3 ? 3 : 2; }
  sideOf(seat) { return this.players === 4 ? seat % 2 : seat; }
  get mySide() { return this.sideOf(this.seat); }
  get partner() { return this.players === 4 ? (this.seat + 2) % 4 : null; }
  nextSeat(seat) { return (seat + 1) % this.players; }

  /** The card points a side needs for a claim: 66, 101 with four players (the rules line). */
  get claimTarget() {
    const flag = this.rules.claim_target;
    if (flag !== undefined) return Number(flag);
    return this.players === 4 ? FOUR_PLAYER_TARGET : TWO_PLAYER_TARGET;
  }

  flag(name, fallback) {
    return this.rules[name] === undefined ? fallback : this.rules[name];
  }

  // -- folding messages in ----------------------------------------------------------------------

  update(msg) {
    const fold = FOLD[msg.type];
    if (fold !== undefined) fold(this, msg);
  }

  onHello(msg) {
    this.resetMatch();
    this.players = msg.players;
    this.profile = msg.profile;
    this.resetDeal();
  }

  onMatch(msg) {
    this.resetMatch();
    this.matchId = msg.matchId;
    this.profile = msg.profile;
    this.matchTarget = msg.target;
    this.seat = msg.seat;
    this.players = msg.players;
    this.names = msg.names;
    this.opponent = msg.opponent;
    this.decisionMs = msg.decisionMs;
    this.score = new Array(this.sides).fill(0);
    this.resetDeal();
  }

  onRules(msg) {
    Object.assign(this.rules, msg.flags); // several lines add up (§3)
    if (this.rules.players !== undefined) {
      const players = Number(this.rules.players);
      if (players !== this.players) {
        this.players = players;
        this.resetDeal();
      }
    }
  }

  onDeal(msg) {
    this.resetDeal();
    this.dealNo = msg.dealNo;
    this.dealer = this.seatOf(msg.dealer);
    this.upcard = this.stockBottom = msg.upcard;
    this.trump = suitOf(msg.upcard);
    this.stock = msg.stock;
    this.hand = msg.hand.slice();
    this.handSizes.fill(msg.hand.length); // everyone is dealt as many (RULES.md §2, §10)
    this.score = msg.score.slice();
    this.pot = msg.pot;
    // The dealer's left leads trick 1: the non-dealer with two players (RULES.md §2.5, §10.4).
    this.leader = this.nextSeat(this.dealer);
  }

  onPlayed(msg) {
    const seat = this.seatOf(msg.who);
    this.played.push(msg.card);
    this.playedBy[seat].push(msg.card);
    this.handSizes[seat] -= 1;
    removeOne(seat === this.seat ? this.hand : this.known[seat], msg.card);
    if (this.table.length === 0) this.leader = seat;
    this.table.push({ seat, card: msg.card });
  }

  onTrick(msg) {
    const winner = this.seatOf(msg.who);
    const side = this.sideOf(winner);
    this.won[side].push(...msg.cards);
    this.tricksWon[side] += 1;
    this.tricks.push({ winner, cards: msg.cards.slice() });
    this.leader = this.lastTrickWinner = winner; // the winner leads next (RULES.md §4)
    this.table = [];
  }

  onMarriage(msg) {
    const seat = this.seatOf(msg.who);
    this.marriages.push({ seat, suit: msg.suit, points: msg.points,
      tricksBefore: this.tricksWon[this.sideOf(seat)] });
    if (seat !== this.seat) {
      // Both cards were shown; the declarer keeps them until it plays them.
      for (const card of ['K' + msg.suit, 'Q' + msg.suit]) {
        if (!this.known[seat].includes(card)) this.known[seat].push(card);
      }
    }
  }

  onExchange(msg) {
    const seat = this.seatOf(msg.who);
    const held = seat === this.seat ? this.hand : this.known[seat];
    removeOne(held, msg.gave);
    held.push(msg.took);
    this.stockBottom = msg.gave;
    // After a close (DP-X) the card goes under a stock that is already face down.
    this.upcard = this.stockState === 'open' ? msg.gave : null;
    this.exchangedBy = seat;
  }

  onClose(msg) {
    this.closer = this.seatOf(msg.who);
    this.stockState = 'closed';
    this.upcard = null; // turned face down (RULES.md §5.5); stockBottom stays known
  }

  onDraw(msg) {
    const seat = this.seatOf(msg.who);
    this.stock -= 1;
    this.handSizes[seat] += 1;
    if (seat === this.seat) this.hand.push(msg.card);
    else if (msg.card !== null) this.known[seat].push(msg.card); // the face-up card: public
    // The up-card is drawn last (RULES.md §5.2); with two packs its twin may come from the top.
    if (msg.card !== null && msg.card === this.stockBottom && this.players !== 4) {
      this.upcard = this.stockBottom = null;
    }
    if (this.stock <= 0) {
      this.stock = 0;
      this.upcard = this.stockBottom = null;
      this.stockState = 'exhausted';
    }
  }

  onSettle(msg) {
    this.lastSettle = msg;
    this.score = msg.score.slice();
    this.pot = msg.pot;
    this.deadPile = msg.dead.slice();
    this.dealOver = true;
    this.request = null;
  }

  onMatchEnd(msg) {
    this.matchEnd = msg;
    this.score = msg.score.slice();
    this.request = null;
  }

  // -- what the seat may know --------------------------------------------------------------------

  /** 1 while the stock is open, 2 once it is closed or exhausted (RULES.md §0.3). */
  get phase() { return this.stockState === 'open' ? 1 : 2; }

  /** The seat that plays the next card of the trick under way. */
  get toPlay() {
    if (this.dealOver || this.leader === null) return null;
    if (this.table.length === 0) return this.leader;
    return this.nextSeat(this.table[this.table.length - 1].seat);
  }

  /** The card winning the trick under way so far, and its seat: { seat, card }, or null. */
  get best() {
    let best = null;
    for (const entry of this.table) {
      if (best === null || beats(entry.card, best.card, this.trump)) best = entry;
    }
    return best;
  }

  /** The led card of the trick under way, or null. */
  get led() { return this.table.length ? this.table[0].card : null; }

  /** Cards of every other seat (or only of `seat`) known for sure: shown marriages, the up-card it
   * took by exchanging, the face-up card it drew. */
  knownCards(seat = null) {
    if (seat !== null) return seat === this.seat ? this.hand.slice() : this.known[seat].slice();
    return this.known.filter((_, s) => s !== this.seat).flat();
  }

  /** How many copies of each card the seat knows nothing about: in other hands, in the stock or
   * (three players) the dead pile. A Map from card to count. */
  unseenCounts() {
    const counts = new Map();
    for (const card of packCards(Number(this.flag('deck_size', this.defaultDeckSize())))) {
      counts.set(card, (counts.get(card) || 0) + 1);
    }
    const seen = [...this.hand, ...this.played, ...this.knownCards(), ...this.deadPile];
    if (this.stockBottom !== null) seen.push(this.stockBottom);
    for (const card of seen) {
      const n = counts.get(card) || 0;
      if (n > 1) counts.set(card, n - 1);
      else counts.delete(card);
    }
    return counts;
  }

  defaultDeckSize() {
    return { 2: 24, 3: 32, 4: 48 }[this.players];
  }

  /** Cards any other seat may hold: known for sure, or unseen. With two players and the stock
   * exhausted, exactly the opponent's hand. */
  othersPossible() {
    return [...new Set([...this.knownCards(), ...this.unseenCounts().keys()])];
  }

  // -- the mental count (RULES.md §7.1, §10; PROTOCOL.md §4.2, §9.3) ------------------------------

  credited(marriage) {
    // RULES.md §5.4: a marriage counts once its side has a trick (by default any trick; with
    // marriage_credit=next_trick_after_meld only a trick won after it was shown).
    const tricks = this.tricksWon[this.sideOf(marriage.seat)];
    if (this.flag('marriage_credit', 'once_any_trick') === 'next_trick_after_meld') {
      return tricks > marriage.tricksBefore;
    }
    return tricks > 0;
  }

  lastTrickBonus(side) {
    // RULES.md §7.1: the winner of the last trick of a deal played out with the stock exhausted
    // (never closed: a closed stock stays closed). It counts already at the after_trick? that
    // follows that trick (§4.2).
    const playedOut = this.stockState === 'exhausted' && this.hand.length === 0 &&
      this.table.length === 0 && this.tricks.length > 0;
    if (!playedOut || this.sideOf(this.lastTrickWinner) !== side) return 0;
    return Number(this.flag('last_trick_bonus', '10'));
  }

  /** A side's total so far: every card of every trick is public, and so is every marriage. */
  points(side) {
    let total = 0;
    for (const card of this.won[side]) total += pointsOf(card);
    for (const m of this.marriages) {
      if (this.sideOf(m.seat) === side && this.credited(m)) total += m.points;
    }
    return total + this.lastTrickBonus(side);
  }

  /** The seat's own count: its side's card points, credited marriages and last-trick bonus. */
  myPoints() { return this.points(this.mySide); }

  /** Marriage points of `side` (default: mine) that count once the side wins a trick. */
  pendingMarriagePoints(side = this.mySide) {
    let total = 0;
    for (const m of this.marriages) {
      if (this.sideOf(m.seat) === side && !this.credited(m)) total += m.points;
    }
    return total;
  }

  /** The best total among the other sides (exact: all of it is public). */
  bestOtherPoints() {
    let best = 0;
    for (let side = 0; side < this.sides; side++) {
      if (side !== this.mySide) best = Math.max(best, this.points(side));
    }
    return best;
  }

  /** My side's score in game points, from the wire's score list. */
  myScore() { return this.players === 2 ? this.score[0] : this.score[this.mySide]; }
}

function removeOne(cards, card) {
  const at = cards.indexOf(card);
  if (at >= 0) cards.splice(at, 1);
}

const FOLD = {
  hello: (s, m) => s.onHello(m),
  match: (s, m) => s.onMatch(m),
  rules: (s, m) => s.onRules(m),
  deal: (s, m) => s.onDeal(m),
  played: (s, m) => s.onPlayed(m),
  trick: (s, m) => s.onTrick(m),
  marriage: (s, m) => s.onMarriage(m),
  exchange: (s, m) => s.onExchange(m),
  close: (s, m) => s.onClose(m),
  draw: (s, m) => s.onDraw(m),
  claim: (s, m) => { s.claimedBy = s.seatOf(m.who); },
  request: (s, m) => { s.request = m; },
  settle: (s, m) => s.onSettle(m),
  match_end: (s, m) => s.onMatchEnd(m),
};

module.exports = { GameState, TWO_PLAYER_TARGET, FOUR_PLAYER_TARGET };
