// The loop between the referee and a bot: read a line, fold it into the state, answer requests.
//
// PROTOCOL.md §1: one line per message, UTF-8, answers flushed at once; the bot writes nothing but
// its `ready` (or `decline`) and one action per request. Logging goes to stderr, which the referee
// keeps apart (and shows beside the decision in the replay, §6.1). One process plays one match:
// when the referee closes stdin, the bot exits.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "bot.hpp"

namespace kit {

using Log = std::function<void(const std::string&)>;

/** The answer line to one parsed message, or nullopt when the message asks for none. A whole
 * dialogue can be scripted with it, without a process. */
std::optional<std::string> answer(Bot& bot, GameState& state, const Message& msg,
                                  const Log& log = [](const std::string&) {});

/** Play one match over `in` and `out`; returns the exit status (0). */
int run(Bot& bot, std::istream& in, std::ostream& out);

}  // namespace kit
