import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * java-format is a metrics exporter: between scrapes it folds request events
 * into counters and histograms, and on each scrape it renders every series in
 * the Prometheus text format. The changed method is Exposition.writeSample
 * (before/ and after/ hold its two versions).
 */
public class Main {
    static final String[] ROUTES = {"/api/v1/users", "/api/v1/orders", "/api/v1/search", "/healthz", "/api/v1/cart",
        "/api/v1/items", "/login", "/logout"};
    static final long[] BOUNDS = {50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000};

    record Event(int route, int status, long micros, long bytes) {}

    record Series(String name, String labels, long value) {}

    static final class Histogram {
        final long[] buckets = new long[BOUNDS.length + 1];
        long sum;
        long count;

        void observe(long v) {
            int i = 0;
            while (i < BOUNDS.length && v > BOUNDS[i]) {
                i++;
            }
            buckets[i]++;
            sum += v;
            count++;
        }
    }

    static final Map<Long, Long> REQUESTS = new HashMap<>();
    static final Map<Integer, Long> BYTES = new HashMap<>();
    static final Map<Integer, Histogram> LATENCY = new HashMap<>();

    public static void main(String[] args) {
        int n = args.length > 1 && args[0].equals("-n") ? Integer.parseInt(args[1]) : 2500;
        List<Event> events = makeEvents(14000);
        long total = 0;
        for (int i = 0; i < n; i++) {
            ingest(events);
            total += scrape().length();
        }
        System.out.println("bytes rendered: " + total);
    }

    static List<Event> makeEvents(int k) {
        Random r = new Random(7);
        int[] codes = {200, 200, 200, 201, 204, 301, 400, 404, 500};
        List<Event> out = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            out.add(new Event(r.nextInt(ROUTES.length), codes[r.nextInt(codes.length)],
                    (long) (-Math.log(1 - r.nextDouble()) * 3000), r.nextInt(65536)));
        }
        return out;
    }

    static void ingest(List<Event> events) {
        for (Event e : events) {
            REQUESTS.merge(((long) e.route() << 32) | e.status(), 1L, Long::sum);
            BYTES.merge(e.route(), e.bytes(), Long::sum);
            LATENCY.computeIfAbsent(e.route(), k -> new Histogram()).observe(e.micros());
        }
    }

    static String labels(String... kv) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i + 1 < kv.length; i += 2) {
            if (i > 0) {
                b.append(',');
            }
            b.append(kv[i]).append("=\"").append(kv[i + 1].replace("\"", "\\\"")).append('"');
        }
        return b.toString();
    }

    static List<Series> collect() {
        List<Series> out = new ArrayList<>(256);
        REQUESTS.forEach((k, v) -> out.add(new Series("http_requests_total",
                labels("route", ROUTES[(int) (k >> 32)], "code", Integer.toString((int) (long) k)), v)));
        BYTES.forEach((r, v) -> out.add(new Series("http_response_bytes_total", labels("route", ROUTES[r]), v)));
        LATENCY.forEach((r, h) -> {
            long cum = 0;
            for (int i = 0; i < h.buckets.length; i++) {
                cum += h.buckets[i];
                String le = i < BOUNDS.length ? Long.toString(BOUNDS[i]) : "+Inf";
                out.add(new Series("http_request_duration_us_bucket", labels("route", ROUTES[r], "le", le), cum));
            }
            out.add(new Series("http_request_duration_us_sum", labels("route", ROUTES[r]), h.sum));
            out.add(new Series("http_request_duration_us_count", labels("route", ROUTES[r]), h.count));
        });
        out.sort((a, b) -> {
            int c = a.name().compareTo(b.name());
            return c != 0 ? c : a.labels().compareTo(b.labels());
        });
        return out;
    }

    static String scrape() {
        StringBuilder b = new StringBuilder(32 << 10);
        String last = "";
        for (Series s : collect()) {
            if (!s.name().equals(last)) {
                b.append("# TYPE ").append(s.name()).append(s.name().endsWith("_total") ? " counter\n" : " histogram\n");
                last = s.name();
            }
            Exposition.writeSample(b, s.name(), s.labels(), s.value(), 1733600000000L);
        }
        return b.toString();
    }
}
