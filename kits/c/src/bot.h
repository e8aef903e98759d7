/* The sample bot: the arena's bundled `c-counter` is this policy, built from these sources. On top
 * of the tracker it claims the moment its side's count reaches the claim target (and never below),
 * always exchanges, shows a marriage whenever one is offered (the trump one first), never closes,
 * and plays a cheap card: as follower the cheapest card of the winning card's suit that beats it,
 * else the lowest trump when the table holds 10 points or more, else the cheapest card; as leader
 * the cheapest card that is not a trump, or (once the stock is gone) a card nothing can beat. With
 * four players it loads its partner's winning trick with points when it plays last.
 *
 * Replace sample_decide with your own policy (or write another Bot): it gets the state and the
 * offered actions, and must return one of those actions. */
#ifndef KIT_BOT_H
#define KIT_BOT_H

#include <stdbool.h>

#include "state.h"

typedef struct Bot Bot;

/** What the runner needs of a bot: a name, which variants it plays, and a decision. */
struct Bot {
    const char *name;
    /** Whether to play a match of `players` in `profile` (the three- and four-player greeting,
     * PROTOCOL.md §9.1); a bot that says no answers `decline`. NULL: it plays every variant. */
    bool (*supports)(const Bot *bot, int players, const char *profile);
    /** One of actions[0..n-1] (the request's list, PROTOCOL.md §4.1) for the state s. */
    Action (*decide)(Bot *bot, const GameState *s, const Action *actions, int n);
    void *data; /* the policy's own, if it keeps any */
};

/** The sample bot, answering the greeting with `name`. */
Bot sample_bot(const char *name);
Action sample_decide(Bot *bot, const GameState *s, const Action *actions, int n);

/* The helpers, for tests and for a policy of your own. */

/** A king or queen whose partner is also in hand. */
bool in_marriage(const GameState *s, Card card);
/** Lower is cheaper: points first, then rank; trumps cost more, and so do the halves of a
 * marriage that can still be shown (phase 1). */
int card_cost(const GameState *s, Card card);
/** Is `card` the highest of its suit still out? Every higher card, each copy of it, is played or
 * in my hand (the other copy of `card` itself cannot beat it: the first of twins wins). */
bool is_top(const GameState *s, Card card);
/** Four players: does my partner's card win the trick under way? */
bool partner_winning(const GameState *s);

#endif
