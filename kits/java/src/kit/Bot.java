package kit;

import java.util.List;

/** A bot's policy: what the runner asks it. */
public interface Bot {
    /** The name it answers the greeting with (1 to 64 of A-Z a-z 0-9 _ . + -). */
    String name();

    /** Whether it plays a match of {@code players} in {@code profile} (the greeting of §9.1). */
    default boolean supports(int players, String profile) {
        return players == 2;
    }

    /** One of {@code actions} (the request's list, PROTOCOL.md §4.1) for the state {@code s}. */
    Action decide(GameState s, List<Action> actions);
}
