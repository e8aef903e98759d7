/* The runner (see run.h). */
#include "run.h"

#include <stdio.h>
#include <string.h>

static void note(LogFn log, void *ctx, const char *text)
{
    if (log != NULL)
        log(ctx, text);
}

bool answer(Bot *bot, GameState *state, const Message *msg, char *out, size_t size, LogFn log,
            void *log_ctx)
{
    char text[ERROR_MAX + 2 * WORD_MAX];
    const Action *fallback = NULL;
    Action chosen;
    int i;
    state_update(state, msg);
    if (msg->type == MSG_HELLO) {
        if (msg->version != 1) {
            sprintf(text, "protocol version %d is not 1; answering anyway", msg->version);
            note(log, log_ctx, text);
        }
        if (msg->players != 2 && bot->supports != NULL
            && !bot->supports(bot, msg->players, msg->profile)) {
            sprintf(text, "does not support %s", msg->profile);
            decline(text, out, size);
            return true;
        }
        if (!ready(bot->name, out, size)) {
            sprintf(text, "'%.64s' is no bot name (1 to 64 of A-Z a-z 0-9 _ . + -)", bot->name);
            note(log, log_ctx, text);
            decline(text, out, size);
        }
        return true;
    }
    if (msg->type != MSG_REQUEST)
        return false;
    chosen = bot->decide(bot, state, msg->actions, msg->n_actions);
    /* Only an offered action, written exactly as offered, is legal (§4.1): fall back on one, so
     * that a bug costs a bad move, not a forfeit. */
    for (i = 0; i < msg->n_actions; i++)
        if (strncmp(msg->actions[i].text, chosen.text, ACTION_TEXT_MAX) == 0) {
            snprintf(out, size, "%s", msg->actions[i].text);
            return true;
        }
    chosen.text[ACTION_TEXT_MAX - 1] = '\0';
    sprintf(text, "decide returned '%s', not one of the offered actions", chosen.text);
    note(log, log_ctx, text);
    for (i = 0; i < msg->n_actions && fallback == NULL; i++)
        if (msg->actions[i].kind == ACTION_PASS)
            fallback = &msg->actions[i];
    for (i = 0; i < msg->n_actions && fallback == NULL; i++)
        if (msg->actions[i].kind != ACTION_UNKNOWN && msg->actions[i].kind != ACTION_CLAIM)
            fallback = &msg->actions[i];
    snprintf(out, size, "%s", (fallback ? fallback : &msg->actions[0])->text);
    return true;
}

static void to_stderr(void *ctx, const char *text)
{
    /* One whole line at a time, flushed, so that it reaches the decision it explains (§6.1). */
    fprintf(stderr, "%s: %s\n", ((const Bot *)ctx)->name, text);
    fflush(stderr);
}

int run(Bot *bot, FILE *in, FILE *out)
{
    /* Static: a GameState is about 200 KB of fixed tables, more than some stacks hold. */
    static GameState state;
    static Message msg;
    char line[MAX_LINE_BYTES + 3]; /* the line, "\r\n" and the NUL */
    char reply[MAX_LINE_BYTES + 1], err[ERROR_MAX];
    bool skipping = false; /* inside an over-long line: drop its remainder */
    state_init(&state);
    while (fgets(line, sizeof line, in) != NULL) {
        size_t len = strlen(line);
        bool complete = len > 0 && line[len - 1] == '\n';
        if (skipping) {
            skipping = !complete;
            continue;
        }
        if (!complete && !feof(in)) { /* longer than the protocol allows (§1) */
            to_stderr(bot, "ignored a line longer than 1024 bytes");
            skipping = true;
            continue;
        }
        if (!parse_line(line, &msg, err)) {
            char text[ERROR_MAX + 40];
            sprintf(text, "ignored a line I cannot read: %s", err);
            to_stderr(bot, text);
            continue;
        }
        if (answer(bot, &state, &msg, reply, sizeof reply, to_stderr, bot)) {
            /* Flushed at once: an answer in a buffer has not been sent, and the clock runs (§1). */
            fprintf(out, "%s\n", reply);
            fflush(out);
        }
    }
    return 0;
}
