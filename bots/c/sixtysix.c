/*
 * sixtysix-c: a Sixty-Six / Schnapsen bot speaking the arena wire protocol v1.
 *
 * Written from protocol/PROTOCOL.md and RULES.md alone. Portable C99, libc only.
 *
 * It tracks one deal from the referee's events (hand, trump, stock size,
 * close, cards won and tricks taken by each side, marriages and their
 * credit), keeps its own mental count of card points, and:
 *   - claims exactly when `claim` is offered and its own count is >= 66;
 *   - exchanges whenever `exchange` is offered;
 *   - declares a marriage whenever one is offered (the trump one first);
 *   - never closes; passes otherwise;
 *   - plays a heuristic card: as follower, the cheapest card of the led suit
 *     that wins, else the cheapest trump when the lead is worth 10 or more,
 *     else the cheapest card; as leader, the lowest card that is not a trump.
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
#define CLAIM_TARGET 66
#define BOT_NAME "c-counter"

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
    int card_pts[2];            /* points of the cards won in tricks */
    int tricks[2];              /* tricks won */
    int marr_credited[2];       /* marriage points that count */
    int marr_pending[2];        /* declared, not yet credited */
    int bonus[2];               /* last-trick bonus */
    unsigned char gone[8][4];   /* [rank][suit]: played to a trick */
    int have_led;               /* a card is on the table */
    Card led;                   /* ... and this is it */
} State;

static State st;

static void reset_deal(void)
{
    int lb = st.last_trick_bonus, cn = st.credit_next_trick;
    memset(&st, 0, sizeof st);
    st.last_trick_bonus = lb;
    st.credit_next_trick = cn;
    st.trump = -1;
}

static int who_index(const char *w)
{
    if (w == NULL)
        return -1;
    if (strcmp(w, "me") == 0)
        return ME;
    if (strcmp(w, "opp") == 0)
        return OPP;
    return -1;
}

static void hand_add(Card c)
{
    int i;
    for (i = 0; i < st.hand_n; i++)
        if (same_card(st.hand[i], c))
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
    return st.card_pts[ME] + st.marr_credited[ME] + st.bonus[ME];
}

/* Does `f`, played second, beat `l`, led? (RULES.md §5.1) */
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
 * Sets the profile's defaults; the rules line that follows overrides them. */
static void on_match(char **tok, int n)
{
    int i;
    for (i = 1; i + 1 < n; i++)
        if (strcmp(tok[i], "profile") == 0)
            st.last_trick_bonus = strcmp(tok[i + 1], "schnapsen") == 0 ? 0 : 10;
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
    int w;
    if (n < 3 || (w = who_index(tok[1])) < 0 || !parse_card(tok[2], &c))
        return;
    if (w == ME)
        hand_remove(c);
    st.gone[c.rank][c.suit] = 1;
    if (!st.have_led) {
        st.have_led = 1;
        st.led = c;
    }
}

static void on_trick(char **tok, int n)
{
    Card a, b;
    int w;
    if (n < 4 || (w = who_index(tok[1])) < 0 || !parse_card(tok[2], &a) || !parse_card(tok[3], &b))
        return;
    st.have_led = 0;
    st.tricks[w]++;
    st.card_pts[w] += card_points(a) + card_points(b);
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
    if (n < 4 || who_index(tok[1]) != ME || !parse_card(tok[2], &took) || !parse_card(tok[3], &gave))
        return;
    hand_remove(gave);
    hand_add(took);
}

static void on_draw(char **tok, int n)
{
    Card c;
    int w;
    if (n < 2 || (w = who_index(tok[1])) < 0)
        return;
    if (st.stock > 0)
        st.stock--;
    if (w == ME && n >= 3 && parse_card(tok[2], &c))
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

/* Is c the highest card of its suit not yet played (counting our own hand)? */
static int is_top(Card c)
{
    int r, i;
    for (r = 0; r < c.rank; r++) {
        int mine = 0;
        for (i = 0; i < st.hand_n; i++)
            if (st.hand[i].rank == r && st.hand[i].suit == c.suit)
                mine = 1;
        if (!st.gone[r][c.suit] && !mine)
            return 0;
    }
    return 1;
}

static int choose(char **act, int n)
{
    int i, best, marry = -1, k;
    int played_idx[MAX_TOKENS];
    Card played[MAX_TOKENS];
    int np = 0;

    for (i = 0; i < n; i++)
        if (strcmp(act[i], "claim") == 0 && my_total() >= CLAIM_TARGET)
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
    if (st.have_led) {
        /* Follower: cheapest card of the led suit that wins. */
        for (k = 0; k < np; k++)
            if (played[k].suit == st.led.suit && beats(played[k], st.led, st.trump)
                && (best < 0 || cost(played[k]) < cost(played[best])))
                best = k;
        /* A valuable lead is worth a trump. */
        if (best < 0 && card_points(st.led) >= 10 && st.led.suit != st.trump)
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
