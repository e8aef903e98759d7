// The sample bot: the ideas of the arena's greedy bot (bots/greedy_bot.py, bots/nseat.py) on top of
// the tracker. It claims the moment its side's count reaches the claim target (and never below),
// always exchanges, shows its best marriage, closes only when its sure winners bring it to the
// target, and plays cheaply: it wins a trick when that is cheap or worth it, else throws the card
// worth least. Replace decide() with your own policy (or derive from Bot): it gets the state and
// the offered actions, and must return one of those actions.
#pragma once

#include <string>
#include <vector>

#include "state.hpp"

namespace kit {

/** What the runner needs of a bot: a name, which variants it plays, and a decision. */
class Bot {
 public:
  virtual ~Bot() = default;
  virtual const std::string& name() const = 0;
  /** Whether to play a match of `players` in `profile` (the three- and four-player greeting,
   * PROTOCOL.md §9.1); a bot that says no answers `decline`. */
  virtual bool supports(int players, const std::string& profile) const = 0;
  /** One of `actions` (the request's list, PROTOCOL.md §4.1) for the state `s`. */
  virtual Action decide(const GameState& s, const std::vector<Action>& actions) = 0;
};

class SampleBot : public Bot {
 public:
  explicit SampleBot(std::string name = "kit-cpp") : name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  bool supports(int, const std::string&) const override { return true; }  // it plays them all
  Action decide(const GameState& s, const std::vector<Action>& actions) override;

 private:
  std::string name_;
};

// The helpers, for tests and for a policy of your own.

/** Can no card still out beat `card` led now? (extraOpp: cards to count as the others' too.) */
bool sureWinner(const GameState& s, Card card, const std::vector<Card>& extraOpp = {});
/** Close only when the count plus sure winners reaches the target (RULES.md §7.4). */
bool closeIsSure(const GameState& s);
/** The card we lose least by giving away. */
Card cheapest(const GameState& s, const std::vector<Card>& cards);
/** Three or four players: is `card` beaten by no copy of a card still out? */
bool isTop(const GameState& s, Card card);

}  // namespace kit
