package kit;

import java.util.function.Supplier;

/**
 * Plays a few scripted situations before the bot answers the greeting, so that the JVM has loaded
 * and compiled the code every decision runs (parsing, the tracker, the policy) while the start-up
 * limit (10 s by default, PROTOCOL.md §6) is counting, not the first decision's (1 s). Without
 * it, the first few decisions of a match took 200 to 500 ms on a busy machine.
 */
public final class Warmup {
    private Warmup() { }

    /** PROTOCOL.md §7 and a four-player deal, as the referee sends them. */
    private static final String[] TWO_PLAYERS = {
        "sixtysix 1",
        "match warmup profile sixty_six target 7 seat 1 opponent random decision_ms 1000",
        "rules deck_size=24 marriage_credit=once_any_trick marriage_in_phase2=false last_trick_bonus=10",
        "deal 1 dealer opp upcard KC stock 12 hand AC 9C QS JH KD QD score 0 0 pot 0",
        "lead? close marry:D play:AC play:9C play:QS play:JH play:KD play:QD",
        "marriage me D 20", "lead? claim play:KD play:QD", "played me QD", "played opp TS",
        "trick me QD TS", "after_trick? claim close pass", "draw me KS", "draw opp",
        "lead? exchange close marry:S claim play:AC play:9C play:KS play:QS play:JH play:KD",
        "exchange me KC 9C", "lead? close marry:S claim play:AC play:KC play:KS play:QS play:JH play:KD",
        "marriage me S 20", "lead? claim play:KS play:QS", "played me QS", "played opp TC",
        "trick opp QS TC", "close opp", "played opp JD", "follow? play:KD", "played me KD",
        "trick me JD KD", "after_trick? claim pass", "lead? claim play:AC play:KC play:KS play:JH",
        "played me AC", "played opp JC", "trick me AC JC", "after_trick? claim pass", "claim me",
        "settle winner me reason claim_against_close points 2 awarded 2 totals 72 13 tricks 3 1 score 2 0 pot 0",
        "deal 2 dealer me upcard 9H stock 12 hand AH TS KS QC JD 9S score 2 0 pot 0",
        "played opp AS", "follow? exchange play:AH play:TS play:KS play:QC play:JD play:9S",
        "match_end winner me reason target score 7 0",
    };

    private static final String[] FOUR_PLAYERS = {
        "sixtysix 1 players 4 profile four_player",
        "match warmup profile four_player target 7 players 4 seat 1 names a b c d decision_ms 1000",
        "rules deck_size=48 players=4 claim_target=101 must_beat_partner=true",
        "deal 1 dealer 0 upcard 9D stock 20 hand AS AS TH KH QH 9H 9D score 0 0 pot 0",
        "lead? marry:H play:AS play:AS play:TH play:KH play:QH play:9H play:9D",
        "marriage 1 H 20", "lead? claim play:KH play:QH", "played 1 KH", "played 2 TH",
        "follow? play:AS play:AS play:TH play:QH play:9H play:9D", "played 3 AH", "played 0 9H",
        "trick 3 KH TH AH 9H", "draw 1 JD", "draw 2", "draw 3", "draw 0", "played 3 QS",
        "played 0 KS", "follow? play:AS play:AS play:TH play:QH play:9H play:JD play:9D",
        "match_end winner 0 reason target score 7 2",
    };

    /** Runs the scripts through fresh bots from {@code bots}; what they answer is thrown away. */
    public static void run(Supplier<Bot> bots, int rounds) {
        for (int i = 0; i < rounds; i++) {
            for (String[] script : new String[][] {TWO_PLAYERS, FOUR_PLAYERS}) {
                Runner runner = new Runner(bots.get(), text -> { });
                for (String line : script) {
                    runner.answer(Protocol.parse(line));
                    Protocol.format(Protocol.parse(line));
                }
            }
        }
    }
}
