package kit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Lines to messages and back (protocol/PROTOCOL.md). {@link #parse} reads one referee line: a first
 * word version 1 does not define is {@link Message.Unknown}; a known word with bad arguments throws
 * {@link ProtocolException}. {@link #format} writes any message as its line, without the newline.
 * A bot itself writes only {@link #ready}, {@link #decline} and the text of one offered action.
 */
public final class Protocol {
    public static final String NAME = "sixtysix";
    public static final int MAX_LINE_BYTES = 1024; // §1, not counting the newline
    public static final Set<String> DECISIONS =
            Set.of("lead", "follow", "after_trick", "close_exchange", "between_tricks");
    private static final Pattern BOT_NAME = Pattern.compile("[A-Za-z0-9_.+-]{1,64}");
    private static final Pattern COUNT = Pattern.compile("0|[1-9][0-9]*");

    private Protocol() { }

    // -- reading ------------------------------------------------------------------------------

    /** A cursor over the words after the first, with errors that name the message. */
    private static final class Words {
        final String first;
        final String[] rest;
        int pos;

        Words(String first, String[] rest) {
            this.first = first;
            this.rest = rest;
        }

        ProtocolException error(String reason) {
            return new ProtocolException(first + ": " + reason);
        }

        boolean more() {
            return pos < rest.length;
        }

        String peek() {
            return more() ? rest[pos] : null;
        }

        String word(String what) {
            if (!more()) {
                throw error("missing " + what);
            }
            return rest[pos++];
        }

        void keyword(String expected) {
            String word = word("'" + expected + "'");
            if (!word.equals(expected)) {
                throw error("expected '" + expected + "', got '" + word + "'");
            }
        }

        int count(String what) {
            String word = word(what);
            if (!COUNT.matcher(word).matches() || word.length() > 9) {
                throw error(what + " must be a whole number, got '" + word + "'");
            }
            return Integer.parseInt(word);
        }

        Card card(String what) {
            String word = word(what);
            try {
                return Card.parse(word);
            } catch (ProtocolException err) {
                throw error(what + ": " + err.getMessage());
            }
        }

        Suit suit() {
            try {
                return Suit.parse(word("suit"));
            } catch (ProtocolException err) {
                throw error(err.getMessage());
            }
        }

        Who who(String what) {
            try {
                return Who.parse(word(what));
            } catch (ProtocolException err) {
                throw error(what + ": " + err.getMessage());
            }
        }

        Who whoOrNone(String what) {
            if ("none".equals(peek())) {
                pos++;
                return null;
            }
            return who(what);
        }

        /** Whole numbers up to {@code stop} (or the end of the line): one per side (§9). */
        List<Integer> countsUntil(String what, String stop) {
            List<Integer> out = new ArrayList<>();
            while (more() && !peek().equals(stop)) {
                out.add(count(what));
            }
            if (out.isEmpty()) {
                throw error("missing " + what);
            }
            return List.copyOf(out);
        }

        void end() {
            if (more()) {
                throw error("unexpected words: '" + String.join(" ", List.of(rest).subList(pos, rest.length)) + "'");
            }
        }
    }

    /** One referee line (a trailing "\n" and a "\r" before it are dropped, §1) as a message. */
    public static Message parse(String line) {
        String text = line.endsWith("\n") ? line.substring(0, line.length() - 1) : line;
        if (text.endsWith("\r")) {
            text = text.substring(0, text.length() - 1);
        }
        String[] words = text.split(" ", -1);
        String first = words[0];
        boolean request = first.endsWith("?") && DECISIONS.contains(first.substring(0, first.length() - 1));
        if (!request && !KNOWN.contains(first)) {
            return new Message.Unknown(text);
        }
        for (String w : words) {
            if (w.isEmpty()) {
                throw new ProtocolException("words must be separated by single spaces: '" + text + "'");
            }
        }
        Words w = new Words(first, java.util.Arrays.copyOfRange(words, 1, words.length));
        Message msg = request ? request(w) : parseKnown(w);
        w.end();
        return msg;
    }

    private static final Set<String> KNOWN = Set.of(NAME, "match", "rules", "deal", "played", "trick",
            "marriage", "exchange", "close", "draw", "claim", "settle", "match_end");

    private static Message parseKnown(Words w) {
        switch (w.first) {
            case NAME: return hello(w);
            case "match": return match(w);
            case "rules": return rules(w);
            case "deal": return deal(w);
            case "played": return new Message.Played(w.who("who"), w.card("card"));
            case "trick": return trick(w);
            case "marriage": return new Message.Marriage(w.who("who"), w.suit(), w.count("points"));
            case "exchange": return new Message.Exchange(w.who("who"), w.card("card taken"), w.card("card given"));
            case "close": return new Message.Close(w.who("who"));
            case "draw": {
                Who who = w.who("who");
                return new Message.Draw(who, w.more() ? w.card("card") : null);
            }
            case "claim": return new Message.Claim(w.who("who"));
            case "settle": return settle(w);
            case "match_end": return matchEnd(w);
            default: throw w.error("not a message"); // KNOWN and this switch list the same words
        }
    }

    private static Message hello(Words w) {
        int version = w.count("version");
        if (!w.more()) {
            return new Message.Hello(version, 2, null);
        }
        w.keyword("players"); // §9.1
        int players = w.count("players");
        w.keyword("profile");
        return new Message.Hello(version, players, w.word("profile"));
    }

    private static Message match(Words w) {
        // §3 and §9.2, read as keyword/value pairs: a word a newer referee adds goes to `extra`.
        String matchId = w.word("match id");
        String profile = null;
        String opponent = null;
        int target = 0;
        int seat = 0;
        int players = 2;
        int decisionMs = 0;
        List<String> names = new ArrayList<>();
        Map<String, String> extra = new LinkedHashMap<>();
        while (w.more()) {
            String key = w.word("key");
            switch (key) {
                case "profile" -> profile = w.word("profile");
                case "target" -> target = w.count("target");
                case "seat" -> seat = w.count("seat");
                case "players" -> players = w.count("players");
                case "opponent" -> opponent = w.word("opponent");
                case "decision_ms" -> decisionMs = w.count("decision_ms");
                case "names" -> {
                    while (w.more() && !w.peek().equals("decision_ms")) {
                        names.add(w.word("name"));
                    }
                }
                default -> extra.put(key, w.word(key));
            }
        }
        if (profile == null) {
            throw w.error("missing profile");
        }
        return new Message.MatchStart(matchId, profile, target, seat, players, opponent,
                List.copyOf(names), decisionMs, extra);
    }

    private static Message rules(Words w) {
        Map<String, String> flags = new LinkedHashMap<>();
        while (w.more()) {
            String word = w.word("flag");
            int eq = word.indexOf('=');
            if (eq <= 0) {
                throw w.error("'" + word + "' is not <flag>=<value>");
            }
            flags.put(word.substring(0, eq), word.substring(eq + 1));
        }
        return new Message.Rules(flags);
    }

    private static Message deal(Words w) {
        int dealNo = w.count("deal number");
        w.keyword("dealer");
        Who dealer = w.who("dealer");
        w.keyword("upcard");
        Card upcard = w.card("upcard");
        w.keyword("stock");
        int stock = w.count("stock");
        w.keyword("hand");
        List<Card> hand = new ArrayList<>();
        while (w.more() && !w.peek().equals("score")) {
            hand.add(w.card("card of the hand"));
        }
        w.keyword("score");
        List<Integer> score = w.countsUntil("score", "pot");
        w.keyword("pot");
        return new Message.Deal(dealNo, dealer, upcard, stock, List.copyOf(hand), score, w.count("pot"));
    }

    private static Message request(Words w) {
        List<Action> actions = new ArrayList<>();
        while (w.more()) {
            actions.add(Action.parse(w.word("action")));
        }
        if (actions.isEmpty()) {
            throw w.error("a request lists at least one action");
        }
        return new Message.Request(w.first.substring(0, w.first.length() - 1), List.copyOf(actions));
    }

    private static Message trick(Words w) {
        Who who = w.who("who");
        List<Card> cards = new ArrayList<>();
        cards.add(w.card("led card"));
        cards.add(w.card("followed card"));
        while (w.more()) {
            cards.add(w.card("card of the trick")); // §9: 3 or 4 cards
        }
        return new Message.Trick(who, List.copyOf(cards));
    }

    private static Message settle(Words w) {
        w.keyword("winner");
        Who winner = w.whoOrNone("winner");
        w.keyword("reason");
        String reason = w.word("reason");
        w.keyword("points");
        int points = w.count("points");
        w.keyword("awarded");
        List<Integer> awarded = w.countsUntil("awarded", "totals"); // one number with two players
        w.keyword("totals");
        List<Integer> totals = w.countsUntil("totals", "tricks");
        w.keyword("tricks");
        List<Integer> tricks = w.countsUntil("tricks", "score");
        w.keyword("score");
        List<Integer> score = w.countsUntil("score", "pot");
        w.keyword("pot");
        int pot = w.count("pot");
        List<Card> dead = List.of();
        if (w.more()) { // §9.4: three players show the dead pile
            w.keyword("dead");
            dead = List.of(w.card("dead card"), w.card("dead card"));
        }
        return new Message.Settle(winner, reason, points, awarded, totals, tricks, score, pot, dead);
    }

    private static Message matchEnd(Words w) {
        w.keyword("winner");
        Who winner = w.whoOrNone("winner");
        w.keyword("reason");
        String reason = w.word("reason");
        w.keyword("score");
        List<Integer> score = w.countsUntil("score", "fault");
        if (!w.more()) {
            return new Message.MatchEnd(winner, reason, score, null, null);
        }
        w.keyword("fault");
        String fault = w.word("fault");
        w.keyword("by");
        return new Message.MatchEnd(winner, reason, score, fault, w.who("offender"));
    }

    // -- writing ------------------------------------------------------------------------------

    /** The answer to the greeting (§3). */
    public static String ready(String name) {
        if (!BOT_NAME.matcher(name).matches()) {
            throw new ProtocolException("bad bot name '" + name + "': 1 to 64 of A-Z a-z 0-9 _ . + -");
        }
        return "ready " + name;
    }

    /** The answer to a three- or four-player greeting the bot does not play (§9.1). */
    public static String decline(String text) {
        String clean = text.replaceAll("[^\\x20-\\x7e]", "").trim().replaceAll(" +", " ");
        return clean.isEmpty() ? "decline" : "decline " + clean;
    }

    private static String join(List<?> items) {
        return items.stream().map(Object::toString).collect(Collectors.joining(" "));
    }

    private static String orNone(Who who) {
        return who == null ? "none" : who.toString();
    }

    /** Any message as its line, without the newline: {@code parse(format(m)).equals(m)}. */
    public static String format(Message msg) {
        if (msg instanceof Message.Hello m) {
            return m.profile() == null ? NAME + " " + m.version()
                    : NAME + " " + m.version() + " players " + m.players() + " profile " + m.profile();
        } else if (msg instanceof Message.MatchStart m) {
            StringBuilder extra = new StringBuilder();
            m.extra().forEach((k, v) -> extra.append(' ').append(k).append(' ').append(v));
            if (m.opponent() != null) {
                return "match " + m.matchId() + " profile " + m.profile() + " target " + m.target()
                        + " seat " + m.seat() + " opponent " + m.opponent() + " decision_ms "
                        + m.decisionMs() + extra;
            }
            return "match " + m.matchId() + " profile " + m.profile() + " target " + m.target()
                    + " players " + m.players() + " seat " + m.seat() + " names " + String.join(" ", m.names())
                    + " decision_ms " + m.decisionMs() + extra;
        } else if (msg instanceof Message.Rules m) {
            StringBuilder line = new StringBuilder("rules");
            m.flags().forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
            return line.toString();
        } else if (msg instanceof Message.Deal m) {
            return "deal " + m.dealNo() + " dealer " + m.dealer() + " upcard " + m.upcard() + " stock "
                    + m.stock() + " hand " + join(m.hand()) + " score " + join(m.score()) + " pot " + m.pot();
        } else if (msg instanceof Message.Request m) {
            return m.decision() + "? " + join(m.actions());
        } else if (msg instanceof Message.Played m) {
            return "played " + m.who() + " " + m.card();
        } else if (msg instanceof Message.Trick m) {
            return "trick " + m.who() + " " + join(m.cards());
        } else if (msg instanceof Message.Marriage m) {
            return "marriage " + m.who() + " " + m.suit() + " " + m.points();
        } else if (msg instanceof Message.Exchange m) {
            return "exchange " + m.who() + " " + m.took() + " " + m.gave();
        } else if (msg instanceof Message.Close m) {
            return "close " + m.who();
        } else if (msg instanceof Message.Draw m) {
            return m.card() == null ? "draw " + m.who() : "draw " + m.who() + " " + m.card();
        } else if (msg instanceof Message.Claim m) {
            return "claim " + m.who();
        } else if (msg instanceof Message.Settle m) {
            String line = "settle winner " + orNone(m.winner()) + " reason " + m.reason() + " points "
                    + m.points() + " awarded " + join(m.awarded()) + " totals " + join(m.totals())
                    + " tricks " + join(m.tricks()) + " score " + join(m.score()) + " pot " + m.pot();
            return m.dead().isEmpty() ? line : line + " dead " + join(m.dead());
        } else if (msg instanceof Message.MatchEnd m) {
            String line = "match_end winner " + orNone(m.winner()) + " reason " + m.reason() + " score "
                    + join(m.score());
            return m.fault() == null ? line : line + " fault " + m.fault() + " by " + m.by();
        } else if (msg instanceof Message.Unknown m) {
            return m.line();
        }
        throw new IllegalArgumentException("not a protocol message: " + msg);
    }
}
