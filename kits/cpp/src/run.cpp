// The runner (see run.hpp).
#include "run.hpp"

#include <exception>
#include <iostream>

namespace kit {

std::optional<std::string> answer(Bot& bot, GameState& state, const Message& msg, const Log& log) {
  state.update(msg);
  if (msg.type == MsgType::Hello) {
    if (msg.version != 1)
      log("protocol version " + std::to_string(msg.version) + " is not 1; answering anyway");
    if (msg.players != 2 && !bot.supports(msg.players, msg.profile))
      return decline("does not support " + msg.profile);
    return ready(bot.name());
  }
  if (msg.type != MsgType::Request) return std::nullopt;
  std::optional<Action> chosen;
  try {
    chosen = bot.decide(state, msg.actions);
  } catch (const std::exception& err) {
    log(std::string("decide failed: ") + err.what());
  } catch (...) {
    log("decide failed with a non-standard exception");
  }
  // Only an offered action, written exactly as offered, is legal (§4.1): fall back on one, so
  // that a bug costs a bad move, not a forfeit.
  bool offered = false;
  for (const Action& a : msg.actions) offered = offered || (chosen && a.text == chosen->text);
  if (!offered) {
    if (chosen) log("decide returned '" + chosen->text + "', not one of the offered actions");
    const Action* fallback = nullptr;
    for (const Action& a : msg.actions)
      if (!fallback && a.kind == Action::Kind::Pass) fallback = &a;
    for (const Action& a : msg.actions)
      if (!fallback && a.kind != Action::Kind::Unknown && a.kind != Action::Kind::Claim) fallback = &a;
    return fallback ? fallback->text : msg.actions.front().text;
  }
  return chosen->text;
}

int run(Bot& bot, std::istream& in, std::ostream& out) {
  GameState state;
  Log log = [&bot](const std::string& text) {
    // One whole line at a time, flushed, so that it reaches the decision it explains (§6.1).
    std::cerr << bot.name() << ": " << text << std::endl;
  };
  std::string line;
  while (std::getline(in, line)) {
    Message msg;
    try {
      msg = parseLine(line);
    } catch (const ProtocolError& err) {
      log(std::string("ignored a line I cannot read: ") + err.what());
      continue;
    }
    std::optional<std::string> reply = answer(bot, state, msg, log);
    // Flushed at once: an answer in a buffer has not been sent, and the clock runs (§1).
    if (reply) out << *reply << '\n' << std::flush;
  }
  return 0;
}

}  // namespace kit
