/* The tracker's rules (see state.h). */
#include "state.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Every list has a fixed room; a line that would overflow one is ignored rather than trusted
 * (the tracker must never write outside its tables, whatever a line says). */
static void push(Card *cards, int *n, int room, Card card)
{
    if (*n < room)
        cards[(*n)++] = card;
}

static void remove_one(Card *cards, int *n, Card card)
{
    int i;
    for (i = 0; i < *n; i++)
        if (card_eq(cards[i], card)) {
            memmove(&cards[i], &cards[i + 1], (size_t)(*n - i - 1) * sizeof *cards);
            (*n)--;
            return;
        }
}

static int count_of(const Card *cards, int n, Card card)
{
    int i, k = 0;
    for (i = 0; i < n; i++)
        k += card_eq(cards[i], card);
    return k;
}

static void reset_deal(GameState *s)
{
    /* Everything from deal_no up to the kept messages belongs to one deal, and the request. */
    memset(&s->deal_no, 0, offsetof(GameState, last_settle) - offsetof(GameState, deal_no));
    message_clear(&s->request);
    s->dealer = s->closer = s->exchanged_by = s->claimed_by = s->leader = -1;
    s->last_trick_winner = -1;
    s->stock_state = STOCK_OPEN;
}

static void reset_match(GameState *s)
{
    memset(s, 0, offsetof(GameState, last_settle));
    message_clear(&s->last_settle);
    message_clear(&s->match_end);
    s->players = 2;
    s->n_score = 2;
    reset_deal(s);
}

void state_init(GameState *s) { reset_match(s); }

int state_seat_of(const GameState *s, Who who)
{
    switch (who.kind) {
    case WHO_ME: return s->seat;
    case WHO_OPP: return 1 - s->seat;
    case WHO_SEAT: return who.seat;
    default: return -1;
    }
}

int state_sides(const GameState *s) { return s->players == 3 ? 3 : 2; }
int state_side_of(const GameState *s, int seat) { return s->players == 4 ? seat % 2 : seat; }
int state_my_side(const GameState *s) { return state_side_of(s, s->seat); }
int state_partner(const GameState *s) { return s->players == 4 ? (s->seat + 2) % 4 : -1; }
int state_next_seat(const GameState *s, int seat) { return (seat + 1) % s->players; }
int state_copies(const GameState *s) { return s->players == 4 ? 2 : 1; }

const char *state_flag(const GameState *s, const char *name, const char *fallback)
{
    int i;
    for (i = 0; i < s->n_rules; i++)
        if (strcmp(s->rules[i].key, name) == 0)
            return s->rules[i].value;
    return fallback;
}

int state_claim_target(const GameState *s)
{
    const char *target = state_flag(s, "claim_target", NULL);
    if (target != NULL && atoi(target) > 0)
        return atoi(target);
    return s->players == 4 ? FOUR_PLAYER_TARGET : TWO_PLAYER_TARGET;
}

/* -- folding messages in ------------------------------------------------------------------------- */

static bool valid_seat(const GameState *s, int seat) { return seat >= 0 && seat < s->players; }

static void on_match(GameState *s, const Message *m)
{
    int i;
    reset_match(s);
    strcpy(s->match_id, m->match_id);
    strcpy(s->profile, m->profile);
    s->match_target = m->target;
    s->seat = m->seat;
    s->players = m->players >= 2 && m->players <= MAX_PLAYERS ? m->players : 2;
    if (!valid_seat(s, s->seat))
        s->seat = 0;
    for (i = 0; i < m->n_names; i++)
        strcpy(s->names[i], m->names[i]);
    s->n_names = m->n_names;
    strcpy(s->opponent, m->has_opponent ? m->opponent : "");
    s->decision_ms = m->decision_ms;
    s->n_score = state_sides(s);
}

static void on_rules(GameState *s, const Message *m)
{
    int i, j;
    for (i = 0; i < m->n_flags; i++) { /* several lines add up (§3) */
        for (j = 0; j < s->n_rules && strcmp(s->rules[j].key, m->flags[i].key) != 0; j++)
            ;
        if (j == MAX_RULES)
            continue;
        s->rules[j] = m->flags[i];
        if (j == s->n_rules)
            s->n_rules++;
    }
    i = atoi(state_flag(s, "players", "0"));
    if (i >= 2 && i <= MAX_PLAYERS && i != s->players) {
        s->players = i;
        if (!valid_seat(s, s->seat))
            s->seat = 0;
        reset_deal(s);
    }
}

