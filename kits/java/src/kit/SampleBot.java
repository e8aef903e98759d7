package kit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The sample bot: the ideas of the arena's greedy bot (bots/greedy_bot.py, bots/nseat.py) on top of
 * the tracker. It claims the moment its side's count reaches the claim target (and never below),
 * always exchanges, shows its best marriage, closes only when its sure winners bring it to the
 * target, and plays cheaply: it wins a trick when that is cheap or worth it, else throws the card
 * worth least. Replace {@link #decide} with your own policy.
 */
public class SampleBot implements Bot {
    /** An ace or a ten led (or on the table) is worth a trump in phase 1. */
    static final int HIGH_POINTS = 10;

    private final String name;

    public SampleBot(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean supports(int players, String profile) {
        return true; // two, three and four players
    }

    @Override
    public Action decide(GameState s, List<Action> actions) {
        Action claim = find(actions, Action.Kind.CLAIM);
        // The count is ours to keep (RULES.md §3): claim exactly when it reaches the target.
        if (claim != null && s.myPoints() >= s.claimTarget()) {
            return claim;
        }
        Action exchange = find(actions, Action.Kind.EXCHANGE);
        if (exchange != null) {
            return exchange; // the up-card is never worse than the lowest trump
        }
        Action close = find(actions, Action.Kind.CLOSE);
        if (close != null && closeIsSure(s)) {
            return close;
        }
        Action marriage = null;
        for (Action a : actions) {
            if (a.kind() == Action.Kind.MARRY && mayMarry(s, a.suit())
                    && (marriage == null || a.suit() == s.trump)) {
                marriage = a; // 40 before 20
            }
        }
        if (marriage != null) {
            return marriage;
        }
        List<Card> cards = new ArrayList<>();
        for (Action a : actions) {
            if (a.kind() == Action.Kind.PLAY) {
                cards.add(a.card());
            }
        }
        if (cards.isEmpty()) {
            Action pass = find(actions, Action.Kind.PASS);
            return pass != null ? pass : actions.get(0);
        }
        Card card;
        if (s.players == 2) {
            card = s.table.isEmpty() ? lead2(s, cards) : follow2(s, cards);
        } else {
            card = s.table.isEmpty() ? leadN(s, cards) : followN(s, cards);
        }
        for (Action a : actions) {
            if (a.kind() == Action.Kind.PLAY && a.card().equals(card)) {
                return a;
            }
        }
        return actions.get(actions.size() - 1); // not reached: the card came from the list
    }

    static Action find(List<Action> actions, Action.Kind kind) {
        for (Action a : actions) {
            if (a.kind() == kind) {
                return a;
            }
        }
        return null;
    }

    // -- what is sure -------------------------------------------------------------------------

    /** Can no card still out beat {@code card} led now? With two players and the stock exhausted
     * the opponent's hand is known exactly and must follow suit (RULES.md §6), so a card is sure
     * when it is the best he could answer with; otherwise any unseen card might beat it. */
    static boolean sureWinner(GameState s, Card card, Card extraOpp) {
        Set<Card> opp = s.othersPossible();
        if (extraOpp != null) {
            opp.add(extraOpp);
        }
        if (s.players == 2 && s.stockState == GameState.StockState.EXHAUSTED && extraOpp == null) {
            boolean anySame = false;
            for (Card o : opp) {
                if (o.suit() == card.suit()) {
                    anySame = true;
                    if (o.rank().strength() < card.rank().strength()) {
                        return false;
                    }
                }
            }
            if (anySame) {
                return true;
            }
            return card.suit() == s.trump || opp.stream().noneMatch(o -> o.suit() == s.trump);
        }
        return opp.stream().noneMatch(o -> o.beats(card, s.trump));
    }

    /** Close only when the count plus sure winners reaches the target (RULES.md §7.4: a failed
     * close costs 2 or 3). The opponent may take the bottom card at the close: count it as his. */
    static boolean closeIsSure(GameState s) {
        int bound = s.myPoints() + s.pendingMarriagePoints(s.mySide());
        boolean any = false;
        for (Card c : s.hand) {
            if (sureWinner(s, c, s.stockBottom)) {
                any = true;
                bound += c.points();
            }
        }
        return any && bound >= s.claimTarget();
    }

    /** Show a marriage, except in phase 2 (two players) when neither card is a sure winner: the
     * marriage must then be led, and losing that trick can cost a close. */
    static boolean mayMarry(GameState s, Suit suit) {
        if (s.phase() == 1 || s.players != 2) {
            return true;
        }
        boolean kingOnly = s.flag("marriage_lead_card", "king_or_queen").equals("king_only");
        return sureWinner(s, new Card(Rank.KING, suit), null)
                || (!kingOnly && sureWinner(s, new Card(Rank.QUEEN, suit), null));
    }

    // -- which card ---------------------------------------------------------------------------

    /** A king or queen whose partner is in hand, while a marriage can still be shown. */
    static boolean marriagePart(GameState s, Card card) {
        if (card.rank() != Rank.KING && card.rank() != Rank.QUEEN) {
            return false;
        }
        if (s.phase() == 2 && !s.flag("marriage_in_phase2", "false").equals("true")) {
            return false;
        }
        Rank other = card.rank() == Rank.KING ? Rank.QUEEN : Rank.KING;
        return s.hand.contains(new Card(other, card.suit()));
    }

    private static int bit(boolean b) {
        return b ? 1 : 0;
    }

    /** The card we lose least by giving away: not a trump, not half of a marriage, few points,
     * and among equals the weakest. */
    static Card cheapest(GameState s, List<Card> cards) {
        return cards.stream().min(Comparator
                .comparingInt((Card c) -> bit(c.suit() == s.trump))
                .thenComparingInt(c -> bit(marriagePart(s, c)))
                .thenComparingInt(Card::points)
                .thenComparingInt(c -> -c.rank().strength())).orElseThrow();
    }

    static Card weakest(List<Card> cards) {
        return cards.stream().max(Comparator.comparingInt((Card c) -> c.rank().strength())).orElseThrow();
    }

    static int countIfWon(GameState s, Card... cards) {
        int total = s.myPoints() + s.pendingMarriagePoints(s.mySide());
        for (Card c : cards) {
            total += c.points();
        }
        return total;
    }

    static Card lead2(GameState s, List<Card> cards) {
        Card richest = cards.stream().filter(c -> sureWinner(s, c, null))
                .max(Comparator.comparingInt(Card::points).thenComparingInt(c -> -c.rank().strength()))
                .orElse(null);
        // In phase 2 a sure winner keeps the lead and the claim window; in phase 1 it is spent
        // only when it wins the deal.
        if (richest != null && (s.phase() == 2 || countIfWon(s, richest) >= s.claimTarget())) {
            return richest;
        }
        return cheapest(s, cards);
    }

    static Card follow2(GameState s, List<Card> cards) {
        Card led = s.led();
        Suit trump = s.trump;
        List<Card> winning = cards.stream().filter(c -> c.beats(led, trump)).toList();
        if (!winning.isEmpty()) {
            // Win in suit before trumping, keep marriages, and use the weakest card that does it.
            Card cheapestWin = winning.stream().min(Comparator
                    .comparingInt((Card c) -> bit(c.suit() == trump && led.suit() != trump))
                    .thenComparingInt(c -> bit(marriagePart(s, c)))
                    .thenComparingInt(c -> -c.rank().strength())).orElseThrow();
            if (countIfWon(s, led, cheapestWin) >= s.claimTarget() || s.phase() == 2) {
                return cheapestWin; // in phase 2 the follow rules already chose the cards offered
            }
            List<Card> inSuit = winning.stream()
                    .filter(c -> c.suit() == led.suit() && !marriagePart(s, c)).toList();
            if (!inSuit.isEmpty()) {
                return weakest(inSuit);
            }
            if (led.points() >= HIGH_POINTS && led.suit() != trump) {
                List<Card> trumps = winning.stream()
                        .filter(c -> c.suit() == trump && !marriagePart(s, c)).toList();
                if (!trumps.isEmpty()) {
                    return weakest(trumps);
                }
            }
        }
        return cheapest(s, cards);
    }

    /** Three or four players: is {@code card} beaten by no card still out? */
    static boolean isTop(GameState s, Card card) {
        return s.othersPossible().stream().noneMatch(o -> o.beats(card, s.trump));
    }

    static Card leadN(GameState s, List<Card> cards) {
        if (s.phase() == 2) {
            Card top = cards.stream().filter(c -> isTop(s, c))
                    .max(Comparator.comparingInt(Card::points).thenComparingInt(c -> bit(c.suit() != s.trump)))
                    .orElse(null);
            if (top != null) {
                return top;
            }
        }
        List<Card> plain = cards.stream().filter(c -> c.suit() != s.trump && !marriagePart(s, c)).toList();
        return cheapest(s, plain.isEmpty() ? cards : plain);
    }

    static Card followN(GameState s, List<Card> cards) {
        GameState.TableCard best = s.best();
        Suit trump = s.trump;
        boolean last = s.table.size() == s.players - 1;
        boolean partnerWins = s.partner() >= 0 && best.seat() == s.partner();
        if (partnerWins && (last || isTop(s, best.card()))) {
            // Load the partner's winning trick with points, trumps last (a side pools its points).
            return cards.stream().max(Comparator
                    .comparingInt((Card c) -> bit(c.suit() != trump))
                    .thenComparingInt(Card::points)
                    .thenComparingInt(c -> c.rank().strength())).orElseThrow();
        }
        List<Card> winning = cards.stream().filter(c -> c.beats(best.card(), trump)).toList();
        int tablePoints = s.table.stream().mapToInt(t -> t.card().points()).sum();
        if (!winning.isEmpty() && !partnerWins) {
            Card cheapestWin = winning.stream().min(Comparator
                    .comparingInt((Card c) -> bit(c.suit() == trump && best.card().suit() != trump))
                    .thenComparingInt(c -> bit(marriagePart(s, c)))
                    .thenComparingInt(c -> -c.rank().strength())).orElseThrow();
            if (last || s.phase() == 2 || isTop(s, cheapestWin)) {
                if (cheapestWin.suit() != trump || best.card().suit() == trump
                        || tablePoints >= HIGH_POINTS || s.phase() == 2
                        || s.myPoints() + tablePoints + cheapestWin.points() >= s.claimTarget()) {
                    return cheapestWin;
                }
            } else if (cheapestWin.suit() != trump && cheapestWin.points() < HIGH_POINTS) {
                return cheapestWin;
            }
        }
        return cheapest(s, cards);
    }
}
