import java.util.regex.Pattern;

/** Validator checks user input; the e-mail pattern is compiled once. */
final class Validator {
    private static final Pattern EMAIL = Pattern.compile("^[a-zA-Z0-9._%+\\-]+@[a-zA-Z0-9.\\-]+\\.[a-zA-Z]{2,}$");

    private Validator() { }

    static boolean validEmail(String s) {
        return s.length() <= 254 && EMAIL.matcher(s).matches();
    }
}
