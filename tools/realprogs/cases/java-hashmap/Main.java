import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * java-hashmap is a reporting job that joins each batch of orders with the
 * customers they reference: it indexes the batch's customers by id, probes
 * the index with every order, converts currencies and aggregates revenue by
 * region and segment. The changed method is Join.index (before/ and after/
 * hold its two versions).
 */
public class Main {
    record Customer(long id, String region, String segment, double discount) {}

    record Order(long customer, long cents, String currency, int items) {}

    static final String[] REGIONS = {"emea", "amer", "apac", "latam"};
    static final String[] SEGMENTS = {"retail", "smb", "enterprise"};
    static final String[] CURRENCIES = {"EUR", "USD", "JPY", "GBP"};

    public static void main(String[] args) {
        int n = args.length > 1 && args[0].equals("-n") ? Integer.parseInt(args[1]) : 2500;
        Random r = new Random(5);
        List<List<Customer>> custBatches = new ArrayList<>();
        List<List<Order>> orderBatches = new ArrayList<>();
        for (int b = 0; b < 20; b++) {
            List<Customer> cs = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                cs.add(new Customer(1_000_000L * b + r.nextInt(900_000), REGIONS[r.nextInt(4)], SEGMENTS[r.nextInt(3)],
                        r.nextInt(20) / 100.0));
            }
            List<Order> os = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                os.add(new Order(cs.get(r.nextInt(cs.size())).id(), 100 + r.nextInt(100_000), CURRENCIES[r.nextInt(4)],
                        1 + r.nextInt(5)));
            }
            custBatches.add(cs);
            orderBatches.add(os);
        }
        Map<String, double[]> report = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Map<Long, Customer> byId = Join.index(custBatches.get(i % 20));
            aggregate(report, byId, orderBatches.get(i % 20));
        }
        System.out.println(render(report).length());
    }

    static double toEuro(long cents, String currency) {
        return switch (currency) {
            case "USD" -> cents * 0.92;
            case "JPY" -> cents * 0.0061;
            case "GBP" -> cents * 1.17;
            default -> cents;
        };
    }

    static void aggregate(Map<String, double[]> report, Map<Long, Customer> byId, List<Order> orders) {
        for (Order o : orders) {
            Customer c = byId.get(o.customer());
            if (c == null) {
                continue;
            }
            double net = toEuro(o.cents(), o.currency()) * (1 - c.discount());
            double[] acc = report.computeIfAbsent(c.region() + "/" + c.segment(), k -> new double[3]);
            acc[0] += net;
            acc[1] += o.items();
            acc[2]++;
        }
    }

    static String render(Map<String, double[]> report) {
        StringBuilder b = new StringBuilder();
        report.forEach((k, v) -> b.append(k).append(' ').append(Math.round(v[0] / 100)).append(' ').append(v[2]).append('\n'));
        return b.toString();
    }
}