static void copy_score(GameState *s, const int *score, int n)
{
    memcpy(s->score, score, (size_t)n * sizeof *score);
    s->n_score = n;
}

static void on_deal(GameState *s, const Message *m)
{
    int i;
    reset_deal(s);
    s->deal_no = m->deal_no;
    s->dealer = state_seat_of(s, m->dealer);
    s->has_upcard = s->has_stock_bottom = true;
    s->upcard = s->stock_bottom = m->upcard;
    s->trump = m->upcard.suit;
    s->stock = m->stock;
    memcpy(s->hand, m->hand, (size_t)m->n_hand * sizeof *m->hand);
    s->n_hand = m->n_hand;
    for (i = 0; i < s->players; i++)
        s->hand_sizes[i] = m->n_hand; /* all dealt as many (RULES.md §2, §10) */
    copy_score(s, m->score, m->n_score);
    s->pot = m->pot;
    /* The dealer's left leads trick 1: the non-dealer with two players (RULES.md §2.5, §10.4). */
    s->leader = state_next_seat(s, s->dealer);
}

static void on_played(GameState *s, const Message *m)
{
    int seat = state_seat_of(s, m->who);
    if (s->n_table == MAX_PLAYERS)
        return;
    push(s->played, &s->n_played, MAX_PACK, m->card);
    push(s->played_by[seat], &s->n_played_by[seat], MAX_HAND, m->card);
    s->hand_sizes[seat]--;
    if (seat == s->seat)
        remove_one(s->hand, &s->n_hand, m->card);
    else
        remove_one(s->known[seat], &s->n_known[seat], m->card);
    if (s->n_table == 0)
        s->leader = seat;
    s->table[s->n_table].seat = seat;
    s->table[s->n_table].card = m->card;
    s->n_table++;
}

static void on_trick(GameState *s, const Message *m)
{
    int winner = state_seat_of(s, m->who), side = state_side_of(s, winner), i;
    TrickDone *done;
    for (i = 0; i < m->n_cards; i++)
        push(s->won[side], &s->n_won[side], MAX_PACK, m->cards[i]);
    s->tricks_won[side]++;
    if (s->n_tricks < MAX_TRICKS) {
        done = &s->tricks[s->n_tricks++];
        done->winner = winner;
        memcpy(done->cards, m->cards, sizeof m->cards);
        done->n_cards = m->n_cards;
    }
    s->leader = s->last_trick_winner = winner; /* the winner leads next (RULES.md §4) */
    s->n_table = 0;
}

static void on_marriage(GameState *s, const Message *m)
{
    int seat = state_seat_of(s, m->who);
    Marriage *marriage;
    Card king, queen;
    if (s->n_marriages == MAX_MARRIAGES)
        return;
    marriage = &s->marriages[s->n_marriages++];
    marriage->seat = seat;
    marriage->suit = m->suit;
    marriage->points = m->points;
    marriage->tricks_before = s->tricks_won[state_side_of(s, seat)];
    if (seat != s->seat) {
        /* Both cards were shown; the declarer keeps them until it plays them. */
        king.rank = 'K';
        queen.rank = 'Q';
        king.suit = queen.suit = m->suit;
        if (count_of(s->known[seat], s->n_known[seat], king) == 0)
            push(s->known[seat], &s->n_known[seat], MAX_HAND, king);
        if (count_of(s->known[seat], s->n_known[seat], queen) == 0)
            push(s->known[seat], &s->n_known[seat], MAX_HAND, queen);
    }
}

static void on_exchange(GameState *s, const Message *m)
{
    int seat = state_seat_of(s, m->who);
    Card *held = seat == s->seat ? s->hand : s->known[seat];
    int *n = seat == s->seat ? &s->n_hand : &s->n_known[seat];
    remove_one(held, n, m->gave);
    push(held, n, MAX_HAND, m->took);
    s->has_stock_bottom = true;
    s->stock_bottom = m->gave;
    /* After a close (DP-X) the card goes under a stock that is already face down. */
    s->has_upcard = s->stock_state == STOCK_OPEN;
    s->upcard = m->gave;
    s->exchanged_by = seat;
}

