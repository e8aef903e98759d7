/* Reading and writing the lines of PROTOCOL.md (see protocol.h). */
#include "protocol.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every step of a parser returns false once the line is found broken (err says why). */
#define TRY(step) \
    do { \
        if (!(step)) \
            return false; \
    } while (0)

Who who_me(void) { Who w = {WHO_ME, -1}; return w; }
Who who_opp(void) { Who w = {WHO_OPP, -1}; return w; }
Who who_seat(int seat) { Who w = {WHO_SEAT, -1}; w.seat = seat; return w; }
Who who_none(void) { Who w = {WHO_NONE, -1}; return w; }
bool who_eq(Who a, Who b) { return a.kind == b.kind && a.seat == b.seat; }

char *who_str(Who who, char out[5])
{
    switch (who.kind) {
    case WHO_ME: strcpy(out, "me"); break;
    case WHO_OPP: strcpy(out, "opp"); break;
    case WHO_SEAT: sprintf(out, "%d", who.seat % 10); break;
    default: strcpy(out, "none"); break;
    }
    return out;
}

static const char *const DECISIONS[] = {"lead", "follow", "after_trick", "close_exchange",
                                        "between_tricks"};

static const struct {
    const char *word;
    MsgType type;
} TYPES[] = {
    {PROTOCOL_NAME, MSG_HELLO}, {"match", MSG_MATCH},       {"clock", MSG_CLOCK},
    {"rules", MSG_RULES},       {"deal", MSG_DEAL},         {"played", MSG_PLAYED},
    {"trick", MSG_TRICK},       {"marriage", MSG_MARRIAGE}, {"exchange", MSG_EXCHANGE},
    {"close", MSG_CLOSE},       {"draw", MSG_DRAW},         {"claim", MSG_CLAIM},
    {"settle", MSG_SETTLE},     {"match_end", MSG_MATCH_END},
};

/* -- a cursor over the words of a line, with errors that name the message ---------------------- */

typedef struct {
    char text[MAX_LINE_BYTES + 1];  /* the line without its "\r\n", for errors */
    char buf[MAX_LINE_BYTES + 1];   /* the line, cut into words in place */
    char *words[MAX_LINE_BYTES / 2 + 2];
    int n;                          /* words, the first included */
    int pos;                        /* the next word to read */
    const char *line;
    char *err;
} Words;

static bool fail(Words *w, const char *fmt, ...)
{
    char reason[ERROR_MAX];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    /* Cut to fit ERROR_MAX: the start of a long line says enough. */
    snprintf(w->err, ERROR_MAX, "%.32s: %.100s (line \"%.100s\")", w->words[0], reason, w->line);
    return false;
}

static bool more(const Words *w) { return w->pos < w->n; }
static const char *peek(const Words *w) { return more(w) ? w->words[w->pos] : ""; }

static bool word(Words *w, const char *what, const char **out)
{
    if (!more(w))
        return fail(w, "missing %s", what);
    *out = w->words[w->pos++];
    return true;
}

static bool copy_word(Words *w, const char *what, char *out, size_t size)
{
    const char *text = "";
    TRY(word(w, what, &text));
    if (strlen(text) >= size)
        return fail(w, "%s longer than %d bytes", what, (int)size - 1);
    strcpy(out, text);
    return true;
}

static bool keyword(Words *w, const char *expected)
{
    const char *text = "";
    if (!more(w))
        return fail(w, "missing '%s'", expected);
    text = w->words[w->pos++];
    if (strcmp(text, expected) != 0)
        return fail(w, "expected '%s', got '%s'", expected, text);
    return true;
}

static bool is_count(const char *text)
{
    size_t i, len = strlen(text);
    if (len == 0 || len > 9) /* fits an int; no figure comes near */
        return false;
    if (len > 1 && text[0] == '0')
        return false;
    for (i = 0; i < len; i++)
        if (text[i] < '0' || text[i] > '9')
            return false;
    return true;
}

