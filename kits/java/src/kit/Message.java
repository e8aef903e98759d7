package kit;

import java.util.List;
import java.util.Map;

/**
 * Every message of protocol version 1 (protocol/PROTOCOL.md), as {@link Protocol#parse} reads it
 * and {@link Protocol#format} writes it. Per-side figures (score, totals, tricks, awarded) are
 * lists: [mine, theirs] with two players, one number per side, side 0 first, with more (§9).
 * Nullable fields say so.
 */
public sealed interface Message {

    /** {@code sixtysix 1}, or {@code sixtysix 1 players <n> profile <p>} (§3, §9.1; profile null with two). */
    record Hello(int version, int players, String profile) implements Message { }

    /**
     * {@code match ...} (§3, §9.2). Two players: {@code opponent} is set and {@code names} empty;
     * more: {@code names} lists every seat and {@code opponent} is null. Words a newer referee adds
     * are kept in {@code extra}.
     */
    record MatchStart(String matchId, String profile, int target, int seat, int players,
                      String opponent, List<String> names, int decisionMs,
                      Map<String, String> extra) implements Message { }

    /** {@code rules <flag>=<value> ...}: several lines add up (§3). */
    record Rules(Map<String, String> flags) implements Message { }

    record Deal(int dealNo, Who dealer, Card upcard, int stock, List<Card> hand, List<Integer> score,
                int pot) implements Message { }

    /** {@code lead?}, {@code follow?}, ... with every legal action (§4.1). */
    record Request(String decision, List<Action> actions) implements Message { }

    record Played(Who who, Card card) implements Message { }

    /** The winner and the trick's cards in the order played, the led card first. */
    record Trick(Who who, List<Card> cards) implements Message { }

    record Marriage(Who who, Suit suit, int points) implements Message { }

    record Exchange(Who who, Card took, Card gave) implements Message { }

    record Close(Who who) implements Message { }

    /** {@code card} is null when the reader may not see it. */
    record Draw(Who who, Card card) implements Message { }

    record Claim(Who who) implements Message { }

    /** {@code winner} is null for none; {@code dead} is empty but with three players (§9.4). */
    record Settle(Who winner, String reason, int points, List<Integer> awarded, List<Integer> totals,
                  List<Integer> tricks, List<Integer> score, int pot, List<Card> dead)
            implements Message { }

    /** {@code winner} null for none; {@code fault} and {@code by} null unless a forfeit. */
    record MatchEnd(Who winner, String reason, List<Integer> score, String fault, Who by)
            implements Message { }

    /** A line whose first word version 1 does not define: bots ignore it (§1, §8). */
    record Unknown(String line) implements Message { }
}
