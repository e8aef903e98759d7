// Reading and writing the lines of PROTOCOL.md (see protocol.hpp).
#include "protocol.hpp"

#include <map>
#include <sstream>

namespace kit {

std::string Who::str() const {
  switch (kind) {
    case Kind::Me: return "me";
    case Kind::Opp: return "opp";
    case Kind::Seat: return std::to_string(seat);
    default: return "none";
  }
}

namespace {

const char* const DECISIONS[] = {"lead", "follow", "after_trick", "close_exchange",
                                 "between_tricks"};

bool isCount(const std::string& word) {
  if (word.empty() || word.size() > 9) return false;  // fits an int; no figure comes near
  if (word.size() > 1 && word[0] == '0') return false;
  for (char c : word)
    if (c < '0' || c > '9') return false;
  return true;
}

/** A cursor over the words after the first, with errors that name the message. */
class Words {
 public:
  Words(std::string first, std::vector<std::string> rest, std::string line)
      : first_(std::move(first)), rest_(std::move(rest)), line_(std::move(line)) {}

  ProtocolError error(const std::string& reason) const {
    return ProtocolError(first_ + ": " + reason + " (line \"" + line_ + "\")");
  }
  bool more() const { return pos_ < rest_.size(); }
  std::string peek() const { return more() ? rest_[pos_] : std::string(); }
  const std::string& first() const { return first_; }
  const std::vector<std::string>& rest() const { return rest_; }
  void skipAll() { pos_ = rest_.size(); }

  std::string word(const std::string& what) {
    if (!more()) throw error("missing " + what);
    return rest_[pos_++];
  }
  void keyword(const std::string& expected) {
    std::string w = word("'" + expected + "'");
    if (w != expected) throw error("expected '" + expected + "', got '" + w + "'");
  }
  int count(const std::string& what) {
    std::string w = word(what);
    if (!isCount(w)) throw error(what + " must be a whole number, got '" + w + "'");
    return std::stoi(w);
  }
  Card card(const std::string& what = "card") {
    std::string w = word(what);
    if (!Card::valid(w)) throw error("not a card: '" + w + "'");
    return Card::parse(w);
  }
  char suit() {
    std::string w = word("suit");
    if (w.size() != 1 || !isSuit(w[0])) throw error("not a suit: '" + w + "'");
    return w[0];
  }
  Who who(const std::string& what = "who") {
    std::string w = word(what);
    if (w == "me") return Who::me();
    if (w == "opp") return Who::opp();
    if (w.size() == 1 && w[0] >= '0' && w[0] <= '3') return Who::at(w[0] - '0');
    throw error(what + " must be me, opp or a seat number, got '" + w + "'");
  }
  Who whoOrNone(const std::string& what) {
    if (peek() == "none") {
      ++pos_;
      return Who::none();
    }
    return who(what);
  }
  /** Whole numbers up to `stop` (or the end of the line): one per side (§9). */
  std::vector<int> countsUntil(const std::string& what, const std::string& stop) {
    std::vector<int> out;
    while (more() && peek() != stop) out.push_back(count(what));
    if (out.empty()) throw error("missing " + what);
    return out;
  }
  void end() const {
    if (!more()) return;
    std::string left;
    for (std::size_t i = pos_; i < rest_.size(); ++i) left += (i > pos_ ? " " : "") + rest_[i];
    throw error("unexpected words: '" + left + "'");
  }

