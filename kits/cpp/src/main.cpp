// The sample bot as a program: `./bot [NAME]` plays one match over stdin and stdout.
#include <iostream>

#include "bot.hpp"
#include "run.hpp"

int main(int argc, char** argv) {
  // Nothing else reads or writes stdio through C: unsynced streams read faster.
  std::ios::sync_with_stdio(false);
  kit::SampleBot bot(argc > 1 ? argv[1] : "kit-cpp");
  return kit::run(bot, std::cin, std::cout);
}
