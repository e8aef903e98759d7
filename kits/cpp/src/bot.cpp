// The sample bot's policy (see bot.hpp).
#include "bot.hpp"

#include <algorithm>
#include <set>

namespace kit {

namespace {

constexpr int HIGH_POINTS = 10;  // an ace or a ten led (or on the table) is worth a trump in phase 1

using Key = std::vector<int>;

template <typename F>
Card minBy(const std::vector<Card>& cards, F key) {
  // The first of equals wins, as it does for max_element below.
  return *std::min_element(cards.begin(), cards.end(),
                           [&](const Card& a, const Card& b) { return key(a) < key(b); });
}

template <typename F>
Card maxBy(const std::vector<Card>& cards, F key) {
  return *std::max_element(cards.begin(), cards.end(),
                           [&](const Card& a, const Card& b) { return key(a) < key(b); });
}

template <typename P>
std::vector<Card> filter(const std::vector<Card>& cards, P keep) {
  std::vector<Card> out;
  for (const Card& c : cards)
    if (keep(c)) out.push_back(c);
  return out;
}

bool has(const std::vector<Card>& cards, Card card) {
  return std::find(cards.begin(), cards.end(), card) != cards.end();
}

/** A king or queen whose partner is in hand, while a marriage can still be shown. */
bool marriagePart(const GameState& s, Card card) {
  if (card.rank != 'K' && card.rank != 'Q') return false;
  if (s.phase() == 2 && s.flag("marriage_in_phase2", "false") != "true") return false;
  return has(s.hand, Card{card.rank == 'K' ? 'Q' : 'K', card.suit});
}

/** Show a marriage, except in phase 2 (two players) when neither card is a sure winner: the
 * marriage must then be led, and losing that trick can cost a close. */
bool mayMarry(const GameState& s, char suit) {
  if (s.phase() == 1 || s.players != 2) return true;
  bool kingOnly = s.flag("marriage_lead_card", "king_or_queen") == "king_only";
  if (sureWinner(s, Card{'K', suit})) return true;
  return !kingOnly && sureWinner(s, Card{'Q', suit});
}

Card weakest(const std::vector<Card>& cards) {
  return maxBy(cards, [](Card c) { return Key{c.strength()}; });
}

int countIfWon(const GameState& s, const std::vector<Card>& cards) {
  int total = s.myPoints() + s.pendingMarriagePoints();
  for (Card c : cards) total += c.points();
  return total;
}

Card lead2(const GameState& s, const std::vector<Card>& cards) {
  auto winners = filter(cards, [&](Card c) { return sureWinner(s, c); });
  if (!winners.empty()) {
    Card richest = maxBy(winners, [](Card c) { return Key{c.points(), -c.strength()}; });
    // In phase 2 a sure winner keeps the lead and the claim window; in phase 1 it is spent only
    // when it wins the deal.
    if (s.phase() == 2 || countIfWon(s, {richest}) >= s.claimTarget()) return richest;
  }
  return cheapest(s, cards);
}

Card follow2(const GameState& s, const std::vector<Card>& cards) {
  Card led = *s.led();
  char trump = s.trump;
  auto winning = filter(cards, [&](Card c) { return beats(c, led, trump); });
  if (!winning.empty()) {
    // Win in suit before trumping, keep marriages, and use the weakest card that does it.
    Card cheapestWin = minBy(winning, [&](Card c) {
      return Key{c.suit == trump && led.suit != trump, marriagePart(s, c), -c.strength()};
    });
    if (countIfWon(s, {led, cheapestWin}) >= s.claimTarget()) return cheapestWin;
    if (s.phase() == 2) return cheapestWin;  // the follow rules already chose the cards offered
    auto inSuit = filter(winning, [&](Card c) { return c.suit == led.suit && !marriagePart(s, c); });
    if (!inSuit.empty()) return weakest(inSuit);
    if (led.points() >= HIGH_POINTS && led.suit != trump) {
      auto trumps = filter(winning, [&](Card c) { return c.suit == trump && !marriagePart(s, c); });
      if (!trumps.empty()) return weakest(trumps);
    }
  }
  return cheapest(s, cards);
}

Card leadN(const GameState& s, const std::vector<Card>& cards) {
  if (s.phase() == 2) {
    auto tops = filter(cards, [&](Card c) { return isTop(s, c); });
    if (!tops.empty())
      return maxBy(tops, [&](Card c) { return Key{c.points(), c.suit != s.trump}; });
  }
  auto plain = filter(cards, [&](Card c) { return c.suit != s.trump && !marriagePart(s, c); });
  return cheapest(s, plain.empty() ? cards : plain);
}

Card followN(const GameState& s, const std::vector<Card>& cards) {
  SeatCard top = *s.best();
  char trump = s.trump;
  bool last = static_cast<int>(s.table.size()) == s.players - 1;
  bool partnerWins = s.partner() >= 0 && top.seat == s.partner();
  if (partnerWins && (last || isTop(s, top.card))) {
    // Load the partner's winning trick with points, trumps last (a side pools its points).
    return maxBy(cards, [&](Card c) { return Key{c.suit != trump, c.points(), c.strength()}; });
  }
  auto winning = filter(cards, [&](Card c) { return beats(c, top.card, trump); });
  int tablePoints = 0;
  for (const SeatCard& e : s.table) tablePoints += e.card.points();
  if (!winning.empty() && !partnerWins) {
    Card cheapestWin = minBy(winning, [&](Card c) {
      return Key{c.suit == trump && top.card.suit != trump, marriagePart(s, c), -c.strength()};
    });
    if (last || s.phase() == 2 || isTop(s, cheapestWin)) {
      if (cheapestWin.suit != trump || top.card.suit == trump || tablePoints >= HIGH_POINTS ||
          s.phase() == 2 ||
          s.myPoints() + tablePoints + cheapestWin.points() >= s.claimTarget()) {
        return cheapestWin;
      }
    } else if (cheapestWin.suit != trump && cheapestWin.points() < HIGH_POINTS) {
      return cheapestWin;
    }
  }
  return cheapest(s, cards);
}

const Action* find(const std::vector<Action>& actions, Action::Kind kind) {
  for (const Action& a : actions)
    if (a.kind == kind) return &a;
  return nullptr;
}

}  // namespace

bool sureWinner(const GameState& s, Card card, const std::vector<Card>& extraOpp) {
  // With two players and the stock exhausted the opponent's hand is known exactly and must follow
  // suit (RULES.md §6), so a card is sure when it is the best he could answer with; otherwise any
  // unseen card might beat it.
  std::set<Card> opp;
  for (Card c : s.othersPossible()) opp.insert(c);
  for (Card c : extraOpp) opp.insert(c);
  if (s.players == 2 && s.stockState == StockState::Exhausted && extraOpp.empty()) {
    bool anySame = false, allHigher = true, oppTrump = false;
    for (Card o : opp) {
      if (o.suit == card.suit) {
        anySame = true;
        allHigher = allHigher && o.strength() > card.strength();
      }
      oppTrump = oppTrump || o.suit == s.trump;
    }
    if (anySame) return allHigher;
    return card.suit == s.trump || !oppTrump;
  }
  for (Card o : opp)
    if (beats(o, card, s.trump)) return false;
  return true;
}

bool closeIsSure(const GameState& s) {
  // A failed close costs 2 or 3 (RULES.md §7.4). The opponent may take the bottom card at the
  // close, so it counts as his.
  std::vector<Card> extra;
  if (s.stockBottom) extra.push_back(*s.stockBottom);
  auto winners = filter(s.hand, [&](Card c) { return sureWinner(s, c, extra); });
  if (winners.empty()) return false;
  int bound = s.myPoints() + s.pendingMarriagePoints();
  for (Card c : winners) bound += c.points();
  return bound >= s.claimTarget();
}

Card cheapest(const GameState& s, const std::vector<Card>& cards) {
  // Not a trump, not half of a marriage, few points, and among equals the weakest.
  return minBy(cards, [&](Card c) {
    return Key{c.suit == s.trump, marriagePart(s, c), c.points(), -c.strength()};
  });
}

bool isTop(const GameState& s, Card card) {
  for (const auto& [other, n] : s.unseenCounts())
    if (beats(other, card, s.trump)) return false;
  for (Card other : s.knownCards())
    if (beats(other, card, s.trump)) return false;
  return true;
}

Action SampleBot::decide(const GameState& s, const std::vector<Action>& actions) {
  using K = Action::Kind;
  // The count is ours to keep (RULES.md §3): claim exactly when it reaches the target.
  if (const Action* claim = find(actions, K::Claim); claim && s.myPoints() >= s.claimTarget())
    return *claim;
  if (const Action* exchange = find(actions, K::Exchange))
    return *exchange;  // the up-card is never worse than the lowest trump
  if (const Action* close = find(actions, K::Close); close && closeIsSure(s)) return *close;
  std::vector<Action> marriages;
  for (const Action& a : actions)
    if (a.kind == K::Marry && mayMarry(s, a.suit)) marriages.push_back(a);
  if (!marriages.empty()) {
    for (const Action& a : marriages)
      if (a.suit == s.trump) return a;
    return marriages.front();
  }
  std::vector<Card> cards;
  for (const Action& a : actions)
    if (a.kind == K::Play) cards.push_back(a.card);
  if (cards.empty()) {
    const Action* pass = find(actions, K::Pass);
    return pass ? *pass : actions.front();
  }
  Card card;
  if (s.players == 2) card = s.table.empty() ? lead2(s, cards) : follow2(s, cards);
  else card = s.table.empty() ? leadN(s, cards) : followN(s, cards);
  for (const Action& a : actions)
    if (a.kind == K::Play && a.card == card) return a;
  return actions.front();
}

}  // namespace kit
