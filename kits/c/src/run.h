/* The loop between the referee and a bot: read a line, fold it into the state, answer requests.
 *
 * PROTOCOL.md §1: one line per message, UTF-8, answers flushed at once; the bot writes nothing but
 * its `ready` (or `decline`) and one action per request. Logging goes to stderr, which the referee
 * keeps apart (and shows beside the decision in the replay, §6.1). One process plays one match:
 * when the referee closes stdin, the bot exits. */
#ifndef KIT_RUN_H
#define KIT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bot.h"

/** Where the runner's own notes go: log(ctx, text), one line without its "\n". */
typedef void (*LogFn)(void *ctx, const char *text);

/** The answer line to one parsed message, written into out (size bytes, without the "\n"); false
 * when the message asks for none. A whole dialogue can be scripted with it, without a process.
 * An answer that is not one of the offered actions is replaced by one that is, and logged. */
bool answer(Bot *bot, GameState *state, const Message *msg, char *out, size_t size, LogFn log,
            void *log_ctx);

/** Play one match over `in` and `out`; returns the exit status (0). */
int run(Bot *bot, FILE *in, FILE *out);

#endif