static bool count(Words *w, const char *what, int *out)
{
    const char *text = "";
    TRY(word(w, what, &text));
    if (!is_count(text))
        return fail(w, "%s must be a whole number, got '%s'", what, text);
    *out = atoi(text);
    return true;
}

static bool card(Words *w, const char *what, Card *out)
{
    const char *text = "";
    TRY(word(w, what, &text));
    if (!card_parse(text, out))
        return fail(w, "not a card: '%s'", text);
    return true;
}

static bool suit(Words *w, char *out)
{
    const char *text = "";
    TRY(word(w, "suit", &text));
    if (!is_suit(text[0]) || text[1] != '\0')
        return fail(w, "not a suit: '%s'", text);
    *out = text[0];
    return true;
}

static bool who(Words *w, const char *what, Who *out)
{
    const char *text = "";
    TRY(word(w, what, &text));
    if (strcmp(text, "me") == 0)
        *out = who_me();
    else if (strcmp(text, "opp") == 0)
        *out = who_opp();
    else if (text[0] >= '0' && text[0] <= '3' && text[1] == '\0')
        *out = who_seat(text[0] - '0');
    else
        return fail(w, "%s must be me, opp or a seat number, got '%s'", what, text);
    return true;
}

static bool who_or_none(Words *w, const char *what, Who *out)
{
    if (strcmp(peek(w), "none") == 0) {
        w->pos++;
        *out = who_none();
        return true;
    }
    return who(w, what, out);
}

/* Whole numbers up to `stop` (or the end of the line): one per side (§9). */
static bool counts_until(Words *w, const char *what, const char *stop, int *out, int *n)
{
    *n = 0;
    while (more(w) && strcmp(peek(w), stop) != 0) {
        if (*n == MAX_SIDES)
            return fail(w, "more than %d numbers for %s", MAX_SIDES, what);
        TRY(count(w, what, &out[(*n)++]));
    }
    if (*n == 0)
        return fail(w, "missing %s", what);
    return true;
}

static bool end(Words *w)
{
    if (more(w))
        return fail(w, "unexpected words from '%s'", peek(w));
    return true;
}

/* The entry after a table's last pair made empty: clear() leaves the tables alone (see Message). */
static void end_pairs(Pair *pairs, int n)
{
    if (n < MAX_PAIRS)
        pairs[n].key[0] = pairs[n].value[0] = '\0';
}

static bool add_pair(Words *w, Pair *pairs, int *n, const char *key, Words *value_from)
{
    if (*n == MAX_PAIRS)
        return fail(w, "more than %d key/value pairs", MAX_PAIRS);
    if (strlen(key) > WORD_MAX)
        return fail(w, "key longer than %d bytes", WORD_MAX);
    /* The value first: a broken one leaves the entry after the last as empty as it was. */
    TRY(copy_word(value_from, key, pairs[*n].value, sizeof pairs[*n].value));
    strcpy(pairs[*n].key, key);
    end_pairs(pairs, ++*n);
    return true;
}

/* -- one parser per message ---------------------------------------------------------------------- */

static bool parse_hello(Words *w, Message *m)
{
    TRY(count(w, "version", &m->version));
    if (more(w)) { /* §9.1: sixtysix 1 players <n> profile <p> */
        TRY(keyword(w, "players"));
        TRY(count(w, "players", &m->players));
        TRY(keyword(w, "profile"));
        TRY(copy_word(w, "profile", m->profile, sizeof m->profile));
    }
    return true;
}

