// The tracker's rules (see state.hpp).
#include "state.hpp"

#include <algorithm>
#include <set>

namespace kit {

namespace {

void removeOne(std::vector<Card>& cards, const Card& card) {
  auto at = std::find(cards.begin(), cards.end(), card);
  if (at != cards.end()) cards.erase(at);
}

bool contains(const std::vector<Card>& cards, const Card& card) {
  return std::find(cards.begin(), cards.end(), card) != cards.end();
}

}  // namespace

void GameState::resetMatch() {
  matchId.clear();
  profile.clear();
  matchTarget = 0;
  seat = 0;
  players = 2;
  names.clear();
  opponent.clear();
  decisionMs = firstDecisionMs = bankMs = 0;
  rules.clear();
  score = {0, 0};
  pot = 0;
  lastSettle.reset();
  matchEnd.reset();
  resetDeal();
}

void GameState::resetDeal() {
  int n = players;
  dealNo = 0;
  dealer = -1;
  trump = 0;
  upcard.reset();
  stockBottom.reset();
  stock = 0;
  stockState = StockState::Open;
  closer = exchangedBy = claimedBy = leader = lastTrickWinner = -1;
  table.clear();
  tricks.clear();
  hand.clear();
  played.clear();
  playedBy.assign(n, {});
  known.assign(n, {});
  handSizes.assign(n, 0);
  won.assign(sides(), {});
  tricksWon.assign(sides(), 0);
  marriages.clear();
  deadPile.clear();
  dealOver = false;
  request.reset();
}

int GameState::seatOf(const Who& who) const {
  switch (who.kind) {
    case Who::Kind::Me: return seat;
    case Who::Kind::Opp: return 1 - seat;
    case Who::Kind::Seat: return who.seat;
    default: return -1;
  }
}

int GameState::claimTarget() const {
  auto it = rules.find("claim_target");
  if (it != rules.end()) return std::stoi(it->second);
  return players == 4 ? FOUR_PLAYER_TARGET : TWO_PLAYER_TARGET;
}

std::string GameState::flag(const std::string& name, const std::string& fallback) const {
  auto it = rules.find(name);
  return it == rules.end() ? fallback : it->second;
}

// -- folding messages in -------------------------------------------------------------------------

void GameState::update(const Message& m) {
  // An event naming a seat this match does not have is ignored rather than trusted: the tracker
  // must never index outside its tables, whatever a line says.
  bool event = m.type == MsgType::Played || m.type == MsgType::Trick || m.type == MsgType::Marriage ||
               m.type == MsgType::Exchange || m.type == MsgType::Close || m.type == MsgType::Draw;
  if (event) {
    int s = seatOf(m.who);
    if (s < 0 || s >= players || static_cast<int>(known.size()) != players) return;
  }
  if (m.type == MsgType::Deal) {
    int d = seatOf(m.dealer);
    if (d < 0 || d >= players) return;
  }
  switch (m.type) {
    case MsgType::Hello: onHello(m); break;
    case MsgType::Match: onMatch(m); break;
    case MsgType::Clock:
      firstDecisionMs = m.firstDecisionMs;
      bankMs = m.bankMs;
      break;
    case MsgType::Rules: onRules(m); break;
    case MsgType::Deal: onDeal(m); break;
    case MsgType::Played: onPlayed(m); break;
    case MsgType::Trick: onTrick(m); break;
    case MsgType::Marriage: onMarriage(m); break;
    case MsgType::Exchange: onExchange(m); break;
    case MsgType::Close: onClose(m); break;
    case MsgType::Draw: onDraw(m); break;
    case MsgType::Claim: claimedBy = seatOf(m.who); break;
    case MsgType::Request: request = m; break;
    case MsgType::Settle: onSettle(m); break;
    case MsgType::MatchEnd:
      matchEnd = m;
      score = m.score;
      request.reset();
      break;
    case MsgType::Unknown: break;
  }
}

void GameState::onHello(const Message& m) {
  resetMatch();
  players = m.players;
  profile = m.profile;
  resetDeal();
}

void GameState::onMatch(const Message& m) {
  resetMatch();
  matchId = m.matchId;
  profile = m.profile;
  matchTarget = m.target;
  seat = m.seat;
  players = m.players;
  names = m.names;
  opponent = m.opponent.value_or("");
  decisionMs = m.decisionMs;
  score.assign(sides(), 0);
  resetDeal();
}

void GameState::onRules(const Message& m) {
  for (const auto& [k, v] : m.flags) rules[k] = v;  // several lines add up (§3)
  auto it = rules.find("players");
  if (it != rules.end()) {
    int n = std::stoi(it->second);
    if (n != players) {
      players = n;
      resetDeal();
    }
  }
}

void GameState::onDeal(const Message& m) {
  resetDeal();
  dealNo = m.dealNo;
  dealer = seatOf(m.dealer);
  upcard = stockBottom = m.upcard;
  trump = m.upcard.suit;
  stock = m.stock;
  hand = m.hand;
  handSizes.assign(players, static_cast<int>(m.hand.size()));  // all dealt as many (RULES.md §2, §10)
  score = m.score;
  pot = m.pot;
  // The dealer's left leads trick 1: the non-dealer with two players (RULES.md §2.5, §10.4).
  leader = nextSeat(dealer);
}

void GameState::onPlayed(const Message& m) {
  int s = seatOf(m.who);
  played.push_back(*m.card);
  playedBy[s].push_back(*m.card);
  handSizes[s] -= 1;
  removeOne(s == seat ? hand : known[s], *m.card);
  if (table.empty()) leader = s;
  table.push_back({s, *m.card});
}

void GameState::onTrick(const Message& m) {
  int winner = seatOf(m.who);
  int side = sideOf(winner);
  won[side].insert(won[side].end(), m.cards.begin(), m.cards.end());
  tricksWon[side] += 1;
  tricks.push_back({winner, m.cards});
  leader = lastTrickWinner = winner;  // the winner leads next (RULES.md §4)
  table.clear();
}

void GameState::onMarriage(const Message& m) {
  int s = seatOf(m.who);
  marriages.push_back({s, m.suit, m.points, tricksWon[sideOf(s)]});
  if (s != seat) {
    // Both cards were shown; the declarer keeps them until it plays them.
    for (Card c : {Card{'K', m.suit}, Card{'Q', m.suit}})
      if (!contains(known[s], c)) known[s].push_back(c);
  }
}

void GameState::onExchange(const Message& m) {
  int s = seatOf(m.who);
  std::vector<Card>& held = s == seat ? hand : known[s];
  removeOne(held, m.gave);
  held.push_back(m.took);
  stockBottom = m.gave;
  // After a close (DP-X) the card goes under a stock that is already face down.
  if (stockState == StockState::Open) upcard = m.gave;
  else upcard.reset();
  exchangedBy = s;
}

void GameState::onClose(const Message& m) {
  closer = seatOf(m.who);
  stockState = StockState::Closed;
  upcard.reset();  // turned face down (RULES.md §5.5); stockBottom stays known
}

void GameState::onDraw(const Message& m) {
  int s = seatOf(m.who);
  stock -= 1;
  handSizes[s] += 1;
  if (s == seat && m.card) hand.push_back(*m.card);
  else if (s != seat && m.card) known[s].push_back(*m.card);  // the face-up card: public
  // The up-card is drawn last (RULES.md §5.2); with two packs its twin may come from the top.
  if (m.card && stockBottom && *m.card == *stockBottom && players != 4) {
    upcard.reset();
    stockBottom.reset();
  }
  if (stock <= 0) {
    stock = 0;
    upcard.reset();
    stockBottom.reset();
    stockState = StockState::Exhausted;
  }
}

void GameState::onSettle(const Message& m) {
  lastSettle = m;
  score = m.score;
  pot = m.pot;
  deadPile = m.dead;
  dealOver = true;
  request.reset();
}

// -- what the seat may know ----------------------------------------------------------------------

int GameState::toPlay() const {
  if (dealOver || leader < 0) return -1;
  if (table.empty()) return leader;
  return nextSeat(table.back().seat);
}

std::optional<SeatCard> GameState::best() const {
  std::optional<SeatCard> top;
  for (const SeatCard& e : table)
    if (!top || beats(e.card, top->card, trump)) top = e;
  return top;
}

std::optional<Card> GameState::led() const {
  if (table.empty()) return std::nullopt;
  return table.front().card;
}

std::vector<Card> GameState::knownCards(int of) const {
  if (of >= 0) return of == seat ? hand : known[of];
  std::vector<Card> out;
  for (int s = 0; s < static_cast<int>(known.size()); ++s)
    if (s != seat) out.insert(out.end(), known[s].begin(), known[s].end());
  return out;
}

int GameState::defaultDeckSize() const { return players == 3 ? 32 : players == 4 ? 48 : 24; }

std::map<Card, int> GameState::unseenCounts() const {
  std::map<Card, int> counts;
  for (Card c : packCards(std::stoi(flag("deck_size", std::to_string(defaultDeckSize())))))
    counts[c] += 1;
  std::vector<Card> seen = hand;
  seen.insert(seen.end(), played.begin(), played.end());
  for (Card c : knownCards()) seen.push_back(c);
  seen.insert(seen.end(), deadPile.begin(), deadPile.end());
  if (stockBottom) seen.push_back(*stockBottom);
  for (Card c : seen) {
    auto it = counts.find(c);
    if (it == counts.end()) continue;
    if (--it->second <= 0) counts.erase(it);
  }
  return counts;
}

std::vector<Card> GameState::othersPossible() const {
  std::set<Card> all;
  for (Card c : knownCards()) all.insert(c);
  for (const auto& [c, n] : unseenCounts()) all.insert(c);
  return {all.begin(), all.end()};
}

// -- the mental count ----------------------------------------------------------------------------

bool GameState::credited(const Marriage& m) const {
  // RULES.md §5.4: a marriage counts once its side has a trick (by default any trick; with
  // marriage_credit=next_trick_after_meld only a trick won after it was shown).
  int won_ = tricksWon[sideOf(m.seat)];
  if (flag("marriage_credit", "once_any_trick") == "next_trick_after_meld")
    return won_ > m.tricksBefore;
  return won_ > 0;
}

int GameState::lastTrickBonus(int side) const {
  // RULES.md §7.1: the winner of the last trick of a deal played out with the stock exhausted
  // (never closed: a closed stock stays closed). It counts already at the after_trick? that
  // follows that trick (§4.2).
  bool playedOut = stockState == StockState::Exhausted && hand.empty() && table.empty() &&
                   !tricks.empty();
  if (!playedOut || sideOf(lastTrickWinner) != side) return 0;
  return std::stoi(flag("last_trick_bonus", "10"));
}

int GameState::points(int side) const {
  int total = 0;
  for (Card c : won[side]) total += c.points();
  for (const Marriage& m : marriages)
    if (sideOf(m.seat) == side && credited(m)) total += m.points;
  return total + lastTrickBonus(side);
}

int GameState::pendingMarriagePoints(int side) const {
  if (side < 0) side = mySide();
  int total = 0;
  for (const Marriage& m : marriages)
    if (sideOf(m.seat) == side && !credited(m)) total += m.points;
  return total;
}

int GameState::bestOtherPoints() const {
  int top = 0;
  for (int side = 0; side < sides(); ++side)
    if (side != mySide()) top = std::max(top, points(side));
  return top;
}

int GameState::myScore() const {
  if (score.empty()) return 0;
  return players == 2 ? score[0] : score[mySide()];
}

}  // namespace kit
