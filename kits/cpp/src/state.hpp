// What one seat has seen of its match, kept up to date from the referee's messages.
//
// GameState::update(msg) folds one parsed message (protocol.hpp) into the state. The state holds only
// what the lines said, plus what follows from them by the rules: the stock's size, which cards are
// still unseen, which marriages count. The referee sends no totals during a deal (RULES.md §3,
// PROTOCOL.md §4.2: the mental count), so myPoints() is the seat counting for itself.
//
// Players are seat numbers everywhere in the state, also with two players (`me` is `seat`, `opp`
// the other seat). A side is a seat, except with four players, where partners (seats k and k+2)
// make one side: seat % 2 (PROTOCOL.md §9.1). -1 means "nobody" where a seat may be missing.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol.hpp"

namespace kit {

inline constexpr int TWO_PLAYER_TARGET = 66;  // §3: the claim target of every two-player profile
inline constexpr int FOUR_PLAYER_TARGET = 101;

enum class StockState { Open, Closed, Exhausted };

struct SeatCard {
  int seat = -1;
  Card card;
  bool operator==(const SeatCard& o) const { return seat == o.seat && card == o.card; }
};

struct TrickDone {
  int winner = -1;
  std::vector<Card> cards;
};

struct Marriage {
  int seat = -1;
  char suit = 0;
  int points = 0;
  int tricksBefore = 0;  // tricks its side had won when it was shown
};

class GameState {
 public:
  GameState() { resetMatch(); }

  // -- the match ---------------------------------------------------------------------------------
  std::string matchId;
  std::string profile;
  int matchTarget = 0;  // game points to win the match (the `target` of the match line)
  int seat = 0;
  int players = 2;
  std::vector<std::string> names;
  std::string opponent;
  int decisionMs = 0;
  int firstDecisionMs = 0;  // the clock line (§3, §6); 0 without one
  int bankMs = 0;
  std::map<std::string, std::string> rules;  // every flag of the rules lines, as text (RULES.md §11)
  std::vector<int> score;  // as the wire says: {mine, theirs}, or one per side with more players
  int pot = 0;
  std::optional<Message> lastSettle;
  std::optional<Message> matchEnd;

  // -- the deal ----------------------------------------------------------------------------------
  int dealNo = 0;
  int dealer = -1;
  char trump = 0;
  std::optional<Card> upcard;       // the face-up card under an open stock
  std::optional<Card> stockBottom;  // the bottom card, still known once it lies face down (a close)
  int stock = 0;                    // cards in the stock, the up-card included (§4)
  StockState stockState = StockState::Open;
  int closer = -1;
  int exchangedBy = -1;
  int claimedBy = -1;
  int leader = -1;                 // who leads the current (or next) trick
  std::vector<SeatCard> table;     // the trick under way, the led card first
  std::vector<TrickDone> tricks;   // finished tricks
  int lastTrickWinner = -1;
  std::vector<Card> hand;          // a multiset: with two packs a card may be held twice
  std::vector<Card> played;        // every card played this deal, in order
  std::vector<std::vector<Card>> playedBy;
  std::vector<std::vector<Card>> known;  // cards another seat surely holds
  std::vector<int> handSizes;
  std::vector<std::vector<Card>> won;    // cards in each side's tricks
  std::vector<int> tricksWon;            // per side
  std::vector<Marriage> marriages;
  std::vector<Card> deadPile;
  bool dealOver = false;
  std::optional<Message> request;

  void update(const Message& msg);

  // -- seats and sides ---------------------------------------------------------------------------
  /** The seat a line's Who names: me, opp (two players) or a seat number; -1 for none. */
  int seatOf(const Who& who) const;
  int sides() const { return players == 3 ? 3 : 2; }
  int sideOf(int s) const { return players == 4 ? s % 2 : s; }
  int mySide() const { return sideOf(seat); }
  int partner() const { return players == 4 ? (seat + 2) % 4 : -1; }
  int nextSeat(int s) const { return (s + 1) % players; }
  /** The card points a side needs for a claim: 66, 101 with four players (the rules line). */
  int claimTarget() const;
  std::string flag(const std::string& name, const std::string& fallback) const;

  // -- what the seat may know --------------------------------------------------------------------
  /** 1 while the stock is open, 2 once it is closed or exhausted (RULES.md §0.3). */
  int phase() const { return stockState == StockState::Open ? 1 : 2; }
  /** The seat that plays the next card of the trick under way, -1 when nobody does. */
  int toPlay() const;
  /** The card winning the trick under way so far and its seat; nullopt on an empty table. */
  std::optional<SeatCard> best() const;
  /** The led card of the trick under way. */
  std::optional<Card> led() const;
  /** Cards another seat (or, seat -1, every other seat) is known for sure to hold: a shown
   * marriage, the up-card it took by exchanging, the face-up card it drew. */
  std::vector<Card> knownCards(int of = -1) const;
  /** How many copies of each card the seat knows nothing about: in other hands, in the stock or
   * (three players) the dead pile. */
  std::map<Card, int> unseenCounts() const;
  /** Cards any other seat may hold: known for sure, or unseen (each card once). With two players
   * and the stock exhausted, exactly the opponent's hand. */
  std::vector<Card> othersPossible() const;

  // -- the mental count (RULES.md §7.1, §10; PROTOCOL.md §4.2, §9.3) -----------------------------
  /** A side's total so far: every card of every trick is public, and so is every marriage. */
  int points(int side) const;
  /** The seat's own count: its side's card points, credited marriages and last-trick bonus. */
  int myPoints() const { return points(mySide()); }
  /** Marriage points of `side` (-1: mine) that count once the side wins a trick. */
  int pendingMarriagePoints(int side = -1) const;
  /** The best total among the other sides (exact: all of it is public). */
  int bestOtherPoints() const;
  /** My side's score in game points, from the wire's score list. */
  int myScore() const;

 private:
  void resetMatch();
  void resetDeal();
  bool credited(const Marriage& m) const;
  int lastTrickBonus(int side) const;
  int defaultDeckSize() const;

  void onHello(const Message& m);
  void onMatch(const Message& m);
  void onRules(const Message& m);
  void onDeal(const Message& m);
  void onPlayed(const Message& m);
  void onTrick(const Message& m);
  void onMarriage(const Message& m);
  void onExchange(const Message& m);
  void onClose(const Message& m);
  void onDraw(const Message& m);
  void onSettle(const Message& m);
};

}  // namespace kit