static bool parse_match(Words *w, Message *m)
{
    /* §3 and §9.2. Read as keyword/value pairs, so that a word a newer referee adds is kept in
     * `extra` rather than breaking the line. */
    const char *key = "";
    TRY(copy_word(w, "match id", m->match_id, sizeof m->match_id));
    while (more(w)) {
        TRY(word(w, "key", &key));
        if (strcmp(key, "profile") == 0)
            TRY(copy_word(w, "profile", m->profile, sizeof m->profile));
        else if (strcmp(key, "target") == 0)
            TRY(count(w, "target", &m->target));
        else if (strcmp(key, "seat") == 0)
            TRY(count(w, "seat", &m->seat));
        else if (strcmp(key, "players") == 0)
            TRY(count(w, "players", &m->players));
        else if (strcmp(key, "opponent") == 0) {
            TRY(copy_word(w, "opponent", m->opponent, sizeof m->opponent));
            m->has_opponent = true;
        } else if (strcmp(key, "decision_ms") == 0)
            TRY(count(w, "decision_ms", &m->decision_ms));
        else if (strcmp(key, "names") == 0) {
            /* Names are bot text: read up to decision_ms, never as keywords. */
            while (more(w) && strcmp(peek(w), "decision_ms") != 0) {
                if (m->n_names == MAX_PLAYERS)
                    return fail(w, "more than %d names", MAX_PLAYERS);
                TRY(copy_word(w, "name", m->names[m->n_names], WORD_MAX + 1));
                m->n_names++;
            }
        } else
            TRY(add_pair(w, m->extra, &m->n_extra, key, w));
    }
    if (m->profile[0] == '\0')
        return fail(w, "missing profile");
    return true;
}

static bool parse_clock(Words *w, Message *m)
{
    const char *key = "";
    while (more(w)) {
        TRY(word(w, "key", &key));
        if (strcmp(key, "first_decision_ms") == 0)
            TRY(count(w, key, &m->first_decision_ms));
        else if (strcmp(key, "bank_ms") == 0)
            TRY(count(w, key, &m->bank_ms));
        else
            TRY(add_pair(w, m->extra, &m->n_extra, key, w));
    }
    return true;
}

static bool parse_rules(Words *w, Message *m)
{
    /* Flags add up over several rules lines (§3); unknown flags are kept, the tracker ignores them. */
    const char *flag = "";
    char *eq;
    Pair *p;
    while (more(w)) {
        TRY(word(w, "flag", &flag));
        eq = strchr(flag, '=');
        if (eq == NULL || eq == flag)
            return fail(w, "'%s' is not <flag>=<value>", flag);
        if (m->n_flags == MAX_PAIRS)
            return fail(w, "more than %d flags", MAX_PAIRS);
        if ((size_t)(eq - flag) > WORD_MAX || strlen(eq + 1) > WORD_MAX)
            return fail(w, "flag '%s' longer than %d bytes a side", flag, WORD_MAX);
        p = &m->flags[m->n_flags++];
        memcpy(p->key, flag, (size_t)(eq - flag));
        p->key[eq - flag] = '\0';
        strcpy(p->value, eq + 1);
        end_pairs(m->flags, m->n_flags);
    }
    return true;
}

static bool parse_deal(Words *w, Message *m)
{
    TRY(count(w, "deal number", &m->deal_no));
    TRY(keyword(w, "dealer"));
    TRY(who(w, "dealer", &m->dealer));
    TRY(keyword(w, "upcard"));
    TRY(card(w, "upcard", &m->upcard));
    TRY(keyword(w, "stock"));
    TRY(count(w, "stock", &m->stock));
    TRY(keyword(w, "hand"));
    while (more(w) && strcmp(peek(w), "score") != 0) {
        if (m->n_hand == MAX_HAND)
            return fail(w, "more than %d cards in the hand", MAX_HAND);
        TRY(card(w, "card of the hand", &m->hand[m->n_hand++]));
    }
    TRY(keyword(w, "score"));
    TRY(counts_until(w, "score", "pot", m->score, &m->n_score));
    TRY(keyword(w, "pot"));
    return count(w, "pot", &m->pot);
}

