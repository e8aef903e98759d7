package kit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one seat has seen of its match, kept up to date from the referee's messages.
 *
 * <p>{@link #update} folds one parsed message into the state. The state holds only what the lines
 * said, plus what follows from them by the rules: the stock's size, which cards are still unseen,
 * which marriages count. The referee sends no totals during a deal (RULES.md §3, PROTOCOL.md §4.2:
 * the mental count), so {@link #myPoints} is the seat counting for itself.
 *
 * <p>Players are seat numbers everywhere in the state, also with two players ({@code me} is
 * {@link #seat}, {@code opp} the other seat). A side is a seat, except with four players, where
 * partners (seats k and k+2) make one side: seat % 2 (PROTOCOL.md §9.1). Fields are public to read;
 * only {@link #update} writes them.
 */
public final class GameState {
    public static final int TWO_PLAYER_TARGET = 66; // §3: every two-player profile
    public static final int FOUR_PLAYER_TARGET = 101;

    public enum StockState { OPEN, CLOSED, EXHAUSTED }

    /** A marriage as shown, with the side's tricks at that moment (for next_trick_after_meld). */
    public record ShownMarriage(int seat, Suit suit, int points, int tricksBefore) { }

    /** A finished trick: its winner and its cards in the order played. */
    public record TrickSeen(int winner, List<Card> cards) { }

    /** A card on the table and who played it. */
    public record TableCard(int seat, Card card) { }

    // The match (PROTOCOL.md §3, §9).
    public String matchId;
    public String profile;
    public int matchTarget;       // game points that win the match (the match line's target)
    public int seat;
    public int players = 2;
    public List<String> names = List.of();
    public String opponent;
    public int decisionMs;
    public final Map<String, String> rules = new LinkedHashMap<>(); // every flag, as text
    public List<Integer> score = List.of(0, 0); // as the wire says: [mine, theirs], or per side
    public int pot;
    public Message.Settle lastSettle;
    public Message.MatchEnd matchEnd;

    // The deal.
    public int dealNo;
    public int dealer = -1;
    public Suit trump;
    public Card upcard;           // the face-up card under an open stock, or null
    public Card stockBottom;      // the bottom card, still known once face down (a close), or null
    public int stock;             // cards in the stock, the up-card included (§4)
    public StockState stockState = StockState.OPEN;
    public int closer = -1;
    public int exchangedBy = -1;
    public int claimedBy = -1;
    public int leader = -1;       // who leads the current (or next) trick
    public int lastTrickWinner = -1;
    public final List<TableCard> table = new ArrayList<>();   // the trick under way
    public final List<TrickSeen> tricks = new ArrayList<>();  // finished tricks
    public final List<Card> hand = new ArrayList<>();         // a list: two packs hold twins
    public final List<Card> played = new ArrayList<>();       // every card played, in order
    public final List<List<Card>> playedBy = new ArrayList<>();
    public final List<List<Card>> known = new ArrayList<>();  // cards another seat surely holds
    public int[] handSizes = new int[2];
    public final List<List<Card>> won = new ArrayList<>();    // cards in each side's tricks
    public int[] tricksWon = new int[2];
    public final List<ShownMarriage> marriages = new ArrayList<>();
    public List<Card> deadPile = List.of();
    public boolean dealOver;
    public Message.Request request;

    public GameState() {
        resetDeal();
    }

    private void resetMatch() {
        matchId = null;
        profile = null;
        matchTarget = 0;
        seat = 0;
        players = 2;
        names = List.of();
        opponent = null;
        decisionMs = 0;
        rules.clear();
        score = List.of(0, 0);
        pot = 0;
        lastSettle = null;
        matchEnd = null;
        resetDeal();
    }

    private void resetDeal() {
        dealNo = 0;
        dealer = -1;
        trump = null;
        upcard = null;
        stockBottom = null;
        stock = 0;
        stockState = StockState.OPEN;
        closer = exchangedBy = claimedBy = leader = lastTrickWinner = -1;
        table.clear();
        tricks.clear();
        hand.clear();
        played.clear();
        playedBy.clear();
        known.clear();
        for (int s = 0; s < players; s++) {
            playedBy.add(new ArrayList<>());
            known.add(new ArrayList<>());
        }
        handSizes = new int[players];
        won.clear();
        for (int s = 0; s < sides(); s++) {
            won.add(new ArrayList<>());
        }
        tricksWon = new int[sides()];
        marriages.clear();
        deadPile = List.of();
        dealOver = false;
        request = null;
    }

    // -- seats and sides ----------------------------------------------------------------------

    /** The seat a line's player names: me, opp (two players) or a seat number. */
    public int seatOf(Who who) {
        if (who.isMe()) {
            return seat;
        }
        if (who.isOpp()) {
            return 1 - seat;
        }
        return who.number();
    }

    public int sides() {
        return players == 3 ? 3 : 2;
    }

    public int sideOf(int player) {
        return players == 4 ? player % 2 : player;
    }

    public int mySide() {
        return sideOf(seat);
    }

    /** The seat opposite with four players, else -1. */
    public int partner() {
        return players == 4 ? (seat + 2) % 4 : -1;
    }

    public int nextSeat(int player) {
        return (player + 1) % players;
    }

    public String flag(String name, String fallback) {
        return rules.getOrDefault(name, fallback);
    }

    /** The card points a side needs for a claim: 66, or 101 with four players (the rules line). */
    public int claimTarget() {
        String flag = rules.get("claim_target");
        if (flag != null) {
            return Integer.parseInt(flag);
        }
        return players == 4 ? FOUR_PLAYER_TARGET : TWO_PLAYER_TARGET;
    }

    // -- folding messages in ------------------------------------------------------------------

    public void update(Message msg) {
        if (msg instanceof Message.Hello m) {
            resetMatch();
            players = m.players();
            profile = m.profile();
            resetDeal();
        } else if (msg instanceof Message.MatchStart m) {
            resetMatch();
            matchId = m.matchId();
            profile = m.profile();
            matchTarget = m.target();
            seat = m.seat();
            players = m.players();
            names = m.names();
            opponent = m.opponent();
            decisionMs = m.decisionMs();
            score = zeros(sides());
            resetDeal();
        } else if (msg instanceof Message.Rules m) {
            rules.putAll(m.flags()); // several lines add up (§3)
            String flag = rules.get("players");
            if (flag != null && Integer.parseInt(flag) != players) {
                players = Integer.parseInt(flag);
                resetDeal();
            }
        } else if (msg instanceof Message.Deal m) {
            onDeal(m);
        } else if (msg instanceof Message.Played m) {
            onPlayed(seatOf(m.who()), m.card());
        } else if (msg instanceof Message.Trick m) {
            onTrick(seatOf(m.who()), m.cards());
        } else if (msg instanceof Message.Marriage m) {
            onMarriage(seatOf(m.who()), m.suit(), m.points());
        } else if (msg instanceof Message.Exchange m) {
            onExchange(seatOf(m.who()), m.took(), m.gave());
        } else if (msg instanceof Message.Close m) {
            closer = seatOf(m.who());
            stockState = StockState.CLOSED;
            upcard = null; // turned face down (RULES.md §5.5); stockBottom stays known
        } else if (msg instanceof Message.Draw m) {
            onDraw(seatOf(m.who()), m.card());
        } else if (msg instanceof Message.Claim m) {
            claimedBy = seatOf(m.who());
        } else if (msg instanceof Message.Request m) {
            request = m;
        } else if (msg instanceof Message.Settle m) {
            lastSettle = m;
            score = m.score();
            pot = m.pot();
            deadPile = m.dead();
            dealOver = true;
            request = null;
        } else if (msg instanceof Message.MatchEnd m) {
            matchEnd = m;
            score = m.score();
            request = null;
        }
    }

    private static List<Integer> zeros(int n) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(0);
        }
        return List.copyOf(out);
    }

    private void onDeal(Message.Deal m) {
        resetDeal();
        dealNo = m.dealNo();
        dealer = seatOf(m.dealer());
        upcard = stockBottom = m.upcard();
        trump = m.upcard().suit();
        stock = m.stock();
        hand.addAll(m.hand());
        java.util.Arrays.fill(handSizes, m.hand().size()); // everyone is dealt as many
        score = m.score();
        pot = m.pot();
        // The dealer's left leads trick 1: the non-dealer with two players (RULES.md §2.5, §10.4).
        leader = nextSeat(dealer);
    }

    private void onPlayed(int player, Card card) {
        played.add(card);
        playedBy.get(player).add(card);
        handSizes[player] -= 1;
        (player == seat ? hand : known.get(player)).remove(card); // one copy
        if (table.isEmpty()) {
            leader = player;
        }
        table.add(new TableCard(player, card));
    }

    private void onTrick(int winner, List<Card> cards) {
        int side = sideOf(winner);
        won.get(side).addAll(cards);
        tricksWon[side] += 1;
        tricks.add(new TrickSeen(winner, List.copyOf(cards)));
        leader = lastTrickWinner = winner; // the winner leads next (RULES.md §4)
        table.clear();
    }

    private void onMarriage(int player, Suit suit, int points) {
        marriages.add(new ShownMarriage(player, suit, points, tricksWon[sideOf(player)]));
        if (player != seat) {
            // Both cards were shown; the declarer keeps them until it plays them.
            for (Rank r : new Rank[] {Rank.KING, Rank.QUEEN}) {
                Card card = new Card(r, suit);
                if (!known.get(player).contains(card)) {
                    known.get(player).add(card);
                }
            }
        }
    }

    private void onExchange(int player, Card took, Card gave) {
        List<Card> held = player == seat ? hand : known.get(player);
        held.remove(gave);
        held.add(took);
        stockBottom = gave;
        // After a close (DP-X) the card goes under a stock that is already face down.
        upcard = stockState == StockState.OPEN ? gave : null;
        exchangedBy = player;
    }

    private void onDraw(int player, Card card) {
        stock -= 1;
        handSizes[player] += 1;
        if (player == seat) {
            hand.add(card);
        } else if (card != null) {
            known.get(player).add(card); // the face-up card: public
        }
        // The up-card is drawn last (RULES.md §5.2); with two packs its twin may come from the top.
        if (card != null && card.equals(stockBottom) && players != 4) {
            upcard = stockBottom = null;
        }
        if (stock <= 0) {
            stock = 0;
            upcard = stockBottom = null;
            stockState = StockState.EXHAUSTED;
        }
    }

    // -- what the seat may know ---------------------------------------------------------------

    /** 1 while the stock is open, 2 once it is closed or exhausted (RULES.md §0.3). */
    public int phase() {
        return stockState == StockState.OPEN ? 1 : 2;
    }

    /** The seat that plays the next card of the trick under way, or -1. */
    public int toPlay() {
        if (dealOver || leader < 0) {
            return -1;
        }
        return table.isEmpty() ? leader : nextSeat(table.get(table.size() - 1).seat());
    }

    /** The card winning the trick under way so far, or null. */
    public TableCard best() {
        TableCard best = null;
        for (TableCard t : table) {
            if (best == null || t.card().beats(best.card(), trump)) {
                best = t;
            }
        }
        return best;
    }

    /** The led card of the trick under way, or null. */
    public Card led() {
        return table.isEmpty() ? null : table.get(0).card();
    }

    /** Cards every other seat surely holds: shown marriages, an exchanged up-card, a drawn face-up card. */
    public List<Card> othersKnown() {
        List<Card> out = new ArrayList<>();
        for (int s = 0; s < known.size(); s++) {
            if (s != seat) {
                out.addAll(known.get(s));
            }
        }
        return out;
    }

    /** How many copies of each card the seat knows nothing about: in other hands, the stock or
     * (three players) the dead pile. */
    public Map<Card, Integer> unseenCounts() {
        int defaultSize = players == 4 ? 48 : players == 3 ? 32 : 24;
        Map<Card, Integer> counts = new LinkedHashMap<>();
        for (Card c : Card.pack(Integer.parseInt(flag("deck_size", Integer.toString(defaultSize))))) {
            counts.merge(c, 1, Integer::sum);
        }
        List<Card> seen = new ArrayList<>(hand);
        seen.addAll(played);
        seen.addAll(othersKnown());
        seen.addAll(deadPile);
        if (stockBottom != null) {
            seen.add(stockBottom);
        }
        for (Card c : seen) {
            Integer n = counts.get(c);
            if (n != null && n > 1) {
                counts.put(c, n - 1);
            } else {
                counts.remove(c);
            }
        }
        return counts;
    }

    /** Cards any other seat may hold: known or unseen. With two players once the stock is
     * exhausted, exactly the opponent's hand. */
    public Set<Card> othersPossible() {
        Set<Card> out = new LinkedHashSet<>(othersKnown());
        out.addAll(unseenCounts().keySet());
        return out;
    }

    // -- the mental count (RULES.md §7.1, §10; PROTOCOL.md §4.2, §9.3) -------------------------

    /** RULES.md §5.4: a marriage counts once its side has a trick (by default any trick; with
     * marriage_credit=next_trick_after_meld only one won after it was shown). */
    public boolean credited(ShownMarriage m) {
        int tricks = tricksWon[sideOf(m.seat())];
        if (flag("marriage_credit", "once_any_trick").equals("next_trick_after_meld")) {
            return tricks > m.tricksBefore();
        }
        return tricks > 0;
    }

    /** RULES.md §7.1: the winner of the last trick of a deal played out with the stock exhausted
     * (never closed). It counts already at the after_trick? that follows that trick (§4.2). */
    public int lastTrickBonus(int side) {
        boolean playedOut = stockState == StockState.EXHAUSTED && hand.isEmpty() && table.isEmpty()
                && !tricks.isEmpty();
        if (!playedOut || sideOf(lastTrickWinner) != side) {
            return 0;
        }
        return Integer.parseInt(flag("last_trick_bonus", "10"));
    }

    /** A side's total so far: every card of every trick is public, and so is every marriage. */
    public int points(int side) {
        int total = 0;
        for (Card c : won.get(side)) {
            total += c.points();
        }
        for (ShownMarriage m : marriages) {
            if (sideOf(m.seat()) == side && credited(m)) {
                total += m.points();
            }
        }
        return total + lastTrickBonus(side);
    }

    /** The seat's own count: its side's card points, credited marriages and last-trick bonus. */
    public int myPoints() {
        return points(mySide());
    }

    /** Marriage points of a side that count once it wins a trick. */
    public int pendingMarriagePoints(int side) {
        int total = 0;
        for (ShownMarriage m : marriages) {
            if (sideOf(m.seat()) == side && !credited(m)) {
                total += m.points();
            }
        }
        return total;
    }

    @Override
    public String toString() {
        return "GameState[deal " + dealNo + " trump " + trump + " stock " + stock + "/" + stockState
                + " hand " + hand + " points " + myPoints() + "]";
    }
}
