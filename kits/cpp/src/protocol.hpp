// Every line of protocol version 1 (protocol/PROTOCOL.md) to a Message and back.
//
// parseLine(text) reads one line from the referee. A first word version 1 does not define gives
// MsgType::Unknown: bots ignore those (§1, §8). A known word with bad arguments throws
// ProtocolError. formatMessage(msg) writes any message back as its line (without the "\n"); a bot
// itself writes only ready(), decline() and the text of one offered action.
//
// A player (Who) is `me` or `opp` with two players, a seat number with three or four (§9). Per-side
// figures (score, totals, tricks, awarded) are vectors: {mine, theirs} with two players, one number
// per side, side 0 first, with more.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cards.hpp"

namespace kit {

inline constexpr const char* PROTOCOL_NAME = "sixtysix";
inline constexpr std::size_t MAX_LINE_BYTES = 1024;  // §1: not counting the "\n"

/** A player as a line names it: me, opp, a seat number, or none (a winner nobody is). */
struct Who {
  enum class Kind { None, Me, Opp, Seat };
  Kind kind = Kind::None;
  int seat = -1;  // Kind::Seat only

  static Who me() { return {Kind::Me, -1}; }
  static Who opp() { return {Kind::Opp, -1}; }
  static Who at(int seat) { return {Kind::Seat, seat}; }
  static Who none() { return {Kind::None, -1}; }
  bool isNone() const { return kind == Kind::None; }
  std::string str() const;
  bool operator==(const Who& o) const { return kind == o.kind && seat == o.seat; }
  bool operator!=(const Who& o) const { return !(*this == o); }
};

enum class MsgType {
  Hello, Match, Clock, Rules, Deal, Request, Played, Trick, Marriage, Exchange, Close, Draw, Claim,
  Settle, MatchEnd, Unknown
};

using Pairs = std::vector<std::pair<std::string, std::string>>;  // in the order of the line

/** One referee line. Only the fields of its type are meaningful (see parseLine's comments). */
struct Message {
  MsgType type = MsgType::Unknown;
  std::string line;  // Unknown: the whole line

  // Hello (§3, §9.1): players 2 and an empty profile for the two-player greeting.
  int version = 0;
  int players = 2;
  std::string profile;  // also Match

  // Match (§3, §9.2): opponent with two players, names with more. `extra` keeps key/value pairs a
  // newer referee may add, rather than failing on them. Clock (§3): its own pairs.
  std::string matchId;
  int target = 0;
  int seat = 0;
  std::optional<std::string> opponent;
  std::vector<std::string> names;
  int decisionMs = 0;
  int firstDecisionMs = 0;
  int bankMs = 0;
  Pairs extra;

  Pairs flags;  // Rules: flag=value, several lines add up (§3)

  // Deal (§4, §9.3)
  int dealNo = 0;
  Who dealer;
  Card upcard;
  int stock = 0;
  std::vector<Card> hand;
  std::vector<int> score;  // also Settle, MatchEnd
  int pot = 0;             // also Settle

  // Request (§4.1)
  std::string decision;  // lead, follow, after_trick, close_exchange, between_tricks
  std::vector<Action> actions;

  // Events (§4.2, §9.3)
  Who who;
  std::optional<Card> card;  // Played; Draw (absent: a hidden draw)
  std::vector<Card> cards;   // Trick: led first
  char suit = 0;             // Marriage
  int points = 0;            // Marriage; Settle
  Card took, gave;           // Exchange

  // Settle (§4.3, §9.4) and MatchEnd (§4.4, §9.5)
  Who winner;
  std::string reason;
  std::vector<int> awarded, totals, tricks;
  std::vector<Card> dead;  // three players only
  std::string fault;       // MatchEnd: empty when no fault
  Who by;
};

/** One referee line (with or without its "\n"; a "\r" before it is dropped, §1) as a message. */
Message parseLine(std::string line);
/** Any message as its line, without the "\n": parseLine(formatMessage(m)) reads m back. */
std::string formatMessage(const Message& msg);
/** The answer to the greeting (§3); ProtocolError for a name the referee would refuse. */
std::string ready(const std::string& name);
/** The answer to a three- or four-player greeting the bot does not play (§9.1). */
std::string decline(const std::string& text = "");

}  // namespace kit