static bool parse_request(Words *w, Message *m)
{
    /* A request lists every legal action (§4.1); an action word version 1 does not define is kept
     * as ACTION_UNKNOWN so that a bot can still answer with one it knows. */
    size_t len = strlen(w->words[0]) - 1;
    memcpy(m->decision, w->words[0], len);
    m->decision[len] = '\0';
    while (more(w)) {
        const char *text = w->words[w->pos++];
        Action *a = &m->actions[m->n_actions];
        if (m->n_actions == MAX_ACTIONS)
            return fail(w, "more than %d actions", MAX_ACTIONS);
        if (!action_parse(text, a)) {
            if (strlen(text) >= ACTION_TEXT_MAX)
                return fail(w, "an action word longer than %d bytes", ACTION_TEXT_MAX - 1);
            memset(a, 0, sizeof *a);
            a->kind = ACTION_UNKNOWN;
            strcpy(a->text, text);
        }
        m->n_actions++;
    }
    if (m->n_actions == 0)
        return fail(w, "a request lists at least one action");
    return true;
}

static bool parse_trick(Words *w, Message *m)
{
    TRY(who(w, "who", &m->who));
    TRY(card(w, "led card", &m->cards[0]));
    TRY(card(w, "followed card", &m->cards[1]));
    m->n_cards = 2;
    while (more(w)) { /* §9: 3 or 4 cards */
        if (m->n_cards == MAX_PLAYERS)
            return fail(w, "more than %d cards in a trick", MAX_PLAYERS);
        TRY(card(w, "card of the trick", &m->cards[m->n_cards++]));
    }
    return true;
}

static bool parse_settle(Words *w, Message *m)
{
    TRY(keyword(w, "winner"));
    TRY(who_or_none(w, "winner", &m->winner));
    TRY(keyword(w, "reason"));
    TRY(copy_word(w, "reason", m->reason, sizeof m->reason));
    TRY(keyword(w, "points"));
    TRY(count(w, "points", &m->points));
    TRY(keyword(w, "awarded"));
    TRY(counts_until(w, "awarded", "totals", m->awarded, &m->n_awarded)); /* one with two players */
    TRY(keyword(w, "totals"));
    TRY(counts_until(w, "totals", "tricks", m->totals, &m->n_totals));
    TRY(keyword(w, "tricks"));
    TRY(counts_until(w, "tricks", "score", m->tricks, &m->n_tricks));
    TRY(keyword(w, "score"));
    TRY(counts_until(w, "score", "pot", m->score, &m->n_score));
    TRY(keyword(w, "pot"));
    TRY(count(w, "pot", &m->pot));
    if (more(w)) { /* §9.4: three players show the dead pile */
        TRY(keyword(w, "dead"));
        TRY(card(w, "dead card", &m->dead[0]));
        TRY(card(w, "dead card", &m->dead[1]));
        m->n_dead = 2;
    }
    return true;
}

static bool parse_match_end(Words *w, Message *m)
{
    TRY(keyword(w, "winner"));
    TRY(who_or_none(w, "winner", &m->winner));
    TRY(keyword(w, "reason"));
    TRY(copy_word(w, "reason", m->reason, sizeof m->reason));
    TRY(keyword(w, "score"));
    TRY(counts_until(w, "score", "fault", m->score, &m->n_score));
    if (more(w)) {
        TRY(keyword(w, "fault"));
        TRY(copy_word(w, "fault", m->fault, sizeof m->fault));
        TRY(keyword(w, "by"));
        TRY(who(w, "offender", &m->by));
        m->has_fault = true;
    }
    return true;
}

