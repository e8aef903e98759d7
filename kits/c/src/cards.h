/* Cards, suits and actions as the wire writes them (PROTOCOL.md §2): a card is two characters, rank
 * then suit ("TH" is the ten of hearts); an action is one word ("play:TH", "marry:S", "pass").
 * Each type reads its text with *_parse() and writes it back byte for byte (card_str, action.text).
 *
 * Every function that can fail returns false and leaves its output alone; nothing here allocates. */
#ifndef KIT_CARDS_H
#define KIT_CARDS_H

#include <stdbool.h>

#define RANKS "ATKQJ987" /* strongest first (RULES.md §1) */
#define SUITS "CSHD"
#define CARD_KINDS 32    /* 8 ranks x 4 suits: card_index() numbers them */
#define MAX_PACK 48      /* two 24-card packs with four players (RULES.md §10.3) */

typedef struct {
    char rank; /* one of RANKS */
    char suit; /* one of SUITS */
} Card;

bool is_suit(char c);
bool is_rank(char c);

/** Reads a card word ("TH"); false for anything else. */
bool card_parse(const char *word, Card *out);
/** The card as its two characters, written into out (3 bytes, NUL included); returns out. */
char *card_str(Card card, char out[3]);
bool card_eq(Card a, Card b);
/** Suit, then rank as the characters order them: for sorting (qsort) and nothing else. */
int card_cmp(Card a, Card b);
/** Card points: A 11, T 10, K 4, Q 3, J 2, 9 8 7 0 (RULES.md §1). */
int card_points(Card card);
/** 0 for an ace up to 7 for a seven: a lower strength number is a stronger card. */
int card_strength(Card card);
/** A number 0..CARD_KINDS-1 for each card (the same for both copies of a twin), for tables. */
int card_index(Card card);

/** Does `card`, played after `best` (the card winning the trick so far), take the trick from it?
 * RULES.md §5.1: the same suit and a higher rank, or a trump on a plain card. Of two identical
 * cards (two packs, §10.3) the one played first wins, so an equal card never beats. */
bool beats(Card card, Card best, char trump);

/** The cards of the pack a rules line's deck_size names (RULES.md §1, §9, §10), written into out;
 * returns how many (20, 24, 32 or 48). */
int pack_cards(int deck_size, Card out[MAX_PACK]);

typedef enum {
    ACTION_PLAY,
    ACTION_MARRY,
    ACTION_EXCHANGE,
    ACTION_CLOSE,
    ACTION_CLAIM,
    ACTION_PASS,
    ACTION_UNKNOWN /* a word version 1 does not define (a request may still list one) */
} ActionKind;

#define ACTION_TEXT_MAX 32

/** One action word of a request (§4.1). `text` is the word exactly as the request listed it,
 * which is what the bot must write back. */
typedef struct {
    ActionKind kind;
    Card card; /* ACTION_PLAY */
    char suit; /* ACTION_MARRY */
    char text[ACTION_TEXT_MAX];
} Action;

/** Reads an action word; false for a word version 1 does not define. */
bool action_parse(const char *word, Action *out);
/** The action `play:<card>`. */
Action action_play(Card card);

#endif
