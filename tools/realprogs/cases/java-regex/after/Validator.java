import java.util.regex.Pattern;

/** Validator checks user input; the e-mail pattern is compiled on every call. */
final class Validator {
    private Validator() { }

    static boolean validEmail(String s) {
        return s.length() <= 254 && s.matches("^[a-zA-Z0-9._%+\\-]+@[a-zA-Z0-9.\\-]+\\.[a-zA-Z]{2,}$");
    }
}
