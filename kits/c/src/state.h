/* What one seat has seen of its match, kept up to date from the referee's messages.
 *
 * state_update(&s, &msg) folds one parsed message (protocol.h) into the state. The state holds only
 * what the lines said, plus what follows from them by the rules: the stock's size, which cards are
 * still unseen, which marriages count. The referee sends no totals during a deal (RULES.md §3,
 * PROTOCOL.md §4.2: the mental count), so state_my_points() is the seat counting for itself.
 *
 * Players are seat numbers everywhere in the state, also with two players (`me` is `seat`, `opp`
 * the other seat). A side is a seat, except with four players, where partners (seats k and k+2)
 * make one side: seat % 2 (PROTOCOL.md §9.1). -1 means "nobody" where a seat may be missing.
 * The lists are arrays with a count beside them (hand and n_hand); the hand is a multiset: with
 * two packs a card may be held twice. */
#ifndef KIT_STATE_H
#define KIT_STATE_H

#include <stdbool.h>

#include "protocol.h"

#define TWO_PLAYER_TARGET 66 /* §3: the claim target of every two-player profile */
#define FOUR_PLAYER_TARGET 101
#define MAX_TRICKS 24
#define MAX_MARRIAGES 16
#define MAX_RULES 128

typedef enum { STOCK_OPEN, STOCK_CLOSED, STOCK_EXHAUSTED } StockState;

typedef struct {
    int seat;
    Card card;
} SeatCard;

typedef struct {
    int winner;
    Card cards[MAX_PLAYERS]; /* the led card first */
    int n_cards;
} TrickDone;

typedef struct {
    int seat;
    char suit;
    int points;
    int tricks_before; /* tricks its side had won when it was shown */
} Marriage;

typedef struct {
    /* -- the match ------------------------------------------------------------------------------ */
    char match_id[MAX_LINE_BYTES + 1];
    char profile[WORD_MAX + 1];
    int match_target; /* game points to win the match (the `target` of the match line) */
    int seat;
    int players;
    char names[MAX_PLAYERS][WORD_MAX + 1];
    int n_names;
    char opponent[WORD_MAX + 1];
    int decision_ms;
    int first_decision_ms; /* the clock line (§3, §6); 0 without one */
    int bank_ms;
    Pair rules[MAX_RULES]; /* every flag of the rules lines, as text (RULES.md §11) */
    int n_rules;
    int score[MAX_SIDES]; /* as the wire says: {mine, theirs}, or one per side with more players */
    int n_score;
    int pot;
    bool has_last_settle; /* last_settle and match_end: at the end */
    bool has_match_end;

    /* -- the deal ------------------------------------------------------------------------------- */
    int deal_no;
    int dealer;
    char trump;             /* a suit letter; '\0' before the first deal */
    bool has_upcard;        /* the face-up card under an open stock */
    Card upcard;
    bool has_stock_bottom;  /* the bottom card, still known once it lies face down (a close) */
    Card stock_bottom;
    int stock;              /* cards in the stock, the up-card included (§4) */
    StockState stock_state;
    int closer;
    int exchanged_by;
    int claimed_by;
    int leader;             /* who leads the current (or next) trick */
    SeatCard table[MAX_PLAYERS]; /* the trick under way, the led card first */
    int n_table;
    TrickDone tricks[MAX_TRICKS]; /* finished tricks */
    int n_tricks;
    int last_trick_winner;
    Card hand[MAX_HAND];
    int n_hand;
    Card played[MAX_PACK];  /* every card played this deal, in order */
    int n_played;
    Card played_by[MAX_PLAYERS][MAX_HAND];
    int n_played_by[MAX_PLAYERS];
    Card known[MAX_PLAYERS][MAX_HAND]; /* cards another seat surely holds */
    int n_known[MAX_PLAYERS];
    int hand_sizes[MAX_PLAYERS];
    Card won[MAX_SIDES][MAX_PACK]; /* cards in each side's tricks */
    int n_won[MAX_SIDES];
    int tricks_won[MAX_SIDES];
    Marriage marriages[MAX_MARRIAGES];
    int n_marriages;
    Card dead_pile[2];
    int n_dead_pile;
    bool deal_over;
    bool has_request;

    /* -- messages kept whole, last: most of each one's 55 KB is its two pair tables, which
     * message_clear leaves alone (protocol.h), so a new deal or match clears what the state holds
     * rather than 165 KB, and a bot's start does not touch their pages. ------------------------- */
    Message last_settle;
    Message match_end;
    Message request; /* the request being answered; a new deal clears it */
} GameState;

/** A state before any message: two players, nothing known. */
void state_init(GameState *s);
/** Folds one message in. An event naming a seat this match does not have is ignored. */
void state_update(GameState *s, const Message *msg);

/* -- seats and sides ------------------------------------------------------------------------------ */
/** The seat a line's Who names: me, opp (two players) or a seat number; -1 for none. */
int state_seat_of(const GameState *s, Who who);
int state_sides(const GameState *s);
int state_side_of(const GameState *s, int seat);
int state_my_side(const GameState *s);
/** My partner's seat with four players, else -1. */
int state_partner(const GameState *s);
int state_next_seat(const GameState *s, int seat);
/** The card points a side needs for a claim: 66, 101 with four players (the rules line). */
int state_claim_target(const GameState *s);
/** A flag of the rules lines as text, or `fallback` when they did not name it. */
const char *state_flag(const GameState *s, const char *name, const char *fallback);
/** How many copies of each card the pack has: 2 with four players (RULES.md §10.3), else 1. */
int state_copies(const GameState *s);

/* -- what the seat may know ----------------------------------------------------------------------- */
/** 1 while the stock is open, 2 once it is closed or exhausted (RULES.md §0.3). */
int state_phase(const GameState *s);
/** The seat that plays the next card of the trick under way, -1 when nobody does. */
int state_to_play(const GameState *s);
/** The card winning the trick under way so far and its seat; false on an empty table. */
bool state_best(const GameState *s, SeatCard *out);
/** How many copies of `card` are in my hand, and how many were played this deal. */
int state_in_hand(const GameState *s, Card card);
int state_played_count(const GameState *s, Card card);
/** Cards another seat (or, seat -1, every other seat) is known for sure to hold: a shown
 * marriage, the up-card it took by exchanging, the face-up card it drew. Returns how many. */
int state_known_cards(const GameState *s, int of, Card out[MAX_PACK]);
/** How many copies of each card (by card_index) the seat knows nothing about: in other hands,
 * in the stock or (three players) the dead pile. */
void state_unseen_counts(const GameState *s, int counts[CARD_KINDS]);

/* -- the mental count (RULES.md §7.1, §10; PROTOCOL.md §4.2, §9.3) -------------------------------- */
/** A side's total so far: every card of every trick is public, and so is every marriage. */
int state_points(const GameState *s, int side);
/** The seat's own count: its side's card points, credited marriages and last-trick bonus. */
int state_my_points(const GameState *s);
/** Marriage points of `side` (-1: mine) that count once the side wins a trick. */
int state_pending_marriage_points(const GameState *s, int side);
/** The best total among the other sides (exact: all of it is public). */
int state_best_other_points(const GameState *s);
/** My side's score in game points, from the wire's score list. */
int state_my_score(const GameState *s);

#endif
