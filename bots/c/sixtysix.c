/*
 * sixtysix-c: a Sixty-Six / Schnapsen bot speaking the arena wire protocol v1.
 *
 * Written from protocol/PROTOCOL.md and RULES.md alone. Portable C99, libc only.
 * Plays two, three and four players (PROTOCOL.md §9: the N-seat greeting,
 * seat numbers instead of me/opp, tricks of n cards, a side's count, the
 * 48-card double pack where a card can be held twice).
 *
 * It tracks one deal from the referee's events (hand, trump, stock size,
 * close, cards won and tricks taken by each side, marriages and their
 * credit), keeps its own mental count of card points, and:
 *   - claims exactly when `claim` is offered and its side's count reaches
 *     claim_target (66, or 101 with four players: RULES.md §10.3);
 *   - exchanges whenever `exchange` is offered;
 *   - declares a marriage whenever one is offered (the trump one first);
 *   - never closes; passes otherwise;
 *   - plays a heuristic card: as follower, the cheapest card of the led suit
 *     that wins, else the cheapest trump when the lead is worth 10 or more,
 *     else the cheapest card; as leader, the lowest card that is not a trump.
 *     With more players it beats the card now winning the trick (not just
 *     the led one), and with four players, when its partner's card wins and
 *     it plays last, it throws its richest card on it.
 * Every answer is one of the request's listed actions, copied verbatim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 1024          /* protocol limit, not counting the '\n' */
#define LINE_BUF (16 * MAX_LINE) /* accept longer lines anyway: the rules line
                                  * is already close to the limit */
#define MAX_TOKENS 1024
#define MAX_HAND 16
#define MAX_SIDES 3
#define CLAIM_TARGET 66
#define BOT_NAME "c-counter"

/* Two players: sides are me/opp. N seats: side k of RULES.md §10.4
 * (three players: the seat; four: seat mod 2). */
enum { ME = 0, OPP = 1 };

/* ---------- cards ---------- */

static const char RANKS[] = "ATKQJ987";   /* high to low */
static const char SUITS[] = "CSHD";

typedef struct {
    int rank;   /* index into RANKS: 0 = ace (highest) */
    int suit;   /* index into SUITS */
} Card;

static int parse_card(const char *s, Card *c)
{
    const char *r, *u;
    if (s == NULL || s[0] == '\0' || s[1] == '\0' || s[2] != '\0')
        return 0;
    r = strchr(RANKS, s[0]);
    u = strchr(SUITS, s[1]);
    if (r == NULL || u == NULL)
        return 0;
    c->rank = (int)(r - RANKS);
    c->suit = (int)(u - SUITS);
    return 1;
}

static int parse_suit(const char *s)
{
    const char *u;
    if (s == NULL || s[0] == '\0' || s[1] != '\0')
        return -1;
    u = strchr(SUITS, s[0]);
    return u ? (int)(u - SUITS) : -1;
}

static int card_points(Card c)
{
    static const int pts[] = { 11, 10, 4, 3, 2, 0, 0, 0 };
    return pts[c.rank];
}

static int same_card(Card a, Card b)
{
    return a.rank == b.rank && a.suit == b.suit;
}

/* ---------- state ---------- */

typedef struct {
    /* match: kept across deals */
    int players;                /* 2, 3 or 4 */
    int seat;                   /* own seat (N seats) */
    int claim_target;           /* 66, or 101 from the rules line */
    /* rules flags */
    int last_trick_bonus;       /* 10 (sixty_six) or 0 (schnapsen) */
    int credit_next_trick;      /* marriage_credit=next_trick_after_meld */

    /* deal */
    int in_deal;
    int trump;                  /* suit index, -1 unknown */
    int stock;                  /* cards in the stock, up-card included */
    int closed;
    Card hand[MAX_HAND];
    int hand_n;
    int card_pts[MAX_SIDES];    /* per side: points of the cards won in tricks */
    int tricks[MAX_SIDES];      /* tricks won */
    int marr_credited[MAX_SIDES]; /* marriage points that count */
    int marr_pending[MAX_SIDES];  /* declared, not yet credited */
    int bonus[MAX_SIDES];       /* last-trick bonus */
    unsigned char gone[8][4];   /* [rank][suit]: copies played to a trick */
    int have_led;               /* a card is on the table */
    Card led;                   /* ... and this is it */
    Card best;                  /* the card now winning the trick */
    int table_pts;              /* card points on the table */
    int best_seat;              /* who played it (N seats) */
    int on_table;               /* cards played to this trick */
} State;

