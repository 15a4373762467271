import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * java-noise is a log analyzer: it parses access-log lines, aggregates per
 * route and status, keeps latency samples, computes percentiles and renders
 * a report. The same classes run on both sides of a comparison: any
 * difference is noise.
 */
public class Main {
    static final class Stats {
        int count;
        int errors;
        long bytes;
        final List<Double> latencies = new ArrayList<>();
    }

    public static void main(String[] args) {
        int n = args.length > 1 && args[0].equals("-n") ? Integer.parseInt(args[1]) : 150;
        List<String> lines = makeLog(8000);
        long out = 0;
        for (int i = 0; i < n; i++) {
            Map<String, Stats> agg = new HashMap<>();
            for (String l : lines) {
                ingest(agg, l);
            }
            out += report(agg).length();
        }
        System.out.println("report bytes: " + out);
    }

    static List<String> makeLog(int k) {
        Random r = new Random(3);
        String[] paths = {"/", "/api/users/42", "/api/orders", "/static/app.js", "/api/search?q=x", "/login", "/api/items/7"};
        String[] methods = {"GET", "GET", "POST", "PUT"};
        int[] codes = {200, 200, 200, 304, 404, 500};
        List<String> out = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            out.add("10.0." + r.nextInt(256) + "." + r.nextInt(256) + " - - [07/Dec/2026:10:00:00 +0000] \""
                    + methods[r.nextInt(4)] + " " + paths[r.nextInt(paths.length)] + " HTTP/1.1\" "
                    + codes[r.nextInt(codes.length)] + " " + r.nextInt(50000) + " " + (r.nextInt(2000) / 1000.0));
        }
        return out;
    }

    static void ingest(Map<String, Stats> agg, String line) {
        int q1 = line.indexOf('"');
        int q2 = line.indexOf('"', q1 + 1);
        String[] req = line.substring(q1 + 1, q2).split(" ");
        String[] tail = line.substring(q2 + 2).split(" ");
        String key = req[0] + " " + routeOf(req[1]);
        Stats s = agg.computeIfAbsent(key, k -> new Stats());
        s.count++;
        if (tail[0].charAt(0) == '5') {
            s.errors++;
        }
        s.bytes += Long.parseLong(tail[1]);
        s.latencies.add(Double.parseDouble(tail[2]));
    }

    static String routeOf(String path) {
        int q = path.indexOf('?');
        if (q >= 0) {
            path = path.substring(0, q);
        }
        String[] parts = path.split("/");
        for (int i = 0; i < parts.length; i++) {
            if (!parts[i].isEmpty() && parts[i].chars().allMatch(Character::isDigit)) {
                parts[i] = ":id";
            }
        }
        return String.join("/", parts);
    }

    static String report(Map<String, Stats> agg) {
        List<String> keys = new ArrayList<>(agg.keySet());
        keys.sort(null);
        StringBuilder b = new StringBuilder();
        for (String k : keys) {
            Stats s = agg.get(k);
            s.latencies.sort(null);
            b.append(k).append(' ').append(s.count).append(' ').append(s.errors).append(' ').append(s.bytes)
                    .append(" p50=").append(s.latencies.get(s.latencies.size() / 2))
                    .append(" p99=").append(s.latencies.get((int) (0.99 * (s.latencies.size() - 1)))).append('\n');
        }
        return b.toString();
    }
}
