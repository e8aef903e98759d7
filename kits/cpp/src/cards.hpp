// Cards, suits and actions as the wire writes them (PROTOCOL.md §2): a card is two characters, rank
// then suit ("TH" is the ten of hearts); an action is one word ("play:TH", "marry:S", "pass").
// Each type reads its text with parse() and writes it back with str(), byte for byte.
#pragma once

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace kit {

inline constexpr const char* RANKS = "ATKQJ987";  // strongest first (RULES.md §1)
inline constexpr const char* SUITS = "CSHD";

/** A referee line (or an action word) that does not say what version 1 says it must. */
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline bool isSuit(char c) { return c != 0 && std::strchr(SUITS, c) != nullptr; }
inline bool isRank(char c) { return c != 0 && std::strchr(RANKS, c) != nullptr; }

inline char parseSuit(const std::string& word) {
  if (word.size() != 1 || !isSuit(word[0])) throw ProtocolError("not a suit: '" + word + "'");
  return word[0];
}

struct Card {
  char rank = 0;
  char suit = 0;

  static bool valid(const std::string& word) {
    return word.size() == 2 && isRank(word[0]) && isSuit(word[1]);
  }
  static Card parse(const std::string& word) {
    if (!valid(word)) throw ProtocolError("not a card: '" + word + "'");
    return Card{word[0], word[1]};
  }
  std::string str() const { return std::string{rank, suit}; }

  /** Card points: A 11, T 10, K 4, Q 3, J 2, 9 8 7 0 (RULES.md §1). */
  int points() const {
    switch (rank) {
      case 'A': return 11;
      case 'T': return 10;
      case 'K': return 4;
      case 'Q': return 3;
      case 'J': return 2;
      default: return 0;
    }
  }
  /** 0 for an ace up to 7 for a seven: a lower strength number is a stronger card. */
  int strength() const { return static_cast<int>(std::strchr(RANKS, rank) - RANKS); }

  bool operator==(const Card& o) const { return rank == o.rank && suit == o.suit; }
  bool operator!=(const Card& o) const { return !(*this == o); }
  bool operator<(const Card& o) const { return suit != o.suit ? suit < o.suit : rank < o.rank; }
};

/** Does `card`, played after `best` (the card winning the trick so far), take the trick from it?
 * RULES.md §5.1: the same suit and a higher rank, or a trump on a plain card. Of two identical
 * cards (two packs, §10.3) the one played first wins, so an equal card never beats. */
inline bool beats(Card card, Card best, char trump) {
  if (card.suit == best.suit) return card.strength() < best.strength();
  return card.suit == trump;
}

/** The cards of the pack a rules line's deck_size names (RULES.md §1, §9, §10). */
inline std::vector<Card> packCards(int deckSize) {
  std::string ranks = deckSize == 20 ? "ATKQJ" : deckSize == 32 ? "ATKQJ987" : "ATKQJ9";
  int copies = deckSize == 48 ? 2 : 1;
  std::vector<Card> cards;
  for (int n = 0; n < copies; ++n)
    for (const char* s = SUITS; *s; ++s)
      for (char r : ranks) cards.push_back(Card{r, *s});
  return cards;
}

/** One action word of a request (§4.1). `text` is the word exactly as the request listed it,
 * which is what the bot must write back. */
struct Action {
  enum class Kind { Play, Marry, Exchange, Close, Claim, Pass, Unknown };
  Kind kind = Kind::Unknown;
  Card card;      // Play
  char suit = 0;  // Marry
  std::string text;

  static Action parse(const std::string& word) {
    if (word == "exchange") return Action{Kind::Exchange, {}, 0, word};
    if (word == "close") return Action{Kind::Close, {}, 0, word};
    if (word == "claim") return Action{Kind::Claim, {}, 0, word};
    if (word == "pass") return Action{Kind::Pass, {}, 0, word};
    if (word.rfind("play:", 0) == 0 && Card::valid(word.substr(5)))
      return Action{Kind::Play, Card::parse(word.substr(5)), 0, word};
    if (word.rfind("marry:", 0) == 0 && word.size() == 7 && isSuit(word[6]))
      return Action{Kind::Marry, {}, word[6], word};
    throw ProtocolError("not an action: '" + word + "'");
  }
  const std::string& str() const { return text; }
};

}  // namespace kit