static State st;

static void reset_deal(void)
{
    State keep = st;
    memset(&st, 0, sizeof st);
    st.players = keep.players;
    st.seat = keep.seat;
    st.claim_target = keep.claim_target;
    st.last_trick_bonus = keep.last_trick_bonus;
    st.credit_next_trick = keep.credit_next_trick;
    st.trump = -1;
}

static int copies(void)
{
    return st.players == 4 ? 2 : 1;     /* two 24-card packs (RULES.md §10.3) */
}

static int side_of(int seat)
{
    return st.players == 4 ? seat % 2 : seat;
}

static int my_side(void)
{
    return st.players == 2 ? ME : side_of(st.seat);
}

/* The seat a message names: `me`/`opp` with two players, a seat number
 * (PROTOCOL.md §9) otherwise. Returns -1 for anything else. */
static int seat_of(const char *w)
{
    char *end;
    long k;
    if (w == NULL)
        return -1;
    if (st.players == 2) {
        if (strcmp(w, "me") == 0)
            return ME;
        if (strcmp(w, "opp") == 0)
            return OPP;
        return -1;
    }
    k = strtol(w, &end, 10);
    if (end == w || *end != '\0' || k < 0 || k >= st.players)
        return -1;
    return (int)k;
}

/* The side a message's seat scores for (me/opp are the sides with two). */
static int who_index(const char *w)
{
    int k = seat_of(w);
    if (k < 0 || st.players == 2)
        return k;
    return side_of(k);
}

static int is_me(const char *w)
{
    int k = seat_of(w);
    return k >= 0 && (st.players == 2 ? k == ME : k == st.seat);
}

static void hand_add(Card c)
{
    int i, held = 0;
    for (i = 0; i < st.hand_n; i++)
        if (same_card(st.hand[i], c))
            held++;
    if (held >= copies())
        return;
    if (st.hand_n < MAX_HAND)
        st.hand[st.hand_n++] = c;
}

static void hand_remove(Card c)
{
    int i;
    for (i = 0; i < st.hand_n; i++) {
        if (same_card(st.hand[i], c)) {
            st.hand[i] = st.hand[--st.hand_n];
            return;
        }
    }
}

static int my_total(void)
{
    int s = my_side();
    return st.card_pts[s] + st.marr_credited[s] + st.bonus[s];
}

/* Does `f`, played after `l`, beat it? (RULES.md §5.1; of two identical
 * cards the first played wins, §10.3, so equal is not enough.) */
static int beats(Card f, Card l, int trump)
{
    if (f.suit == l.suit)
        return f.rank < l.rank;
    return f.suit == trump;
}

/* ---------- line splitting ---------- */

static int split(char *line, char **tok, int max)
{
    int n = 0;
    char *p = line;
    while (*p != '\0' && n < max) {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        tok[n++] = p;
        while (*p != '\0' && *p != ' ')
            p++;
        if (*p == ' ')
            *p++ = '\0';
    }
    return n;
}

/* ---------- messages ---------- */

/* match <id> profile <profile> target <n> seat <s> opponent <name> decision_ms <ms>
 * match <id> profile <p> target <t> players <n> seat <k> names <name>... decision_ms <ms>
 * Sets the profile's defaults; the rules line that follows overrides them. */
