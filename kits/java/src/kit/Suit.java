package kit;

/** The four suits, written as the wire writes them (PROTOCOL.md §2). */
public enum Suit {
    C, S, H, D;

    public char symbol() {
        return name().charAt(0);
    }

    /** The suit of one character, e.g. {@code "H"}; a {@link ProtocolException} otherwise. */
    public static Suit parse(String word) {
        if (word.length() == 1) {
            for (Suit s : values()) {
                if (s.symbol() == word.charAt(0)) {
                    return s;
                }
            }
        }
        throw new ProtocolException("not a suit: '" + word + "'");
    }
}
