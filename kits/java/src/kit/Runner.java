package kit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The loop between the referee and a bot: read a line, fold it into the state, answer requests.
 *
 * <p>PROTOCOL.md §1: one line per message, UTF-8, each answer flushed at once; the bot writes
 * nothing but its {@code ready} (or {@code decline}) and one action per request. Logging goes to
 * stderr. One process plays one match: when the referee closes stdin, the loop returns.
 */
public final class Runner {
    private final Bot bot;
    private final GameState state = new GameState();
    private final Consumer<String> log;

    public Runner(Bot bot) {
        this(bot, text -> System.err.println(bot.name() + ": " + text));
    }

    public Runner(Bot bot, Consumer<String> log) {
        this.bot = bot;
        this.log = log;
    }

    public GameState state() {
        return state;
    }

    /** The answer line to one message, or null when it asks for none (scriptable without a process). */
    public String answer(Message msg) {
        state.update(msg);
        if (msg instanceof Message.Hello hello) {
            if (hello.version() != 1) {
                log.accept("protocol version " + hello.version() + " is not 1; answering anyway");
            }
            if (hello.players() != 2 && !bot.supports(hello.players(), hello.profile())) {
                return Protocol.decline("does not support " + hello.profile());
            }
            return Protocol.ready(bot.name());
        }
        if (!(msg instanceof Message.Request request)) {
            return null;
        }
        Action chosen = null;
        try {
            chosen = bot.decide(state, request.actions());
        } catch (RuntimeException err) {
            log.accept("decide failed: " + err);
        }
        // Only an offered action, written exactly as offered, is legal (§4.1): fall back on one.
        if (chosen != null) {
            for (Action a : request.actions()) {
                if (a.text().equals(chosen.text())) {
                    return a.text();
                }
            }
            log.accept("decide returned " + chosen + ", not one of the offered actions");
        }
        return fallback(request).text();
    }

    private static Action fallback(Message.Request request) {
        Action pass = SampleBot.find(request.actions(), Action.Kind.PASS);
        if (pass != null) {
            return pass;
        }
        for (Action a : request.actions()) {
            if (a.kind() != Action.Kind.UNKNOWN && a.kind() != Action.Kind.CLAIM) {
                return a;
            }
        }
        return request.actions().get(0);
    }

    /** Play one match: read lines until the input closes. */
    public void run(InputStream in, OutputStream out) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        PrintStream writer = new PrintStream(out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = reader.readLine()) != null) { // readLine drops the "\n" and a "\r" before it
            Message msg;
            try {
                msg = Protocol.parse(line);
            } catch (ProtocolException err) {
                log.accept("ignored a line I cannot read: " + err.getMessage());
                continue;
            }
            String reply = answer(msg);
            if (reply != null) {
                writer.print(reply + "\n");
                writer.flush(); // unflushed output has not been sent, and the clock runs
            }
        }
    }
}