static void on_match(char **tok, int n)
{
    int i;
    st.claim_target = CLAIM_TARGET;
    for (i = 1; i + 1 < n; i++) {
        if (strcmp(tok[i], "profile") == 0)
            st.last_trick_bonus = strcmp(tok[i + 1], "schnapsen") == 0 ? 0 : 10;
        else if (strcmp(tok[i], "players") == 0)
            st.players = atoi(tok[i + 1]);
        else if (strcmp(tok[i], "seat") == 0)
            st.seat = atoi(tok[i + 1]);
        else if (strcmp(tok[i], "names") == 0 || strcmp(tok[i], "opponent") == 0)
            break;  /* names are bot text: never read them as keywords */
    }
    if (st.players < 2 || st.players > 4)
        st.players = 2;
    if (st.players == 4)
        st.claim_target = 101;  /* RULES.md §10.3, until the rules line says */
}

static void on_rules(char **tok, int n)
{
    int i;
    for (i = 1; i < n; i++) {
        char *eq = strchr(tok[i], '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        if (strcmp(tok[i], "last_trick_bonus") == 0)
            st.last_trick_bonus = atoi(eq + 1);
        else if (strcmp(tok[i], "marriage_credit") == 0)
            st.credit_next_trick = strcmp(eq + 1, "next_trick_after_meld") == 0;
        else if (strcmp(tok[i], "claim_target") == 0 && atoi(eq + 1) > 0)
            st.claim_target = atoi(eq + 1);
        *eq = '=';
    }
}

/* deal <n> dealer <who> upcard <card> stock <k> hand <card>... score <a> <b> pot <p> */
static void on_deal(char **tok, int n)
{
    int i;
    Card c;
    reset_deal();
    st.in_deal = 1;
    for (i = 1; i < n; i++) {
        if (strcmp(tok[i], "upcard") == 0 && i + 1 < n) {
            if (parse_card(tok[++i], &c))
                st.trump = c.suit;
        } else if (strcmp(tok[i], "stock") == 0 && i + 1 < n) {
            st.stock = atoi(tok[++i]);
        } else if (strcmp(tok[i], "hand") == 0) {
            while (i + 1 < n && parse_card(tok[i + 1], &c)) {
                hand_add(c);
                i++;
            }
        }
    }
}

static void on_played(char **tok, int n)
{
    Card c;
    int k;
    if (n < 3 || (k = seat_of(tok[1])) < 0 || !parse_card(tok[2], &c))
        return;
    if (is_me(tok[1]))
        hand_remove(c);
    if (st.gone[c.rank][c.suit] < 2)
        st.gone[c.rank][c.suit]++;
    st.on_table++;
    st.table_pts += card_points(c);
    if (!st.have_led) {
        st.have_led = 1;
        st.led = c;
        st.best = c;
        st.best_seat = k;
    } else if (beats(c, st.best, st.trump)) {
        st.best = c;
        st.best_seat = k;
    }
}

/* trick <who> <led> <followed>, or trick <seat> <c_1> ... <c_n> (N seats) */
static void on_trick(char **tok, int n)
{
    Card c;
    int w, i, pts = 0;
    if (n < 4 || (w = who_index(tok[1])) < 0)
        return;
    for (i = 2; i < n; i++)
        if (parse_card(tok[i], &c))
            pts += card_points(c);
    st.have_led = 0;
    st.on_table = 0;
    st.table_pts = 0;
    st.tricks[w]++;
    st.card_pts[w] += pts;
    /* A won trick credits every marriage declared so far (under
     * once_any_trick, later ones are credited at once, see on_marriage). */
    st.marr_credited[w] += st.marr_pending[w];
    st.marr_pending[w] = 0;
    /* Last trick of a deal played out with the stock exhausted, never closed. */
    if (st.hand_n == 0 && st.stock == 0 && !st.closed)
        st.bonus[w] = st.last_trick_bonus;
}

static void on_marriage(char **tok, int n)
{
    int w, pts;
    if (n < 4 || (w = who_index(tok[1])) < 0)
        return;
    pts = atoi(tok[3]);
    if (st.tricks[w] > 0 && !st.credit_next_trick)
        st.marr_credited[w] += pts;
    else
        st.marr_pending[w] += pts;
}

/* exchange <who> <took> <gave> */
static void on_exchange(char **tok, int n)
{
    Card took, gave;
    if (n < 4 || !is_me(tok[1]) || !parse_card(tok[2], &took) || !parse_card(tok[3], &gave))
        return;
    hand_remove(gave);
    hand_add(took);
}

static void on_draw(char **tok, int n)
{
    Card c;
    int w;
    if (n < 2 || (w = seat_of(tok[1])) < 0)
        return;
    if (st.stock > 0)
        st.stock--;
    if (is_me(tok[1]) && n >= 3 && parse_card(tok[2], &c))
        hand_add(c);
}

/* ---------- decisions ---------- */

/* Is c a king or queen whose partner is also in hand? */
static int in_marriage(Card c)
{
    int i, partner;
    if (c.rank != 2 && c.rank != 3)          /* K or Q */
        return 0;
    partner = c.rank == 2 ? 3 : 2;
    for (i = 0; i < st.hand_n; i++)
        if (st.hand[i].suit == c.suit && st.hand[i].rank == partner)
            return 1;
    return 0;
}

/* Lower is cheaper: points first, then rank; trumps cost more, and so do
 * the halves of a marriage that can still be declared. */
static int cost(Card c)
{
    int k = (c.suit == st.trump ? 1000 : 0) + card_points(c) * 10 + (7 - c.rank);
    if (st.stock > 0 && !st.closed && in_marriage(c))
        k += 500;
    return k;
}

/* Is c the highest card of its suit not yet played (counting our own hand)?
 * With two packs every higher card's both copies must be accounted for; the
 * other copy of c itself cannot beat it when c is led (the first wins). */
static int is_top(Card c)
{
    int r, i;
    for (r = 0; r < c.rank; r++) {
        int known = st.gone[r][c.suit];
        for (i = 0; i < st.hand_n; i++)
            if (st.hand[i].rank == r && st.hand[i].suit == c.suit)
                known++;
        if (known < copies())
            return 0;
    }
    return 1;
}

static int partner_winning(void)
{
    return st.players == 4 && st.have_led && st.best_seat == (st.seat + 2) % 4;
}

static int choose(char **act, int n)
{
    int i, best, marry = -1, k;
    int played_idx[MAX_TOKENS];
    Card played[MAX_TOKENS];
    int np = 0;

    for (i = 0; i < n; i++)
        if (strcmp(act[i], "claim") == 0 && my_total() >= st.claim_target)
            return i;
    for (i = 0; i < n; i++)
        if (strcmp(act[i], "exchange") == 0)
            return i;
    for (i = 0; i < n; i++) {
        if (strncmp(act[i], "marry:", 6) == 0) {
            int s = parse_suit(act[i] + 6);
            if (marry < 0 || s == st.trump)
                marry = i;
        }
    }
    if (marry >= 0)
        return marry;

    for (i = 0; i < n; i++) {
        Card c;
        if (strncmp(act[i], "play:", 5) == 0 && parse_card(act[i] + 5, &c)) {
            played_idx[np] = i;
            played[np++] = c;
        }
    }
    if (np == 0) {
        for (i = 0; i < n; i++)
            if (strcmp(act[i], "pass") == 0)
                return i;
        /* Nothing we like (e.g. only `close` or `claim` below 66):
         * never close or claim on our own; but every request allows
         * something: pick the first action that is neither. */
        for (i = 0; i < n; i++)
            if (strcmp(act[i], "close") != 0 && strcmp(act[i], "claim") != 0)
                return i;
        return 0;
    }

    best = -1;
    if (partner_winning()) {
        /* Four players: the partner's card wins. Played last, load it with
         * points (not trumps); otherwise give nothing away. */
        if (st.on_table == st.players - 1)
            for (k = 0; k < np; k++)
                if (best < 0 || (played[k].suit != st.trump) > (played[best].suit != st.trump)
                    || ((played[k].suit != st.trump) == (played[best].suit != st.trump)
                        && card_points(played[k]) > card_points(played[best])))
                    best = k;
        if (best < 0)
            for (k = 0; k < np; k++)
                if (best < 0 || cost(played[k]) < cost(played[best]))
                    best = k;
    } else if (st.have_led) {
        /* Follower: cheapest card of the winning card's suit that beats it
         * (with two players the winning card is the led one). */
        for (k = 0; k < np; k++)
            if (played[k].suit == st.best.suit && beats(played[k], st.best, st.trump)
                && (best < 0 || cost(played[k]) < cost(played[best])))
                best = k;
        /* A valuable trick is worth a trump. */
        if (best < 0 && st.table_pts >= 10 && st.best.suit != st.trump)
            for (k = 0; k < np; k++)
                if (played[k].suit == st.trump
                    && (best < 0 || played[k].rank > played[best].rank))
                    best = k;
        if (best < 0)
            for (k = 0; k < np; k++)
                if (best < 0 || cost(played[k]) < cost(played[best]))
                    best = k;
    } else {
        /* Leader, once the stock is gone (strict following): cash a card
         * that cannot be beaten, a trump first. */
        if (st.stock == 0 || st.closed)
            for (k = 0; k < np; k++)
                if (is_top(played[k])
                    && (best < 0 || (played[k].suit == st.trump && played[best].suit != st.trump)))
                    best = k;
        /* Otherwise the lowest card that is not a trump (cost() ranks trumps last). */
        if (best < 0)
            for (k = 0; k < np; k++)
                if (best < 0 || cost(played[k]) < cost(played[best]))
                    best = k;
    }
    return played_idx[best];
}

static void answer(const char *s)
{
    fputs(s, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static int on_line(char *line)
{
    char *tok[MAX_TOKENS];
    int n = split(line, tok, MAX_TOKENS);
    size_t len;
    if (n == 0)
        return 1;
    len = strlen(tok[0]);
    if (len > 1 && tok[0][len - 1] == '?') {
        if (n >= 2)
            answer(tok[1 + choose(tok + 1, n - 1)]);
        return 1;
    }
    if (strcmp(tok[0], "sixtysix") == 0) {
        if (n < 2 || strcmp(tok[1], "1") != 0)
            return 0;                     /* not a version we speak */
        /* `sixtysix 1` or `sixtysix 1 players <n> profile <p>` (PROTOCOL.md
         * §9): every variant is played, so the answer is always ready. */
        answer("ready " BOT_NAME);
    } else if (strcmp(tok[0], "match") == 0) {
        on_match(tok, n);
    } else if (strcmp(tok[0], "rules") == 0) {
        on_rules(tok, n);
    } else if (strcmp(tok[0], "deal") == 0) {
        on_deal(tok, n);
    } else if (strcmp(tok[0], "played") == 0) {
        on_played(tok, n);
    } else if (strcmp(tok[0], "trick") == 0) {
        on_trick(tok, n);
    } else if (strcmp(tok[0], "marriage") == 0) {
        on_marriage(tok, n);
    } else if (strcmp(tok[0], "exchange") == 0) {
        on_exchange(tok, n);
    } else if (strcmp(tok[0], "close") == 0) {
        st.closed = 1;
    } else if (strcmp(tok[0], "draw") == 0) {
        on_draw(tok, n);
    } else if (strcmp(tok[0], "settle") == 0) {
        st.in_deal = 0;
    } else if (strcmp(tok[0], "match_end") == 0) {
        return 0;
    }
    /* claim and unknown informational lines: nothing to do. */
    return 1;
}

int main(void)
{
    static char buf[LINE_BUF];
    int skipping = 0;   /* inside an over-long line: drop its remainder */

    st.players = 2;
    st.claim_target = CLAIM_TARGET;
    st.last_trick_bonus = 10;
    reset_deal();
    while (fgets(buf, sizeof buf, stdin) != NULL) {
        size_t len = strlen(buf);
        int complete = len > 0 && buf[len - 1] == '\n';
        if (skipping) {
            skipping = !complete;
            continue;
        }
        if (!complete) {
            if (!feof(stdin)) {      /* far longer than the protocol allows */
                skipping = 1;
                continue;
            }
        } else {
            buf[--len] = '\0';
        }
        if (len > 0 && buf[len - 1] == '\r')
            buf[--len] = '\0';
        if (!on_line(buf))
            break;
    }
    return 0;
}
