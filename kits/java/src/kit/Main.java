package kit;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;

/** The sample bot as a program: {@code java -cp classes kit.Main [NAME]} plays one match. */
public final class Main {
    /** Rounds of {@link Warmup} before the greeting: enough for the client compiler's first pass. */
    private static final int WARMUP_ROUNDS = 3;

    private Main() { }

    public static void main(String[] args) throws IOException {
        String name = args.length > 0 ? args[0] : "kit-java";
        Warmup.run(() -> new SampleBot(name), WARMUP_ROUNDS);
        // Straight to the file descriptor: System.out would add a buffer of its own.
        new Runner(new SampleBot(name)).run(System.in, new FileOutputStream(FileDescriptor.out));
    }
}