static void on_draw(GameState *s, const Message *m)
{
    int seat = state_seat_of(s, m->who);
    s->stock--;
    s->hand_sizes[seat]++;
    if (m->has_card && seat == s->seat)
        push(s->hand, &s->n_hand, MAX_HAND, m->card);
    else if (m->has_card)
        push(s->known[seat], &s->n_known[seat], MAX_HAND, m->card); /* the face-up card: public */
    /* The up-card is drawn last (RULES.md §5.2); with two packs its twin may come from the top. */
    if (m->has_card && s->has_stock_bottom && card_eq(m->card, s->stock_bottom) && s->players != 4)
        s->has_upcard = s->has_stock_bottom = false;
    if (s->stock <= 0) {
        s->stock = 0;
        s->has_upcard = s->has_stock_bottom = false;
        s->stock_state = STOCK_EXHAUSTED;
    }
}

static void on_settle(GameState *s, const Message *m)
{
    s->has_last_settle = true;
    message_copy(&s->last_settle, m);
    copy_score(s, m->score, m->n_score);
    s->pot = m->pot;
    memcpy(s->dead_pile, m->dead, sizeof m->dead);
    s->n_dead_pile = m->n_dead;
    s->deal_over = true;
    s->has_request = false;
}

void state_update(GameState *s, const Message *m)
{
    switch (m->type) {
    case MSG_PLAYED:
    case MSG_TRICK:
    case MSG_MARRIAGE:
    case MSG_EXCHANGE:
    case MSG_CLOSE:
    case MSG_DRAW:
        if (!valid_seat(s, state_seat_of(s, m->who)))
            return;
        break;
    case MSG_DEAL:
        if (!valid_seat(s, state_seat_of(s, m->dealer)))
            return;
        break;
    default:
        break;
    }
    switch (m->type) {
    case MSG_HELLO:
        reset_match(s);
        s->players = m->players >= 2 && m->players <= MAX_PLAYERS ? m->players : 2;
        strcpy(s->profile, m->profile);
        break;
    case MSG_MATCH: on_match(s, m); break;
    case MSG_CLOCK:
        s->first_decision_ms = m->first_decision_ms;
        s->bank_ms = m->bank_ms;
        break;
    case MSG_RULES: on_rules(s, m); break;
    case MSG_DEAL: on_deal(s, m); break;
    case MSG_PLAYED: on_played(s, m); break;
    case MSG_TRICK: on_trick(s, m); break;
    case MSG_MARRIAGE: on_marriage(s, m); break;
    case MSG_EXCHANGE: on_exchange(s, m); break;
    case MSG_CLOSE:
        s->closer = state_seat_of(s, m->who);
        s->stock_state = STOCK_CLOSED;
        s->has_upcard = false; /* turned face down (RULES.md §5.5); the bottom card stays known */
        break;
    case MSG_DRAW: on_draw(s, m); break;
    case MSG_CLAIM: s->claimed_by = state_seat_of(s, m->who); break;
    case MSG_REQUEST:
        s->has_request = true;
        message_copy(&s->request, m); /* 55 KB by `=`, at every request */
        break;
    case MSG_SETTLE: on_settle(s, m); break;
    case MSG_MATCH_END:
        s->has_match_end = true;
        message_copy(&s->match_end, m);
        copy_score(s, m->score, m->n_score);
        s->has_request = false;
        break;
    case MSG_UNKNOWN: break;
    }
}

/* -- what the seat may know ---------------------------------------------------------------------- */

int state_phase(const GameState *s) { return s->stock_state == STOCK_OPEN ? 1 : 2; }

int state_to_play(const GameState *s)
{
    if (s->deal_over || s->leader < 0)
        return -1;
    if (s->n_table == 0)
        return s->leader;
    return state_next_seat(s, s->table[s->n_table - 1].seat);
}

bool state_best(const GameState *s, SeatCard *out)
{
    int i;
    for (i = 0; i < s->n_table; i++)
        if (i == 0 || beats(s->table[i].card, out->card, s->trump))
            *out = s->table[i];
    return s->n_table > 0;
}

int state_in_hand(const GameState *s, Card card) { return count_of(s->hand, s->n_hand, card); }

int state_played_count(const GameState *s, Card card)
{
    return count_of(s->played, s->n_played, card);
}

