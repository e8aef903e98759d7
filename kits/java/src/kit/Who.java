package kit;

/**
 * A player as a line names it: {@code me} or {@code opp} with two players, a seat number with
 * three or four (PROTOCOL.md §2, §9.1). {@link GameState#seatOf} turns any of them into a seat.
 */
public record Who(String text) {
    public static final Who ME = new Who("me");
    public static final Who OPP = new Who("opp");

    public static Who seat(int seat) {
        return new Who(Integer.toString(seat));
    }

    public static Who parse(String word) {
        if (word.equals("me") || word.equals("opp") || word.matches("[0-3]")) {
            return new Who(word);
        }
        throw new ProtocolException("not a player (me, opp or a seat number): '" + word + "'");
    }

    public boolean isMe() {
        return text.equals("me");
    }

    public boolean isOpp() {
        return text.equals("opp");
    }

    /** The seat number, or -1 for me/opp. */
    public int number() {
        return isMe() || isOpp() ? -1 : Integer.parseInt(text);
    }

    @Override
    public String toString() {
        return text;
    }
}
