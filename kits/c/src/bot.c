/* The sample bot's policy (see bot.h). */
#include "bot.h"

#include <stddef.h>

#define HIGH_POINTS 10       /* a table worth this much is worth a trump */
#define TRUMP_COST 1000      /* card_cost: any trump costs more than any plain card */
#define MARRIAGE_COST 500    /* ... and half of a marriage more than a plain card that is not */

bool in_marriage(const GameState *s, Card card)
{
    Card partner;
    if (card.rank != 'K' && card.rank != 'Q')
        return false;
    partner.rank = card.rank == 'K' ? 'Q' : 'K';
    partner.suit = card.suit;
    return state_in_hand(s, partner) > 0;
}

int card_cost(const GameState *s, Card card)
{
    int cost = (card.suit == s->trump ? TRUMP_COST : 0) + card_points(card) * 10
               + (7 - card_strength(card));
    if (state_phase(s) == 1 && in_marriage(s, card))
        cost += MARRIAGE_COST;
    return cost;
}

bool is_top(const GameState *s, Card card)
{
    Card higher;
    int strength;
    higher.suit = card.suit;
    for (strength = 0; strength < card_strength(card); strength++) {
        higher.rank = RANKS[strength];
        if (state_played_count(s, higher) + state_in_hand(s, higher) < state_copies(s))
            return false;
    }
    return true;
}

bool partner_winning(const GameState *s)
{
    SeatCard top;
    return s->players == 4 && state_best(s, &top) && top.seat == state_partner(s);
}

/* The offered card (of cards[0..n-1]) that costs least; the first of equals. */
static int cheapest(const GameState *s, const Card *cards, int n)
{
    int k, best = -1;
    for (k = 0; k < n; k++)
        if (best < 0 || card_cost(s, cards[k]) < card_cost(s, cards[best]))
            best = k;
    return best;
}

/* Four players, my partner's card winning: played last, load it with points (not trumps);
 * otherwise give nothing away. */
static int onto_partner(const GameState *s, const Card *cards, int n)
{
    int k, best = -1;
    if (s->n_table == s->players - 1)
        for (k = 0; k < n; k++) {
            bool plain = cards[k].suit != s->trump;
            bool best_plain = best >= 0 && cards[best].suit != s->trump;
            if (best < 0 || plain > best_plain
                || (plain == best_plain && card_points(cards[k]) > card_points(cards[best])))
                best = k;
        }
    return best >= 0 ? best : cheapest(s, cards, n);
}

/* Following: the cheapest card of the winning card's suit that beats it (with two players the
 * winning card is the led one); a valuable table is worth the lowest trump. */
static int follow(const GameState *s, const Card *cards, int n)
{
    SeatCard top;
    int k, best = -1, table_points = 0;
    state_best(s, &top);
    for (k = 0; k < n; k++)
        if (cards[k].suit == top.card.suit && beats(cards[k], top.card, s->trump)
            && (best < 0 || card_cost(s, cards[k]) < card_cost(s, cards[best])))
            best = k;
    for (k = 0; k < s->n_table; k++)
        table_points += card_points(s->table[k].card);
    if (best < 0 && table_points >= HIGH_POINTS && top.card.suit != s->trump)
        for (k = 0; k < n; k++)
            if (cards[k].suit == s->trump
                && (best < 0 || card_strength(cards[k]) > card_strength(cards[best])))
                best = k;
    return best >= 0 ? best : cheapest(s, cards, n);
}

/* Leading: once the stock is gone (strict following, RULES.md §6) cash a card nothing can beat,
 * a trump first; otherwise the cheapest card, which is not a trump when there is another. */
static int lead(const GameState *s, const Card *cards, int n)
{
    int k, best = -1;
    if (state_phase(s) == 2)
        for (k = 0; k < n; k++)
            if (is_top(s, cards[k])
                && (best < 0 || (cards[k].suit == s->trump && cards[best].suit != s->trump)))
                best = k;
    return best >= 0 ? best : cheapest(s, cards, n);
}

Action sample_decide(Bot *bot, const GameState *s, const Action *actions, int n)
{
    int i, marry = -1, n_cards = 0, chosen;
    int index[MAX_ACTIONS];
    Card cards[MAX_ACTIONS];
    (void)bot;
    if (n > MAX_ACTIONS)
        n = MAX_ACTIONS;
    /* The count is ours to keep (RULES.md §3): claim exactly when it reaches the target. */
    for (i = 0; i < n; i++)
        if (actions[i].kind == ACTION_CLAIM && state_my_points(s) >= state_claim_target(s))
            return actions[i];
    for (i = 0; i < n; i++)
        if (actions[i].kind == ACTION_EXCHANGE)
            return actions[i]; /* the up-card is never worse than the lowest trump */
    for (i = 0; i < n; i++)
        if (actions[i].kind == ACTION_MARRY && (marry < 0 || actions[i].suit == s->trump))
            marry = i;
    if (marry >= 0)
        return actions[marry];
    for (i = 0; i < n; i++)
        if (actions[i].kind == ACTION_PLAY) {
            index[n_cards] = i;
            cards[n_cards++] = actions[i].card;
        }
    if (n_cards == 0) {
        for (i = 0; i < n; i++)
            if (actions[i].kind == ACTION_PASS)
                return actions[i];
        /* Never close, nor claim below the target; every request allows something else. */
        for (i = 0; i < n; i++)
            if (actions[i].kind != ACTION_CLOSE && actions[i].kind != ACTION_CLAIM)
                return actions[i];
        return actions[0];
    }
    if (partner_winning(s))
        chosen = onto_partner(s, cards, n_cards);
    else if (s->n_table > 0)
        chosen = follow(s, cards, n_cards);
    else
        chosen = lead(s, cards, n_cards);
    return actions[index[chosen]];
}

static bool every_variant(const Bot *bot, int players, const char *profile)
{
    (void)bot;
    (void)players;
    (void)profile;
    return true;
}

Bot sample_bot(const char *name)
{
    Bot bot;
    bot.name = name;
    bot.supports = every_variant;
    bot.decide = sample_decide;
    bot.data = NULL;
    return bot;
}