 private:
  std::string first_;
  std::vector<std::string> rest_;
  std::string line_;
  std::size_t pos_ = 0;
};

void parseHello(Words& w, Message& m) {
  m.version = w.count("version");
  if (w.more()) {  // §9.1: sixtysix 1 players <n> profile <p>
    w.keyword("players");
    m.players = w.count("players");
    w.keyword("profile");
    m.profile = w.word("profile");
  }
}

void parseMatch(Words& w, Message& m) {
  // §3 and §9.2. Read as keyword/value pairs, so that a word a newer referee adds is kept in
  // `extra` rather than breaking the line.
  m.matchId = w.word("match id");
  while (w.more()) {
    std::string key = w.word("key");
    if (key == "profile") m.profile = w.word("profile");
    else if (key == "target") m.target = w.count("target");
    else if (key == "seat") m.seat = w.count("seat");
    else if (key == "players") m.players = w.count("players");
    else if (key == "opponent") m.opponent = w.word("opponent");
    else if (key == "decision_ms") m.decisionMs = w.count("decision_ms");
    else if (key == "names") {
      while (w.more() && w.peek() != "decision_ms") m.names.push_back(w.word("name"));
    } else {
      m.extra.emplace_back(key, w.word(key));
    }
  }
  if (m.profile.empty()) throw w.error("missing profile");
}

void parseClock(Words& w, Message& m) {
  while (w.more()) {
    std::string key = w.word("key");
    if (key == "first_decision_ms") m.firstDecisionMs = w.count(key);
    else if (key == "bank_ms") m.bankMs = w.count(key);
    else m.extra.emplace_back(key, w.word(key));
  }
}

void parseRules(Words& w, Message& m) {
  // Flags add up over several rules lines (§3); unknown flags are kept, the tracker ignores them.
  while (w.more()) {
    std::string word = w.word("flag");
    auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) throw w.error("'" + word + "' is not <flag>=<value>");
    m.flags.emplace_back(word.substr(0, eq), word.substr(eq + 1));
  }
}

void parseDeal(Words& w, Message& m) {
  m.dealNo = w.count("deal number");
  w.keyword("dealer");
  m.dealer = w.who("dealer");
  w.keyword("upcard");
  m.upcard = w.card("upcard");
  w.keyword("stock");
  m.stock = w.count("stock");
  w.keyword("hand");
  while (w.more() && w.peek() != "score") m.hand.push_back(w.card("card of the hand"));
  w.keyword("score");
  m.score = w.countsUntil("score", "pot");
  w.keyword("pot");
  m.pot = w.count("pot");
}

void parseRequest(Words& w, Message& m) {
  // A request lists every legal action (§4.1); an action word version 1 does not define is kept as
  // Kind::Unknown so that a bot can still answer with one it knows.
  m.decision = w.first().substr(0, w.first().size() - 1);
  for (const std::string& word : w.rest()) {
    try {
      m.actions.push_back(Action::parse(word));
    } catch (const ProtocolError&) {
      m.actions.push_back(Action{Action::Kind::Unknown, {}, 0, word});
    }
  }
  w.skipAll();
  if (m.actions.empty()) throw w.error("a request lists at least one action");
}

void parseTrick(Words& w, Message& m) {
  m.who = w.who();
  m.cards.push_back(w.card("led card"));
  m.cards.push_back(w.card("followed card"));
  while (w.more()) m.cards.push_back(w.card("card of the trick"));  // §9: 3 or 4 cards
}

void parseSettle(Words& w, Message& m) {
  w.keyword("winner");
  m.winner = w.whoOrNone("winner");
  w.keyword("reason");
  m.reason = w.word("reason");
  w.keyword("points");
  m.points = w.count("points");
  w.keyword("awarded");
  m.awarded = w.countsUntil("awarded", "totals");  // one number with two players
  w.keyword("totals");
  m.totals = w.countsUntil("totals", "tricks");
  w.keyword("tricks");
  m.tricks = w.countsUntil("tricks", "score");
  w.keyword("score");
  m.score = w.countsUntil("score", "pot");
  w.keyword("pot");
  m.pot = w.count("pot");
  if (w.more()) {  // §9.4: three players show the dead pile
    w.keyword("dead");
    m.dead.push_back(w.card("dead card"));
    m.dead.push_back(w.card("dead card"));
  }
}

void parseMatchEnd(Words& w, Message& m) {
  w.keyword("winner");
  m.winner = w.whoOrNone("winner");
  w.keyword("reason");
  m.reason = w.word("reason");
  w.keyword("score");
  m.score = w.countsUntil("score", "fault");
  if (w.more()) {
    w.keyword("fault");
    m.fault = w.word("fault");
    w.keyword("by");
    m.by = w.who("offender");
  }
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while (true) {
    auto space = text.find(' ', start);
    words.push_back(text.substr(start, space - start));
    if (space == std::string::npos) return words;
    start = space + 1;
  }
}

template <typename T, typename F>
std::string joined(const std::vector<T>& items, F str) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? " " : "") + str(items[i]);
  return out;
}

std::string ints(const std::vector<int>& v) {
  return joined(v, [](int n) { return std::to_string(n); });
}
std::string cardList(const std::vector<Card>& v) {
  return joined(v, [](const Card& c) { return c.str(); });
}
std::string pairs(const Pairs& v) {
  std::string out;
  for (const auto& [k, value] : v) out += " " + k + " " + value;
  return out;
}

}  // namespace

Message parseLine(std::string text) {
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
  std::vector<std::string> words = split(text);
  const std::string& first = words[0];
  static const std::map<std::string, MsgType> TYPES = {
      {PROTOCOL_NAME, MsgType::Hello}, {"match", MsgType::Match},       {"clock", MsgType::Clock},
      {"rules", MsgType::Rules},       {"deal", MsgType::Deal},         {"played", MsgType::Played},
      {"trick", MsgType::Trick},       {"marriage", MsgType::Marriage}, {"exchange", MsgType::Exchange},
      {"close", MsgType::Close},       {"draw", MsgType::Draw},         {"claim", MsgType::Claim},
      {"settle", MsgType::Settle},     {"match_end", MsgType::MatchEnd},
  };
  Message m;
  auto known = TYPES.find(first);
  bool request = false;
  for (const char* d : DECISIONS) request = request || first == std::string(d) + "?";
  if (known == TYPES.end() && !request) {
    m.line = text;
    return m;  // MsgType::Unknown
  }
  m.type = request ? MsgType::Request : known->second;
  for (const std::string& word : words)
    if (word.empty()) throw ProtocolError("words must be separated by single spaces (line \"" + text + "\")");
  Words w(first, std::vector<std::string>(words.begin() + 1, words.end()), text);
  switch (m.type) {
    case MsgType::Hello: parseHello(w, m); break;
    case MsgType::Match: parseMatch(w, m); break;
    case MsgType::Clock: parseClock(w, m); break;
    case MsgType::Rules: parseRules(w, m); break;
    case MsgType::Deal: parseDeal(w, m); break;
    case MsgType::Request: parseRequest(w, m); break;
    case MsgType::Played:
      m.who = w.who();
      m.card = w.card();
      break;
    case MsgType::Trick: parseTrick(w, m); break;
    case MsgType::Marriage:
      m.who = w.who();
      m.suit = w.suit();
      m.points = w.count("points");
      break;
    case MsgType::Exchange:
      m.who = w.who();
      m.took = w.card("card taken");
      m.gave = w.card("card given");
      break;
    case MsgType::Close:
    case MsgType::Claim: m.who = w.who(); break;
    case MsgType::Draw:
      m.who = w.who();
      if (w.more()) m.card = w.card();
      break;
    case MsgType::Settle: parseSettle(w, m); break;
    case MsgType::MatchEnd: parseMatchEnd(w, m); break;
    case MsgType::Unknown: break;
  }
  w.end();
  return m;
}

