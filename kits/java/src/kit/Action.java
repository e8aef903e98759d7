package kit;

/**
 * One action word of a request (PROTOCOL.md §2, §4.1): {@code play:TH}, {@code marry:S},
 * {@code exchange}, {@code close}, {@code claim}, {@code pass}. {@code text} is the word exactly as
 * the request listed it, which is what the bot writes back. A word version 1 does not define is kept
 * as {@link Kind#UNKNOWN}, so that a bot can still answer with one it knows.
 */
public record Action(Kind kind, Card card, Suit suit, String text) {

    public enum Kind { PLAY, MARRY, EXCHANGE, CLOSE, CLAIM, PASS, UNKNOWN }

    public static Action parse(String word) {
        switch (word) {
            case "exchange": return new Action(Kind.EXCHANGE, null, null, word);
            case "close": return new Action(Kind.CLOSE, null, null, word);
            case "claim": return new Action(Kind.CLAIM, null, null, word);
            case "pass": return new Action(Kind.PASS, null, null, word);
            default: break;
        }
        try {
            if (word.startsWith("play:")) {
                return new Action(Kind.PLAY, Card.parse(word.substring(5)), null, word);
            }
            if (word.startsWith("marry:")) {
                return new Action(Kind.MARRY, null, Suit.parse(word.substring(6)), word);
            }
        } catch (ProtocolException err) {
            // falls through: not an action of version 1
        }
        return new Action(Kind.UNKNOWN, null, null, word);
    }

    public static Action play(Card card) {
        return new Action(Kind.PLAY, card, null, "play:" + card);
    }

    @Override
    public String toString() {
        return text;
    }
}