static MsgType type_of(const char *first)
{
    size_t i, len = strlen(first);
    for (i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
        if (strcmp(first, TYPES[i].word) == 0)
            return TYPES[i].type;
    for (i = 0; i < sizeof DECISIONS / sizeof DECISIONS[0]; i++)
        if (len == strlen(DECISIONS[i]) + 1 && strncmp(first, DECISIONS[i], len - 1) == 0
            && first[len - 1] == '?')
            return MSG_REQUEST;
    return MSG_UNKNOWN;
}

void message_clear(Message *m)
{
    /* All but the pair tables, which are nearly all of the Message: a line fills what it reads of
     * them, and the entry after its last is made empty (see Message). */
    memset(m, 0, offsetof(Message, extra));
    end_pairs(m->extra, 0);
    end_pairs(m->flags, 0);
}

static void clear(Message *m)
{
    message_clear(m);
    m->players = 2;
    m->dealer = m->who = m->winner = m->by = who_none();
}

bool parse_line(const char *text, Message *msg, char err[ERROR_MAX])
{
    static Words w; /* 3 KB: kept off the stack, the kit is single-threaded */
    size_t len = strlen(text);
    char *p, first[WORD_MAX + 2];
    size_t first_len = strcspn(text, " \r\n");
    bool ok = false;

    if (len > 0 && text[len - 1] == '\n')
        len--;
    if (len > 0 && text[len - 1] == '\r')
        len--;
    clear(msg);
    /* A word longer than any first word of version 1 is no message it knows. */
    memcpy(first, text, first_len < sizeof first - 1 ? first_len : sizeof first - 1);
    first[first_len < sizeof first - 1 ? first_len : sizeof first - 1] = '\0';
    msg->type = first_len < sizeof first - 1 ? type_of(first) : MSG_UNKNOWN;
    if (len > MAX_LINE_BYTES) {
        snprintf(err, ERROR_MAX, "a line of %d bytes, longer than the %d of §1", (int)len,
                 MAX_LINE_BYTES);
        msg->type = MSG_UNKNOWN;
        return false;
    }
    if (msg->type == MSG_UNKNOWN) {
        memcpy(msg->line, text, len);
        msg->line[len] = '\0';
        return true;
    }
    memcpy(w.buf, text, len);
    w.buf[len] = '\0';
    strcpy(w.text, w.buf);
    w.line = w.text;
    w.err = err;
    w.n = 0;
    w.pos = 1;
    /* Single spaces between words (§1): an empty word is a broken line. */
    for (p = w.buf;;) {
        char *space = strchr(p, ' ');
        w.words[w.n++] = p;
        if (space == NULL)
            break;
        *space = '\0';
        p = space + 1;
    }
    for (len = 0; len < (size_t)w.n; len++)
        if (w.words[len][0] == '\0') {
            snprintf(err, ERROR_MAX, "words must be separated by single spaces (line \"%.180s\")", w.text);
            return false;
        }
    switch (msg->type) {
    case MSG_HELLO: ok = parse_hello(&w, msg); break;
    case MSG_MATCH: ok = parse_match(&w, msg); break;
    case MSG_CLOCK: ok = parse_clock(&w, msg); break;
    case MSG_RULES: ok = parse_rules(&w, msg); break;
    case MSG_DEAL: ok = parse_deal(&w, msg); break;
    case MSG_REQUEST: ok = parse_request(&w, msg); break;
    case MSG_PLAYED:
        ok = who(&w, "who", &msg->who) && card(&w, "card", &msg->card);
        msg->has_card = true;
        break;
    case MSG_TRICK: ok = parse_trick(&w, msg); break;
    case MSG_MARRIAGE:
        ok = who(&w, "who", &msg->who) && suit(&w, &msg->suit)
             && count(&w, "points", &msg->points);
        break;
    case MSG_EXCHANGE:
        ok = who(&w, "who", &msg->who) && card(&w, "card taken", &msg->took)
             && card(&w, "card given", &msg->gave);
        break;
    case MSG_CLOSE:
    case MSG_CLAIM: ok = who(&w, "who", &msg->who); break;
    case MSG_DRAW:
        ok = who(&w, "who", &msg->who);
        if (ok && more(&w)) {
            ok = card(&w, "card", &msg->card);
            msg->has_card = true;
        }
        break;
    case MSG_SETTLE: ok = parse_settle(&w, msg); break;
    case MSG_MATCH_END: ok = parse_match_end(&w, msg); break;
    case MSG_UNKNOWN: break;
    }
    return ok && end(&w);
}

static int pairs_in_use(int n) { return n < 0 ? 0 : n > MAX_PAIRS ? MAX_PAIRS : n; }

void message_copy(Message *to, const Message *from)
{
    /* A hand-made count past the table is cut to it, not copied past it. */
    int n_extra = pairs_in_use(from->n_extra), n_flags = pairs_in_use(from->n_flags);
    if (to == from)
        return;
    memcpy(to, from, offsetof(Message, extra));
    to->n_extra = n_extra;
    to->n_flags = n_flags;
    memcpy(to->extra, from->extra, (size_t)n_extra * sizeof *from->extra);
    memcpy(to->flags, from->flags, (size_t)n_flags * sizeof *from->flags);
    end_pairs(to->extra, n_extra);
    end_pairs(to->flags, n_flags);
}

/* -- writing --------------------------------------------------------------------------------------- */

/* A line under construction: what does not fit is counted, and the line refused. */
typedef struct {
    char *buf;
    size_t size;
    size_t len;
    bool overflow;
} Out;

static void put(Out *o, const char *text)
{
    size_t n = strlen(text);
    if (o->overflow || o->len + n >= o->size) {
        o->overflow = true;
        return;
    }
    memcpy(o->buf + o->len, text, n + 1);
    o->len += n;
}

static void put_word(Out *o, const char *text) /* a space, then the word */
{
    put(o, " ");
    put(o, text);
}

static void put_int(Out *o, int n)
{
    char text[16];
    sprintf(text, " %d", n);
    put(o, text);
}

static void put_ints(Out *o, const int *v, int n)
{
    int i;
    for (i = 0; i < n; i++)
        put_int(o, v[i]);
}

static void put_card(Out *o, Card c)
{
    char text[3];
    put_word(o, card_str(c, text));
}

static void put_who(Out *o, Who who)
{
    char text[5];
    put_word(o, who_str(who, text));
}

static void put_pairs(Out *o, const Pair *pairs, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        put_word(o, pairs[i].key);
        put_word(o, pairs[i].value);
    }
}

