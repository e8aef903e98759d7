/* Cards and actions (see cards.h). */
#include "cards.h"

#include <stdio.h>
#include <string.h>

bool is_suit(char c) { return c != '\0' && strchr(SUITS, c) != NULL; }
bool is_rank(char c) { return c != '\0' && strchr(RANKS, c) != NULL; }

bool card_parse(const char *word, Card *out)
{
    if (word == NULL || !is_rank(word[0]) || !is_suit(word[1]) || word[2] != '\0')
        return false;
    out->rank = word[0];
    out->suit = word[1];
    return true;
}

char *card_str(Card card, char out[3])
{
    out[0] = card.rank;
    out[1] = card.suit;
    out[2] = '\0';
    return out;
}

bool card_eq(Card a, Card b) { return a.rank == b.rank && a.suit == b.suit; }

int card_cmp(Card a, Card b)
{
    if (a.suit != b.suit)
        return a.suit < b.suit ? -1 : 1;
    return a.rank < b.rank ? -1 : a.rank > b.rank;
}

int card_points(Card card)
{
    switch (card.rank) {
    case 'A': return 11;
    case 'T': return 10;
    case 'K': return 4;
    case 'Q': return 3;
    case 'J': return 2;
    default: return 0;
    }
}

int card_strength(Card card)
{
    const char *at = is_rank(card.rank) ? strchr(RANKS, card.rank) : NULL;
    return at ? (int)(at - RANKS) : 8;
}

int card_index(Card card)
{
    const char *suit = is_suit(card.suit) ? strchr(SUITS, card.suit) : SUITS;
    return (int)(suit - SUITS) * 8 + card_strength(card) % 8;
}

bool beats(Card card, Card best, char trump)
{
    if (card.suit == best.suit)
        return card_strength(card) < card_strength(best);
    return card.suit == trump;
}

int pack_cards(int deck_size, Card out[MAX_PACK])
{
    const char *ranks = deck_size == 20 ? "ATKQJ" : deck_size == 32 ? "ATKQJ987" : "ATKQJ9";
    int copies = deck_size == 48 ? 2 : 1, n = 0, copy;
    const char *s, *r;
    for (copy = 0; copy < copies; copy++)
        for (s = SUITS; *s; s++)
            for (r = ranks; *r; r++) {
                out[n].rank = *r;
                out[n].suit = *s;
                n++;
            }
    return n;
}

static Action make(ActionKind kind, const char *word)
{
    Action a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    strcpy(a.text, word); /* the callers' words are short: checked below */
    return a;
}

bool action_parse(const char *word, Action *out)
{
    static const struct {
        const char *word;
        ActionKind kind;
    } plain[] = {{"exchange", ACTION_EXCHANGE}, {"close", ACTION_CLOSE},
                 {"claim", ACTION_CLAIM}, {"pass", ACTION_PASS}};
    size_t i;
    Card card;
    for (i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strcmp(word, plain[i].word) == 0) {
            *out = make(plain[i].kind, word);
            return true;
        }
    if (strncmp(word, "play:", 5) == 0 && card_parse(word + 5, &card)) {
        *out = make(ACTION_PLAY, word);
        out->card = card;
        return true;
    }
    if (strncmp(word, "marry:", 6) == 0 && is_suit(word[6]) && word[7] == '\0') {
        *out = make(ACTION_MARRY, word);
        out->suit = word[6];
        return true;
    }
    return false;
}

Action action_play(Card card)
{
    char text[ACTION_TEXT_MAX];
    char c[3];
    Action a;
    sprintf(text, "play:%s", card_str(card, c));
    a = make(ACTION_PLAY, text);
    a.card = card;
    return a;
}