int state_known_cards(const GameState *s, int of, Card out[MAX_PACK])
{
    int seat, n = 0;
    if (of >= 0 && of < s->players) {
        n = of == s->seat ? s->n_hand : s->n_known[of];
        memcpy(out, of == s->seat ? s->hand : s->known[of], (size_t)n * sizeof *out);
        return n;
    }
    for (seat = 0; seat < s->players; seat++)
        if (seat != s->seat) {
            memcpy(out + n, s->known[seat], (size_t)s->n_known[seat] * sizeof *out);
            n += s->n_known[seat];
        }
    return n;
}

static int default_deck_size(const GameState *s)
{
    return s->players == 3 ? 32 : s->players == 4 ? 48 : 24;
}

void state_unseen_counts(const GameState *s, int counts[CARD_KINDS])
{
    Card pack[MAX_PACK], known[MAX_PACK];
    int deck = atoi(state_flag(s, "deck_size", "0")), i, n;
    memset(counts, 0, CARD_KINDS * sizeof *counts);
    n = pack_cards(deck ? deck : default_deck_size(s), pack);
    for (i = 0; i < n; i++)
        counts[card_index(pack[i])]++;
    /* Seen: my hand, every card played, the cards others surely hold, the dead pile, the bottom. */
#define SEEN(card) \
    do { \
        int k = card_index(card); \
        if (counts[k] > 0) \
            counts[k]--; \
    } while (0)
    for (i = 0; i < s->n_hand; i++)
        SEEN(s->hand[i]);
    for (i = 0; i < s->n_played; i++)
        SEEN(s->played[i]);
    n = state_known_cards(s, -1, known);
    for (i = 0; i < n; i++)
        SEEN(known[i]);
    for (i = 0; i < s->n_dead_pile; i++)
        SEEN(s->dead_pile[i]);
    if (s->has_stock_bottom)
        SEEN(s->stock_bottom);
#undef SEEN
}

/* -- the mental count ---------------------------------------------------------------------------- */

static bool credited(const GameState *s, const Marriage *m)
{
    /* RULES.md §5.4: a marriage counts once its side has a trick (by default any trick; with
     * marriage_credit=next_trick_after_meld only a trick won after it was shown). */
    int won = s->tricks_won[state_side_of(s, m->seat)];
    if (strcmp(state_flag(s, "marriage_credit", "once_any_trick"), "next_trick_after_meld") == 0)
        return won > m->tricks_before;
    return won > 0;
}

static int last_trick_bonus(const GameState *s, int side)
{
    /* RULES.md §7.1: the winner of the last trick of a deal played out with the stock exhausted
     * (never closed: a closed stock stays closed). It counts already at the after_trick? that
     * follows that trick (§4.2). Without a rules line, the profile's own value (§9, §13). */
    bool played_out = s->stock_state == STOCK_EXHAUSTED && s->n_hand == 0 && s->n_table == 0
                      && s->n_tricks > 0;
    bool none = strcmp(s->profile, "schnapsen") == 0 || strcmp(s->profile, "vu_compat") == 0;
    if (!played_out || state_side_of(s, s->last_trick_winner) != side)
        return 0;
    return atoi(state_flag(s, "last_trick_bonus", none ? "0" : "10"));
}

int state_points(const GameState *s, int side)
{
    int total = 0, i;
    if (side < 0 || side >= MAX_SIDES)
        return 0;
    for (i = 0; i < s->n_won[side]; i++)
        total += card_points(s->won[side][i]);
    for (i = 0; i < s->n_marriages; i++)
        if (state_side_of(s, s->marriages[i].seat) == side && credited(s, &s->marriages[i]))
            total += s->marriages[i].points;
    return total + last_trick_bonus(s, side);
}

int state_my_points(const GameState *s) { return state_points(s, state_my_side(s)); }

int state_pending_marriage_points(const GameState *s, int side)
{
    int total = 0, i;
    if (side < 0)
        side = state_my_side(s);
    for (i = 0; i < s->n_marriages; i++)
        if (state_side_of(s, s->marriages[i].seat) == side && !credited(s, &s->marriages[i]))
            total += s->marriages[i].points;
    return total;
}

int state_best_other_points(const GameState *s)
{
    int top = 0, side, points;
    for (side = 0; side < state_sides(s); side++)
        if (side != state_my_side(s) && (points = state_points(s, side)) > top)
            top = points;
    return top;
}

int state_my_score(const GameState *s)
{
    if (s->n_score == 0)
        return 0;
    return s->players == 2 ? s->score[0] : s->score[state_my_side(s) % s->n_score];
}
