package kit;

/** Ranks, strongest first (RULES.md §1: A > 10 > K > Q > J > 9 > 8 > 7), with their card points. */
public enum Rank {
    ACE('A', 11), TEN('T', 10), KING('K', 4), QUEEN('Q', 3), JACK('J', 2), NINE('9', 0),
    EIGHT('8', 0), SEVEN('7', 0);

    private final char symbol;
    private final int points;

    Rank(char symbol, int points) {
        this.symbol = symbol;
        this.points = points;
    }

    public char symbol() {
        return symbol;
    }

    public int points() {
        return points;
    }

    /** 0 for the ace up to 7 for the seven: a lower number is a stronger card. */
    public int strength() {
        return ordinal();
    }

    public static Rank parse(char symbol) {
        for (Rank r : values()) {
            if (r.symbol == symbol) {
                return r;
            }
        }
        throw new ProtocolException("not a rank: '" + symbol + "'");
    }
}
