/* The sample bot as a program: `./bot [NAME]` plays one match over stdin and stdout. */
#include <stdio.h>

#include "bot.h"
#include "run.h"

/* The name it answers the greeting with when none is given; the arena's bundled c-counter is
 * this program built with -DDEFAULT_NAME='"c-counter"' (bots/c/Makefile). */
#ifndef DEFAULT_NAME
#define DEFAULT_NAME "kit-c"
#endif

int main(int argc, char **argv)
{
    Bot bot = sample_bot(argc > 1 ? argv[1] : DEFAULT_NAME);
    return run(&bot, stdin, stdout);
}
