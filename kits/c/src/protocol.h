/* Every line of protocol version 1 (protocol/PROTOCOL.md) to a Message and back.
 *
 * parse_line(text, &msg, err) reads one line from the referee. A first word version 1 does not
 * define gives MSG_UNKNOWN: bots ignore those (§1, §8). A known word with bad arguments is an
 * error: parse_line returns false and says why in err. format_message(&msg, ...) writes any message
 * back as its line (without the "\n"); a bot itself writes only ready(), decline() and the text of
 * one offered action.
 *
 * A player (Who) is `me` or `opp` with two players, a seat number with three or four (§9).
 * Per-side figures (score, totals, tricks, awarded) are lists: {mine, theirs} with two players,
 * one number per side, side 0 first, with more. Every list has a fixed room (the MAX_ constants
 * below, far above what version 1 sends); a line that would overflow one is an error. */
#ifndef KIT_PROTOCOL_H
#define KIT_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

#include "cards.h"

#define PROTOCOL_NAME "sixtysix"
#define MAX_LINE_BYTES 1024 /* §1: not counting the "\n" */
#define WORD_MAX 128        /* a name (§3: 64 at most), a profile, a flag, a reason */
#define MAX_PLAYERS 4
#define MAX_SIDES 3  /* three players: three sides; four players: two */
#define MAX_HAND 16
#define MAX_ACTIONS 64
#define MAX_PAIRS 96 /* flags of one rules line, new words of a match or clock line */
#define ERROR_MAX 256

typedef enum { WHO_NONE, WHO_ME, WHO_OPP, WHO_SEAT } WhoKind;

/** A player as a line names it: me, opp, a seat number, or none (a winner nobody is). */
typedef struct {
    WhoKind kind;
    int seat; /* WHO_SEAT only, else -1 */
} Who;

Who who_me(void);
Who who_opp(void);
Who who_seat(int seat);
Who who_none(void);
bool who_eq(Who a, Who b);
/** "me", "opp", the seat number or "none", written into out (5 bytes); returns out. */
char *who_str(Who who, char out[5]);

typedef enum {
    MSG_UNKNOWN,
    MSG_HELLO,
    MSG_MATCH,
    MSG_CLOCK,
    MSG_RULES,
    MSG_DEAL,
    MSG_REQUEST,
    MSG_PLAYED,
    MSG_TRICK,
    MSG_MARRIAGE,
    MSG_EXCHANGE,
    MSG_CLOSE,
    MSG_DRAW,
    MSG_CLAIM,
    MSG_SETTLE,
    MSG_MATCH_END
} MsgType;

typedef struct {
    char key[WORD_MAX + 1];
    char value[WORD_MAX + 1];
} Pair;

/** One referee line. Only the fields of its type are meaningful (see parse_line's comments). */
typedef struct {
    MsgType type;
    char line[MAX_LINE_BYTES + 1]; /* MSG_UNKNOWN: the whole line */

    /* MSG_HELLO (§3, §9.1): players 2 and an empty profile for the two-player greeting. */
    int version;
    int players;
    char profile[WORD_MAX + 1]; /* also MSG_MATCH */

    /* MSG_MATCH (§3, §9.2): opponent with two players, names with more. `extra` (at the end) keeps
     * key/value pairs a newer referee may add, rather than failing on them. MSG_CLOCK (§3): its own
     * pairs. */
    char match_id[MAX_LINE_BYTES + 1];
    int target;
    int seat;
    bool has_opponent;
    char opponent[WORD_MAX + 1];
    char names[MAX_PLAYERS][WORD_MAX + 1];
    int n_names;
    int decision_ms;
    int first_decision_ms;
    int bank_ms;
    int n_extra; /* the pairs in extra[0..n_extra) */

    int n_flags; /* MSG_RULES: flag=value pairs in flags[0..n_flags); several lines add up (§3) */

    /* MSG_DEAL (§4, §9.3) */
    int deal_no;
    Who dealer;
    Card upcard;
    int stock;
    Card hand[MAX_HAND];
    int n_hand;
    int score[MAX_SIDES]; /* also MSG_SETTLE, MSG_MATCH_END */
    int n_score;
    int pot; /* also MSG_SETTLE */

    /* MSG_REQUEST (§4.1) */
    char decision[16]; /* lead, follow, after_trick, close_exchange, between_tricks */
    Action actions[MAX_ACTIONS];
    int n_actions;

    /* Events (§4.2, §9.3) */
    Who who;
    bool has_card;             /* MSG_PLAYED; MSG_DRAW (absent: a hidden draw) */
    Card card;
    Card cards[MAX_PLAYERS];   /* MSG_TRICK: led first */
    int n_cards;
    char suit;                 /* MSG_MARRIAGE */
    int points;                /* MSG_MARRIAGE; MSG_SETTLE */
    Card took, gave;           /* MSG_EXCHANGE */

    /* MSG_SETTLE (§4.3, §9.4) and MSG_MATCH_END (§4.4, §9.5) */
    Who winner;
    char reason[WORD_MAX + 1];
    int awarded[MAX_SIDES], n_awarded;
    int totals[MAX_SIDES], n_totals;
    int tricks[MAX_SIDES], n_tricks;
    Card dead[2]; /* three players only */
    int n_dead;
    bool has_fault; /* MSG_MATCH_END */
    char fault[WORD_MAX + 1];
    Who by;

    /* The two tables of pairs, last: at 24 KB each they are nearly all of the Message's 55 KB,
     * while a line fills a few entries. So parse_line clears only what comes before them, and
     * message_copy copies that and the entries in use: a line costs what it holds. Read a table
     * up to its count. The entry at the count is empty (a loop to the first empty key stops there
     * too); those past it may still hold an earlier line's pairs. */
    Pair extra[MAX_PAIRS]; /* MSG_MATCH, MSG_CLOCK: [0, n_extra) */
    Pair flags[MAX_PAIRS]; /* MSG_RULES: [0, n_flags) */
} Message;

/** One referee line (with or without its "\n"; a "\r" before it is dropped, §1) as a message.
 * False for a known line that breaks the protocol: err (ERROR_MAX bytes) says why. */
bool parse_line(const char *line, Message *msg, char err[ERROR_MAX]);
/** Any message as its line, without the "\n", into out (size bytes): parse_line of it reads msg
 * back. Returns the line's length, or -1 when it does not fit. */
int format_message(const Message *msg, char *out, size_t size);
/** *to = *from, without the 48 KB of pair entries past the counts: keep a message this way (the
 * tracker keeps the request, the last settle and the match end). */
void message_copy(Message *to, const Message *from);
/** A Message of zeroes, as far as a reader of the counts can tell: all but the pair tables, whose
 * first entries are made empty. */
void message_clear(Message *m);
/** The answer to the greeting (§3) into out; false for a name the referee would refuse. */
bool ready(const char *name, char *out, size_t size);
/** The answer to a three- or four-player greeting the bot does not play (§9.1); text may be NULL. */
void decline(const char *text, char *out, size_t size);

#endif
