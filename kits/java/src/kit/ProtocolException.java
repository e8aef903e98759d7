package kit;

/** A line that breaks protocol/PROTOCOL.md. */
public class ProtocolException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public ProtocolException(String message) {
        super(message);
    }
}
