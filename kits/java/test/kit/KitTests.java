package kit;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The kit's unit tests: every message of PROTOCOL.md read and written back (two, three and four
 * players), the tracker's mental count on the documents' examples and on the rules' corner cases,
 * and the sample bot's answers. Plain checks, no library: {@code sh test.sh} builds and runs them
 * and exits 1 when one fails. {@code sh test.sh NAME} runs the tests whose names contain NAME.
 */
public final class KitTests {
    private KitTests() { }

    // -- a tiny harness ---------------------------------------------------------------------------

    private static final Map<String, Runnable> TESTS = new LinkedHashMap<>();

    private static void test(String name, Runnable body) {
        TESTS.put(name, body);
    }

    static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    static void eq(Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            throw new AssertionError("expected " + expected + ", got " + actual);
        }
    }

    static void throwsProtocol(Runnable body, String what) {
        try {
            body.run();
        } catch (ProtocolException expected) {
            return;
        }
        throw new AssertionError("no ProtocolException for " + what);
    }

    public static void main(String[] args) {
        register();
        String only = args.length > 0 ? args[0] : "";
        int passed = 0;
        int failed = 0;
        int n = 0;
        for (Map.Entry<String, Runnable> t : TESTS.entrySet()) {
            if (!t.getKey().contains(only)) {
                continue;
            }
            n++;
            try {
                t.getValue().run();
                passed++;
                System.out.println("ok " + n + " - " + t.getKey());
            } catch (RuntimeException | AssertionError err) {
                failed++;
                System.out.println("not ok " + n + " - " + t.getKey() + ": " + err);
                for (StackTraceElement e : err.getStackTrace()) {
                    if (e.getClassName().startsWith("kit.")) {
                        System.out.println("    at " + e);
                    }
                }
            }
        }
        System.out.println("# pass " + passed);
        System.out.println("# fail " + failed);
        System.exit(failed == 0 && passed > 0 ? 0 : 1);
    }

    // -- the documents' examples ------------------------------------------------------------------

    static final String SIXTY_SIX_RULES = "rules deck_size=24 hand_size=6 deal_pattern=3_3 "
            + "exchange_who=leader_or_follower exchange_requires_trick=true exchange_min_stock=2 "
            + "exchange_on_opponent_close=true marriage_requires_prior_trick=false "
            + "marriage_credit=once_any_trick marriage_in_phase2=false marriage_on_closing_lead=true "
            + "marriage_lead_card=king_or_queen claim_after_meld=true close_enabled=true "
            + "close_before_draw=true close_min_stock=2 close_pre_draw_min_stock=4 "
            + "close_before_first_trick=true closer_tier_basis=final "
            + "close_fail_three_if=opp_no_trick_at_close opponent_out_after_close=as_close_fail "
            + "phase2_follow=strict claim_mode=explicit claim_window=after_trick_or_meld "
            + "wrong_claim_award=two_or_three schwarz_test=no_tricks schneider_below=33 "
            + "last_trick_bonus=10 end_without_claim=draw_carry undeclared_66_voids_claim=false "
            + "draw_carry_points=1 draw_carry_accumulates=true match_target=7 shutout_double=false "
            + "next_dealer=alternate dealer_after_draw=alternate illegal_move_policy=forfeit_match";

    static final String THREE_PLAYER_RULES = SIXTY_SIX_RULES
            .replace("deck_size=24 hand_size=6 deal_pattern=3_3 exchange_who=leader_or_follower",
                    "deck_size=32 hand_size=7 deal_pattern=3_4 exchange_who=leader_only")
            .replace("exchange_on_opponent_close=true", "exchange_on_opponent_close=false")
            .replace("close_enabled=true", "close_enabled=false")
            .replace("wrong_claim_award=two_or_three", "wrong_claim_award=two")
            .replace("end_without_claim=draw_carry", "end_without_claim=higher_total")
            + " players=3 claim_target=66 must_beat_partner=true";

    /** PROTOCOL.md §7, seat 1 of a sixty_six match (the rules line in full). */
    static final String EXAMPLE_2P = """
            > sixtysix 1
            < ready greedy
            > match example17 profile sixty_six target 7 seat 1 opponent random decision_ms 1000
            > %s
            > deal 1 dealer opp upcard KC stock 12 hand AC 9C QS JH KD QD score 0 0 pot 0
            > lead? close marry:D play:AC play:9C play:QS play:JH play:KD play:QD
            < marry:D
            > marriage me D 20
            > lead? claim play:KD play:QD
            < play:QD
            > played me QD
            > played opp TS
            > trick me QD TS
            > after_trick? claim close pass
            < pass
            > draw me KS
            > draw opp
            > lead? exchange close marry:S claim play:AC play:9C play:KS play:QS play:JH play:KD
            < exchange
            > exchange me KC 9C
            > lead? close marry:S claim play:AC play:KC play:KS play:QS play:JH play:KD
            < marry:S
            > marriage me S 20
            > lead? claim play:KS play:QS
            < play:QS
            > played me QS
            > played opp TC
            > trick opp QS TC
            > close opp
            > played opp JD
            > follow? play:KD
            < play:KD
            > played me KD
            > trick me JD KD
            > after_trick? claim pass
            < pass
            > lead? claim play:AC play:KC play:KS play:JH
            < play:AC
            > played me AC
            > played opp JC
            > trick me AC JC
            > after_trick? claim pass
            < claim
            > claim me
            > settle winner me reason claim_against_close points 2 awarded 2 totals 72 13 tricks 3 1 score 2 0 pot 0
            """.formatted(SIXTY_SIX_RULES);

    /** PROTOCOL.md §9.7, seat 1 of a three_player match. */
    static final String EXAMPLE_3P = """
            > sixtysix 1 players 3 profile three_player
            < ready random
            > match example300 profile three_player target 7 players 3 seat 1 names random random random decision_ms 1000
            > %s
            > deal 1 dealer 0 upcard 9D stock 9 hand AS JS TH KH QH 9H 7D score 0 0 0 pot 0
            > lead? marry:H play:AS play:JS play:TH play:KH play:QH play:9H play:7D
            < marry:H
            > marriage 1 H 20
            > lead? claim play:KH play:QH
            < play:KH
            > played 1 KH
            > played 2 7H
            > played 0 KS
            > trick 1 KH 7H KS
            > after_trick? claim pass
            < pass
            > draw 1 JD
            > draw 2
            > draw 0
            > lead? exchange claim play:AS play:JS play:TH play:QH play:9H play:JD play:7D
            < exchange
            > exchange 1 9D 7D
            > lead? claim play:AS play:JS play:TH play:QH play:9H play:JD play:9D
            < play:9D
            > played 1 9D
            > played 2 7S
            > played 0 8H
            > trick 1 9D 7S 8H
            > after_trick? claim pass
            < claim
            > claim 1
            > settle winner none reason wrong_claim points 2 awarded 2 0 2 totals 0 28 0 tricks 0 2 0 score 2 0 2 pot 0 dead KC AD
            """.formatted(THREE_PLAYER_RULES);

    /** The referee's lines of a transcript, without the "> ". */
    static List<String> refereeLines(String transcript) {
        List<String> out = new ArrayList<>();
        for (String line : transcript.split("\n")) {
            if (line.startsWith("> ")) {
                out.add(line.substring(2));
            }
        }
        return out;
    }

    static GameState feed(List<String> lines) {
        return feed(new GameState(), lines);
    }

    static GameState feed(GameState s, List<String> lines) {
        for (String line : lines) {
            s.update(Protocol.parse(line));
        }
        return s;
    }

    static List<String> upTo(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return lines.subList(0, i + 1);
            }
        }
        throw new AssertionError("no line starts with " + prefix);
    }

    static List<Card> cards(String... words) {
        List<Card> out = new ArrayList<>();
        for (String w : words) {
            out.add(Card.parse(w));
        }
        return out;
    }

    // -- the tests --------------------------------------------------------------------------------

    /** One line per message kind and form: each must read and write back byte for byte. */
    static final String[][] LINES = {
        {"hello", "sixtysix 1"},
        {"hello_nseat", "sixtysix 1 players 4 profile four_player"},
        {"match", "match m-1 profile sixty_six target 7 seat 0 opponent greedy decision_ms 1000"},
        {"match_nseat", "match g.7 profile four_player target 7 players 4 seat 2 names a b c d decision_ms 500"},
        {"rules", "rules deck_size=24 claim_after_meld=true"},
        {"deal", "deal 3 dealer me upcard 9H stock 12 hand AC TC KS QS JD 9D score 2 1 pot 1"},
        {"deal_nseat", "deal 1 dealer 3 upcard 9D stock 20 hand AS AS TH KH QH 9H 9D score 0 0 pot 0"},
        {"lead", "lead? exchange close marry:S claim play:AC play:9C"},
        {"follow", "follow? exchange play:KD"},
        {"after_trick", "after_trick? claim close pass"},
        {"close_exchange", "close_exchange? exchange pass"},
        {"between_tricks", "between_tricks? exchange pass"},
        {"played", "played opp TS"},
        {"played_nseat", "played 3 TS"},
        {"trick", "trick me QD TS"},
        {"trick_nseat", "trick 2 KH 7H KS AH"},
        {"marriage", "marriage opp H 40"},
        {"exchange", "exchange me KC 9C"},
        {"close", "close opp"},
        {"draw_mine", "draw me KS"},
        {"draw_hidden", "draw opp"},
        {"draw_faceup", "draw opp 9C"},
        {"draw_nseat", "draw 0"},
        {"claim", "claim me"},
        {"claim_nseat", "claim 1"},
        {"settle", "settle winner me reason claim_against_close points 2 awarded 2 totals 72 13 tricks 3 1 score 2 0 pot 0"},
        {"settle_draw", "settle winner none reason draw points 0 awarded 0 totals 65 65 tricks 6 6 score 2 0 pot 1"},
        {"settle_3p", "settle winner none reason wrong_claim points 2 awarded 2 0 2 totals 0 28 0 tricks 0 2 0 score 2 0 2 pot 0 dead KC AD"},
        {"settle_4p", "settle winner 0 reason claim points 1 awarded 1 0 totals 101 60 tricks 5 3 score 1 0 pot 0"},
        {"match_end", "match_end winner opp reason target score 3 7"},
        {"match_end_fault", "match_end winner opp reason forfeit score 0 0 fault malformed by me"},
        {"match_end_nseat", "match_end winner none reason forfeit score 2 4 1 fault timeout by 2"},
    };

    static final String[] BAD = {
        "played me XX", "played someone AC", "deal x dealer me upcard KC stock 1 hand AC score 0 0 pot 0",
        "marriage me Z 20", "trick me AC", "settle winner me", "match_end winner me reason target",
        "rules novalue", "claim  me", "draw me AC KC", "lead?",
    };

    static void register() {
        for (String[] row : LINES) {
            test(row[0] + " reads and writes back unchanged", () -> {
                Message msg = Protocol.parse(row[1]);
                check(!(msg instanceof Message.Unknown), "read as unknown");
                eq(row[1], Protocol.format(msg));
                eq(msg, Protocol.parse(Protocol.format(msg)));
            });
        }

        test("the fields of each message are read", () -> {
            eq(new Message.Hello(1, 4, "four_player"), Protocol.parse("sixtysix 1 players 4 profile four_player"));
            Message.MatchStart m = (Message.MatchStart) Protocol.parse(LINES[3][1]);
            eq(2, m.seat());
            eq(List.of("a", "b", "c", "d"), m.names());
            eq(500, m.decisionMs());
            eq("greedy", ((Message.MatchStart) Protocol.parse(LINES[2][1])).opponent());
            eq(Map.of("deck_size", "24", "claim_after_meld", "true"), ((Message.Rules) Protocol.parse(LINES[4][1])).flags());
            Message.Deal d = (Message.Deal) Protocol.parse(LINES[6][1]);
            eq(Who.seat(3), d.dealer());
            eq(cards("AS", "AS", "TH", "KH", "QH", "9H", "9D"), d.hand()); // two packs: twice
            eq(List.of(0, 0), d.score());
            Message.Request r = (Message.Request) Protocol.parse(LINES[7][1]);
            eq("lead", r.decision());
            List<Action.Kind> kinds = new ArrayList<>();
            r.actions().forEach(a -> kinds.add(a.kind()));
            eq(List.of(Action.Kind.EXCHANGE, Action.Kind.CLOSE, Action.Kind.MARRY, Action.Kind.CLAIM,
                    Action.Kind.PLAY, Action.Kind.PLAY), kinds);
            eq(Suit.S, r.actions().get(2).suit());
            eq(Card.parse("AC"), r.actions().get(4).card());
            eq(cards("KH", "7H", "KS", "AH"), ((Message.Trick) Protocol.parse(LINES[15][1])).cards());
            eq(null, ((Message.Draw) Protocol.parse("draw opp")).card());
            eq(Card.parse("9C"), ((Message.Draw) Protocol.parse("draw opp 9C")).card());
            Message.Settle s = (Message.Settle) Protocol.parse(LINES[27][1]);
            eq(null, s.winner());
            eq(List.of(2, 0, 2), s.awarded());
            eq(cards("KC", "AD"), s.dead());
            eq(Who.seat(0), ((Message.Settle) Protocol.parse(LINES[28][1])).winner()); // side 0 is not none
            Message.MatchEnd e = (Message.MatchEnd) Protocol.parse(LINES[30][1]);
            eq(Arrays.asList(Who.OPP, "forfeit", "malformed", Who.ME),
                    Arrays.asList(e.winner(), e.reason(), e.fault(), e.by()));
        });

        test("every line of both PROTOCOL.md examples reads and writes back", () -> {
            List<String> all = new ArrayList<>(refereeLines(EXAMPLE_2P));
            all.addAll(refereeLines(EXAMPLE_3P));
            for (String line : all) {
                Message msg = Protocol.parse(line);
                check(!(msg instanceof Message.Unknown), line);
                eq(line, Protocol.format(msg));
            }
        });

        test("a line whose first word is new is unknown, not an error (§1, §8)", () -> {
            eq(new Message.Unknown("chat hello there"), Protocol.parse("chat hello there"));
            eq(new Message.Unknown("think? play:AC"), Protocol.parse("think? play:AC")); // no new requests
        });

        test("a \\r before the \\n is dropped (§1)", () ->
                eq(new Message.Claim(Who.OPP), Protocol.parse("claim opp\r\n")));

        test("new words in the match line are kept, not fatal", () -> {
            Message.MatchStart m = (Message.MatchStart) Protocol.parse(
                    "match m profile sixty_six target 7 seat 1 opponent x decision_ms 900 bank_ms 5000");
            eq(900, m.decisionMs());
            eq(Map.of("bank_ms", "5000"), m.extra());
        });

        test("an unknown action word in a request is kept so the bot can choose another", () -> {
            Message.Request r = (Message.Request) Protocol.parse("lead? teleport play:AC");
            eq(Action.Kind.UNKNOWN, r.actions().get(0).kind());
            eq(Action.Kind.PLAY, r.actions().get(1).kind());
        });

        for (String line : BAD) {
            test("a broken known line is a ProtocolException: " + line,
                    () -> throwsProtocol(() -> Protocol.parse(line), line));
        }

        test("answers: ready, decline, actions", () -> {
            eq("ready kit-java", Protocol.ready("kit-java"));
            throwsProtocol(() -> Protocol.ready("two words"), "a name with a space");
            eq("decline does not support four_player", Protocol.decline("does not support  four_player"));
            eq("decline", Protocol.decline(""));
            eq(new Action(Action.Kind.MARRY, null, Suit.H, "marry:H"), Action.parse("marry:H"));
            eq(Action.Kind.UNKNOWN, Action.parse("play:1H").kind());
        });

        test("beats: suit, rank and trump (RULES.md §5.1), the first of two twins wins (§10.3)", () -> {
            check(Card.parse("TH").beats(Card.parse("KH"), Suit.C), "TH beats KH");
            check(!Card.parse("KH").beats(Card.parse("TH"), Suit.C), "KH does not beat TH");
            check(Card.parse("9C").beats(Card.parse("AH"), Suit.C), "a trump beats a plain ace");
            check(!Card.parse("AS").beats(Card.parse("9H"), Suit.C), "another plain suit never wins");
            check(!Card.parse("AH").beats(Card.parse("AH"), Suit.C), "the first twin wins");
        });

        test("PROTOCOL.md §7: seat 1 counts 33, 53, 59, 72 and the bot claims only at 72", () -> {
            Runner runner = new Runner(new SampleBot("kit-java"), text -> { });
            List<Integer> seen = new ArrayList<>();
            List<String> answers = new ArrayList<>();
            for (String line : refereeLines(EXAMPLE_2P)) {
                String reply = runner.answer(Protocol.parse(line));
                if (line.startsWith("trick ") || line.startsWith("marriage ")) {
                    seen.add(runner.state().myPoints());
                }
                if (line.startsWith("after_trick?")) {
                    answers.add(reply);
                }
            }
            // marriage D (no trick yet), trick QD TS (+13 +20), marriage S, a lost trick,
            // trick JD KD (+6), trick AC JC (+13)
            eq(List.of(0, 33, 53, 53, 59, 72), seen);
            eq(List.of("pass", "pass", "claim"), answers);
            eq(13, runner.state().points(0)); // the opponent: QS TC, as the settle line says
            check(runner.state().dealOver, "the deal is over");
            eq(List.of(2, 0), runner.state().score);
        });

        test("PROTOCOL.md §7: hand, trump, stock, exchange and close are tracked", () -> {
            List<String> lines = refereeLines(EXAMPLE_2P);
            GameState s = feed(upTo(lines, "deal "));
            eq(1, s.seat);
            eq(0, s.dealer);
            eq(1, s.leader); // the non-dealer leads
            eq(Suit.C, s.trump);
            eq(12, s.stock);
            eq(66, s.claimTarget());
            s = feed(upTo(lines, "draw opp"));
            eq(10, s.stock);
            check(s.hand.containsAll(cards("9C", "AC", "JH", "KD", "KS", "QS")) && s.hand.size() == 6, "hand " + s.hand);
            eq(6, s.handSizes[0]);
            s = feed(upTo(lines, "exchange "));
            check(s.hand.contains(Card.parse("KC")) && !s.hand.contains(Card.parse("9C")), "exchanged");
            eq(Card.parse("9C"), s.upcard);
            eq(1, s.exchangedBy);
            s = feed(upTo(lines, "close "));
            eq(GameState.StockState.CLOSED, s.stockState);
            eq(0, s.closer);
            eq(null, s.upcard);
            eq(Card.parse("9C"), s.stockBottom);
            eq(2, s.phase());
            s = feed(upTo(lines, "played opp JD"));
            eq(Card.parse("JD"), s.led());
            eq(new GameState.TableCard(0, Card.parse("JD")), s.best());
            eq(1, s.toPlay());
            eq(cards("TS", "TC", "JD"), s.playedBy.get(0));
        });

        test("PROTOCOL.md §9.7: three players, seat 1 counts 28 (8 + 0 + the heart marriage)", () -> {
            List<String> lines = new ArrayList<>(refereeLines(EXAMPLE_3P));
            lines.remove(lines.size() - 1); // before the settle line
            GameState s = feed(lines);
            eq(3, s.players);
            eq(3, s.sides());
            eq(28, s.myPoints());
            eq(0, s.points(0));
            eq(6, s.stock);
            eq("[6, 6, 6]", Arrays.toString(s.handSizes)); // 7, two played, one drawn
            eq(Card.parse("7D"), s.upcard);
            eq("[0, 2, 0]", Arrays.toString(s.tricksWon));
            GameState last = feed(refereeLines(EXAMPLE_3P));
            eq(cards("KC", "AD"), last.deadPile);
            eq(List.of(2, 0, 2), last.score);
        });

        test("the three-player bot does not claim at 28 where the random bot did", () -> {
            Runner runner = new Runner(new SampleBot("k"), text -> { });
            String reply = null;
            for (String line : refereeLines(EXAMPLE_3P)) {
                if (line.startsWith("claim ")) {
                    break;
                }
                reply = runner.answer(Protocol.parse(line));
            }
            eq("pass", reply);
        });

        test("four players: partners pool card points and marriages, the target is 101", () -> {
            GameState s = feed(List.of(
                    "sixtysix 1 players 4 profile four_player",
                    "match q profile four_player target 7 players 4 seat 1 names a b c d decision_ms 1000",
                    "rules deck_size=48 players=4 claim_target=101 marriage_credit=once_any_trick last_trick_bonus=10",
                    "deal 1 dealer 0 upcard 9D stock 20 hand AS AS TH KH QH 9H 9D score 0 0 pot 0",
                    "marriage 3 C 20", // the partner shows clubs: pending until the side has a trick
                    "played 1 AS", "played 2 TS", "played 3 AS", "played 0 KS",
                    "trick 1 AS TS AS KS", // the first of two aces wins: side 1 gets 36
                    "draw 1 QD", "draw 2", "draw 3", "draw 0"));
            eq(101, s.claimTarget());
            eq(3, s.partner());
            eq(1, s.mySide());
            eq(36 + 20, s.points(1));
            eq(0, s.points(0));
            eq(cards("KC", "QC"), s.known.get(3));
            eq(16, s.stock);
            eq(1, s.leader);
            eq(1, (int) s.hand.stream().filter(c -> c.equals(Card.parse("AS"))).count()); // one twin left
            eq(null, s.unseenCounts().get(Card.parse("AS")));
            eq(1, s.unseenCounts().get(Card.parse("TS")));
        });

        test("marriage_credit=next_trick_after_meld credits only a trick won after the marriage", () -> {
            GameState s = feed(List.of("sixtysix 1", "match m profile x target 7 seat 0 opponent o decision_ms 1000",
                    "rules marriage_credit=next_trick_after_meld",
                    "deal 1 dealer opp upcard 9C stock 10 hand KH QH AS TS JD score 0 0 pot 0",
                    "played me AS", "played opp 9S", "trick me AS 9S", "marriage me H 20"));
            eq(11, s.myPoints());
            eq(20, s.pendingMarriagePoints(0));
            feed(s, List.of("played me KH", "played opp JH", "trick me KH JH"));
            eq(11 + 20 + 6, s.myPoints());
        });

        test("the last-trick bonus counts after the last trick of a played-out deal, not after a close", () -> {
            List<String> start = List.of("sixtysix 1",
                    "match m profile sixty_six target 7 seat 0 opponent o decision_ms 1000", SIXTY_SIX_RULES,
                    "deal 1 dealer opp upcard 9C stock 2 hand AS score 0 0 pot 0", "draw me TS", "draw opp 9C");
            GameState open = feed(start);
            feed(open, List.of("played me AS", "played opp 9S", "trick me AS 9S"));
            eq(GameState.StockState.EXHAUSTED, open.stockState);
            eq(11, open.myPoints()); // a card still in hand: not the last trick
            feed(open, List.of("played me TS", "played opp 9C", "trick me TS 9C"));
            eq(11 + 10 + 10, open.myPoints());
            GameState closed = feed(List.of("sixtysix 1",
                    "match m profile sixty_six target 7 seat 0 opponent o decision_ms 1000", SIXTY_SIX_RULES,
                    "deal 1 dealer opp upcard 9C stock 4 hand AS score 0 0 pot 0", "close me",
                    "played me AS", "played opp 9S", "trick me AS 9S"));
            eq(11, closed.myPoints());
            List<String> schnapsen = new ArrayList<>(start);
            schnapsen.set(2, "rules last_trick_bonus=0");
            GameState noBonus = feed(schnapsen);
            feed(noBonus, List.of("played me AS", "played opp 9S", "trick me AS 9S", "played me TS",
                    "played opp 9C", "trick me TS 9C"));
            eq(21, noBonus.myPoints());
        });

        test("a new deal and a new match forget the old one", () -> {
            GameState s = feed(refereeLines(EXAMPLE_2P));
            feed(s, List.of("deal 2 dealer me upcard AH stock 12 hand 9H KC QC JS 9S TD score 2 0 pot 0"));
            eq(0, s.myPoints());
            eq(0, s.marriages.size());
            eq(0, s.leader);
            eq(Suit.H, s.trump);
            feed(s, List.of("match n profile schnapsen target 7 seat 0 opponent z decision_ms 800"));
            eq("n", s.matchId);
            check(s.rules.isEmpty(), "rules forgotten");
            eq(List.of(0, 0), s.score);
        });

        test("unseen cards: the pack less the hand and the bottom card", () -> {
            GameState s = feed(refereeLines(EXAMPLE_2P).subList(0, 5));
            Map<Card, Integer> unseen = s.unseenCounts();
            eq(24 - 6 - 1, unseen.size());
            check(!unseen.containsKey(Card.parse("KC")) && !unseen.containsKey(Card.parse("AC")), "seen cards");
        });

        test("greetings: ready for two, three and four players", () -> {
            for (String line : List.of("sixtysix 1", "sixtysix 1 players 3 profile three_player")) {
                eq("ready me-bot", new Runner(new SampleBot("me-bot"), t -> { }).answer(Protocol.parse(line)));
            }
        });

        test("a bot that does not play a variant declines it (§9.1)", () -> {
            Bot twoOnly = new Bot() {
                public String name() {
                    return "two";
                }

                public Action decide(GameState s, List<Action> actions) {
                    return actions.get(0);
                }
            };
            eq("decline does not support four_player", new Runner(twoOnly, t -> { })
                    .answer(Protocol.parse("sixtysix 1 players 4 profile four_player")));
        });

        test("an answer outside the offered list is replaced by an offered one", () -> {
            List<String> logged = new ArrayList<>();
            Bot wrong = new SampleBot("w") {
                @Override
                public Action decide(GameState s, List<Action> actions) {
                    return Action.parse("claim");
                }
            };
            eq("play:AC", new Runner(wrong, logged::add).answer(Protocol.parse("follow? play:AC play:9C")));
            eq(1, logged.size());
            Bot broken = new SampleBot("b") {
                @Override
                public Action decide(GameState s, List<Action> actions) {
                    throw new IllegalStateException("bug");
                }
            };
            eq("pass", new Runner(broken, t -> { }).answer(Protocol.parse("after_trick? claim pass")));
        });

        test("claims at exactly the target, and not one point below", () -> {
            List<String> lines = refereeLines(EXAMPLE_2P);
            int cut = lines.indexOf("trick me AC JC");
            // 59 before the last trick; the trick's cards make 66 exactly, or 62 to 65.
            Map<String, String> expected = new LinkedHashMap<>();
            expected.put("trick me KC QC", "66 claim");
            expected.put("trick me KC JC", "65 pass");
            expected.put("trick me JC QC", "64 pass");
            expected.put("trick me KC 9S", "63 pass");
            for (Map.Entry<String, String> e : expected.entrySet()) {
                Runner runner = new Runner(new SampleBot("k"), t -> { });
                for (String line : lines.subList(0, cut)) {
                    runner.answer(Protocol.parse(line));
                }
                runner.answer(Protocol.parse(e.getKey()));
                String reply = runner.answer(Protocol.parse("after_trick? claim pass"));
                eq(e.getValue(), runner.state().myPoints() + " " + reply);
            }
        });

        test("the loop plays a scripted dialogue over streams and ends when the input does", () -> {
            StringBuilder input = new StringBuilder();
            int requests = 0;
            for (String line : refereeLines(EXAMPLE_2P)) {
                if (!line.startsWith("claim") && !line.startsWith("settle")) {
                    input.append(line).append("\r\n"); // with the tolerated \r
                    requests += line.contains("? ") ? 1 : 0;
                }
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                new Runner(new SampleBot("kit-java"), t -> { }).run(
                        new ByteArrayInputStream(input.toString().getBytes(StandardCharsets.UTF_8)), out);
            } catch (java.io.IOException err) {
                throw new AssertionError(err);
            }
            String[] answers = out.toString(StandardCharsets.UTF_8).split("\n");
            eq("ready kit-java", answers[0]);
            eq(1 + requests, answers.length);
            eq("claim", answers[answers.length - 1]);
        });

        test("the program answers over real pipes and exits 0 when stdin closes", () -> {
            String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
            try {
                Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                        "kit.Main", "piped").redirectError(ProcessBuilder.Redirect.INHERIT).start();
                p.getOutputStream().write("sixtysix 1\nfollow? play:9C play:AC\n".getBytes(StandardCharsets.UTF_8));
                p.getOutputStream().close();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                eq(0, p.waitFor());
                eq("ready piped\nplay:9C\n", out);
            } catch (java.io.IOException | InterruptedException err) {
                throw new AssertionError(err);
            }
        });
    }
}
