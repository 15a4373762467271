import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * java-regex replays a batch of sign-up requests the way a Java sign-up
 * endpoint handles them: parse the form, validate the addresses, normalize
 * the name, hash the password, score the risk, store the account and render
 * the response. The changed method is Validator.validEmail (before/ and
 * after/ hold its two versions).
 */
public class Main {
    record Signup(String name, String email, String country, String password, int age, List<String> invite) {}

    static final String[] FIRST = {"anna", "bjorn", "carla", "DMITRI", "eve", "francois", "gus", "hana"};
    static final String[] LAST = {"smith", "oneil", "garcia", "ng", "van der berg", "KOWALSKI"};
    static final String[] DOMAINS = {"example.com", "mail.example.org", "corp.test", "bad_domain", "x.io"};
    static final String[] COUNTRIES = {"DE", "FR", "US", "JP", "BR", "IN"};

    public static void main(String[] args) {
        int n = args.length > 1 && args[0].equals("-n") ? Integer.parseInt(args[1]) : 600_000;
        List<String> bodies = makeRequests(4000);
        Map<String, String> store = new HashMap<>();
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += handleSignup(bodies.get(i % bodies.size()), store).length();
            if (store.size() > 20000) {
                store.clear();
            }
        }
        System.out.println("response bytes: " + sum);
    }

    static List<String> makeRequests(int k) {
        Random r = new Random(42);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            String first = FIRST[r.nextInt(FIRST.length)];
            out.add("name=" + first + "+" + LAST[r.nextInt(LAST.length)]
                    + "&email=" + first.toLowerCase(Locale.ROOT) + "." + i + "@" + DOMAINS[r.nextInt(DOMAINS.length)]
                    + "&country=" + COUNTRIES[r.nextInt(COUNTRIES.length)]
                    + "&password=pw-" + Long.toHexString(r.nextLong())
                    + "&age=" + (14 + r.nextInt(70))
                    + "&invite=friend" + r.nextInt(1000) + "@" + DOMAINS[r.nextInt(DOMAINS.length)]
                    + "&invite=team" + r.nextInt(50) + "@" + DOMAINS[r.nextInt(DOMAINS.length)]);
        }
        return out;
    }

    static Signup parseForm(String body) {
        String name = "", email = "", country = "US", password = "";
        int age = 0;
        List<String> invite = new ArrayList<>(2);
        for (String kv : body.split("&")) {
            int eq = kv.indexOf('=');
            String k = kv.substring(0, eq);
            String v = kv.substring(eq + 1).replace('+', ' ');
            switch (k) {
                case "name" -> name = v;
                case "email" -> email = v;
                case "country" -> country = v;
                case "password" -> password = v;
                case "age" -> age = Integer.parseInt(v);
                case "invite" -> invite.add(v);
                default -> { }
            }
        }
        return new Signup(name, email, country, password, age, invite);
    }

    static String normalizeName(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (String w : s.trim().split(" +")) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(Character.toUpperCase(w.charAt(0))).append(w.substring(1).toLowerCase(Locale.ROOT));
        }
        return b.toString();
    }

    static long hashPassword(String pw, String salt) {
        long h = 0xcbf29ce484222325L;
        String s = pw + salt;
        for (int round = 0; round < 16; round++) {
            for (int i = 0; i < s.length(); i++) {
                h ^= s.charAt(i);
                h *= 0x100000001b3L;
            }
        }
        return h;
    }

    static int riskScore(Signup s) {
        int score = 0;
        if (s.email().endsWith(".io")) {
            score += 10;
        }
        if (s.age() < 21) {
            score += 5;
        }
        if (s.country().equals("BR") || s.country().equals("IN")) {
            score += 3;
        }
        return score;
    }

    static String render(String name, String email, int risk, long hash, int invited) {
        return "{\"status\":\"ok\",\"name\":\"" + name + "\",\"email\":\"" + email + "\",\"risk\":" + risk
                + ",\"id\":\"" + Long.toString(hash, 36) + "\",\"invited\":" + invited + "}";
    }

    static String handleSignup(String body, Map<String, String> store) {
        Signup s = parseForm(body);
        if (!Validator.validEmail(s.email())) {
            return "{\"status\":\"error\",\"message\":\"invalid email\"}";
        }
        if (s.age() < 16) {
            return "{\"status\":\"error\",\"message\":\"too young\"}";
        }
        int invited = 0;
        for (String e : s.invite()) {
            if (Validator.validEmail(e)) {
                invited++;
            }
        }
        String name = normalizeName(s.name());
        long hash = hashPassword(s.password(), s.email());
        int risk = riskScore(s);
        store.put(s.email(), name);
        return render(name, s.email(), risk, hash, invited);
    }
}
