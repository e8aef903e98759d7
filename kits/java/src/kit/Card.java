package kit;

import java.util.ArrayList;
import java.util.List;

/** A card, written rank then suit as on the wire: {@code Card.parse("TH").toString().equals("TH")}. */
public record Card(Rank rank, Suit suit) {

    public static Card parse(String word) {
        if (word.length() != 2) {
            throw new ProtocolException("not a card: '" + word + "'");
        }
        return new Card(Rank.parse(word.charAt(0)), Suit.parse(word.substring(1)));
    }

    public int points() {
        return rank.points();
    }

    /**
     * Does this card, played after {@code best} (the card winning the trick so far), take the
     * trick? RULES.md §5.1: the same suit and a higher rank, or a trump on a plain card. Of two
     * identical cards (two packs, §10.3) the one played first wins, so an equal card never beats.
     */
    public boolean beats(Card best, Suit trump) {
        if (suit == best.suit) {
            return rank.strength() < best.rank.strength();
        }
        return suit == trump;
    }

    /** The cards of the pack a rules line's {@code deck_size} names (RULES.md §1, §9, §10). */
    public static List<Card> pack(int deckSize) {
        int ranks = switch (deckSize) {
            case 20 -> 5;
            case 32 -> 8;
            default -> 6; // 24, and 48: two 24-card packs
        };
        int copies = deckSize == 48 ? 2 : 1;
        List<Card> cards = new ArrayList<>();
        for (int n = 0; n < copies; n++) {
            for (Suit s : Suit.values()) {
                for (int r = 0; r < ranks; r++) {
                    cards.add(new Card(Rank.values()[r], s));
                }
            }
        }
        return cards;
    }

    @Override
    public String toString() {
        return "" + rank.symbol() + suit.symbol();
    }
}