std::string formatMessage(const Message& m) {
  switch (m.type) {
    case MsgType::Hello:
      if (m.profile.empty()) return std::string(PROTOCOL_NAME) + " " + std::to_string(m.version);
      return std::string(PROTOCOL_NAME) + " " + std::to_string(m.version) + " players " +
             std::to_string(m.players) + " profile " + m.profile;
    case MsgType::Match:
      if (m.opponent) {
        return "match " + m.matchId + " profile " + m.profile + " target " + std::to_string(m.target) +
               " seat " + std::to_string(m.seat) + " opponent " + *m.opponent + " decision_ms " +
               std::to_string(m.decisionMs) + pairs(m.extra);
      }
      return "match " + m.matchId + " profile " + m.profile + " target " + std::to_string(m.target) +
             " players " + std::to_string(m.players) + " seat " + std::to_string(m.seat) + " names " +
             joined(m.names, [](const std::string& s) { return s; }) + " decision_ms " +
             std::to_string(m.decisionMs) + pairs(m.extra);
    case MsgType::Clock:
      return "clock first_decision_ms " + std::to_string(m.firstDecisionMs) + " bank_ms " +
             std::to_string(m.bankMs) + pairs(m.extra);
    case MsgType::Rules: {
      std::string out = "rules";
      for (const auto& [k, v] : m.flags) out += " " + k + "=" + v;
      return out;
    }
    case MsgType::Deal:
      return "deal " + std::to_string(m.dealNo) + " dealer " + m.dealer.str() + " upcard " +
             m.upcard.str() + " stock " + std::to_string(m.stock) + " hand " + cardList(m.hand) +
             " score " + ints(m.score) + " pot " + std::to_string(m.pot);
    case MsgType::Request:
      return m.decision + "? " + joined(m.actions, [](const Action& a) { return a.text; });
    case MsgType::Played: return "played " + m.who.str() + " " + m.card->str();
    case MsgType::Trick: return "trick " + m.who.str() + " " + cardList(m.cards);
    case MsgType::Marriage:
      return "marriage " + m.who.str() + " " + std::string(1, m.suit) + " " + std::to_string(m.points);
    case MsgType::Exchange: return "exchange " + m.who.str() + " " + m.took.str() + " " + m.gave.str();
    case MsgType::Close: return "close " + m.who.str();
    case MsgType::Draw: return "draw " + m.who.str() + (m.card ? " " + m.card->str() : "");
    case MsgType::Claim: return "claim " + m.who.str();
    case MsgType::Settle: {
      std::string out = "settle winner " + m.winner.str() + " reason " + m.reason + " points " +
                        std::to_string(m.points) + " awarded " + ints(m.awarded) + " totals " +
                        ints(m.totals) + " tricks " + ints(m.tricks) + " score " + ints(m.score) +
                        " pot " + std::to_string(m.pot);
      return m.dead.empty() ? out : out + " dead " + cardList(m.dead);
    }
    case MsgType::MatchEnd: {
      std::string out = "match_end winner " + m.winner.str() + " reason " + m.reason + " score " +
                        ints(m.score);
      return m.fault.empty() ? out : out + " fault " + m.fault + " by " + m.by.str();
    }
    case MsgType::Unknown: return m.line;
  }
  return m.line;
}

std::string ready(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64;
  for (char c : name)
    ok = ok && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '.' || c == '+' || c == '-');
  if (!ok) throw ProtocolError("bad bot name '" + name + "': 1 to 64 of A-Z a-z 0-9 _ . + -");
  return "ready " + name;
}

std::string decline(const std::string& text) {
  // §9.1: printable ASCII, words separated by single spaces.
  std::istringstream in(text);
  std::string out = "decline", word;
  while (in >> word) {
    std::string clean;
    for (char c : word)
      if (c > 0x20 && c < 0x7f) clean += c;
    if (!clean.empty()) out += " " + clean;
  }
  return out;
}

}  // namespace kit