int format_message(const Message *m, char *out, size_t size)
{
    Out o;
    int i;
    o.buf = out;
    o.size = size;
    o.len = 0;
    o.overflow = size == 0;
    if (size > 0)
        out[0] = '\0';
    switch (m->type) {
    case MSG_HELLO:
        put(&o, PROTOCOL_NAME);
        put_int(&o, m->version);
        if (m->profile[0] != '\0') {
            put(&o, " players");
            put_int(&o, m->players);
            put(&o, " profile");
            put_word(&o, m->profile);
        }
        break;
    case MSG_MATCH:
        put(&o, "match");
        put_word(&o, m->match_id);
        put(&o, " profile");
        put_word(&o, m->profile);
        put(&o, " target");
        put_int(&o, m->target);
        if (m->has_opponent) {
            put(&o, " seat");
            put_int(&o, m->seat);
            put(&o, " opponent");
            put_word(&o, m->opponent);
        } else {
            put(&o, " players");
            put_int(&o, m->players);
            put(&o, " seat");
            put_int(&o, m->seat);
            put(&o, " names");
            for (i = 0; i < m->n_names; i++)
                put_word(&o, m->names[i]);
        }
        put(&o, " decision_ms");
        put_int(&o, m->decision_ms);
        put_pairs(&o, m->extra, m->n_extra);
        break;
    case MSG_CLOCK:
        put(&o, "clock first_decision_ms");
        put_int(&o, m->first_decision_ms);
        put(&o, " bank_ms");
        put_int(&o, m->bank_ms);
        put_pairs(&o, m->extra, m->n_extra);
        break;
    case MSG_RULES:
        put(&o, "rules");
        for (i = 0; i < m->n_flags; i++) {
            put_word(&o, m->flags[i].key);
            put(&o, "=");
            put(&o, m->flags[i].value);
        }
        break;
    case MSG_DEAL:
        put(&o, "deal");
        put_int(&o, m->deal_no);
        put(&o, " dealer");
        put_who(&o, m->dealer);
        put(&o, " upcard");
        put_card(&o, m->upcard);
        put(&o, " stock");
        put_int(&o, m->stock);
        put(&o, " hand");
        for (i = 0; i < m->n_hand; i++)
            put_card(&o, m->hand[i]);
        put(&o, " score");
        put_ints(&o, m->score, m->n_score);
        put(&o, " pot");
        put_int(&o, m->pot);
        break;
    case MSG_REQUEST:
        put(&o, m->decision);
        put(&o, "?");
        for (i = 0; i < m->n_actions; i++)
            put_word(&o, m->actions[i].text);
        break;
    case MSG_PLAYED:
        put(&o, "played");
        put_who(&o, m->who);
        put_card(&o, m->card);
        break;
    case MSG_TRICK:
        put(&o, "trick");
        put_who(&o, m->who);
        for (i = 0; i < m->n_cards; i++)
            put_card(&o, m->cards[i]);
        break;
    case MSG_MARRIAGE: {
        char s[2] = {m->suit, '\0'};
        put(&o, "marriage");
        put_who(&o, m->who);
        put_word(&o, s);
        put_int(&o, m->points);
        break;
    }
    case MSG_EXCHANGE:
        put(&o, "exchange");
        put_who(&o, m->who);
        put_card(&o, m->took);
        put_card(&o, m->gave);
        break;
    case MSG_CLOSE:
    case MSG_CLAIM:
        put(&o, m->type == MSG_CLOSE ? "close" : "claim");
        put_who(&o, m->who);
        break;
    case MSG_DRAW:
        put(&o, "draw");
        put_who(&o, m->who);
        if (m->has_card)
            put_card(&o, m->card);
        break;
    case MSG_SETTLE:
        put(&o, "settle winner");
        put_who(&o, m->winner);
        put(&o, " reason");
        put_word(&o, m->reason);
        put(&o, " points");
        put_int(&o, m->points);
        put(&o, " awarded");
        put_ints(&o, m->awarded, m->n_awarded);
        put(&o, " totals");
        put_ints(&o, m->totals, m->n_totals);
        put(&o, " tricks");
        put_ints(&o, m->tricks, m->n_tricks);
        put(&o, " score");
        put_ints(&o, m->score, m->n_score);
        put(&o, " pot");
        put_int(&o, m->pot);
        if (m->n_dead == 2) {
            put(&o, " dead");
            put_card(&o, m->dead[0]);
            put_card(&o, m->dead[1]);
        }
        break;
    case MSG_MATCH_END:
        put(&o, "match_end winner");
        put_who(&o, m->winner);
        put(&o, " reason");
        put_word(&o, m->reason);
        put(&o, " score");
        put_ints(&o, m->score, m->n_score);
        if (m->has_fault) {
            put(&o, " fault");
            put_word(&o, m->fault);
            put(&o, " by");
            put_who(&o, m->by);
        }
        break;
    case MSG_UNKNOWN:
        put(&o, m->line);
        break;
    }
    return o.overflow ? -1 : (int)o.len;
}

bool ready(const char *name, char *out, size_t size)
{
    size_t i, len = strlen(name);
    if (len == 0 || len > 64 || len + 7 > size)
        return false;
    for (i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
              || c == '_' || c == '.' || c == '+' || c == '-'))
            return false;
    }
    sprintf(out, "ready %s", name);
    return true;
}

void decline(const char *text, char *out, size_t size)
{
    /* §9.1: printable ASCII, words separated by single spaces. */
    Out o;
    const char *p = text ? text : "";
    char word[2] = {0, 0};
    bool space = true; /* a space is owed before the next printable character */
    o.buf = out;
    o.size = size;
    o.len = 0;
    o.overflow = size == 0;
    put(&o, "decline");
    for (; *p; p++) {
        if (*p > 0x20 && *p < 0x7f) {
            if (space)
                put(&o, " ");
            word[0] = *p;
            put(&o, word);
            space = false;
        } else if (*p == ' ') {
            space = true;
        }
    }
}
