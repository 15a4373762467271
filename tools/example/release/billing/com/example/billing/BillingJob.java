// BillingJob: the billing component of the release example (see
// tools/example/release/README.md). It prices batches of orders the way a
// billing service does: normalize SKUs, look up prices, compute tax and
// totals with BigDecimal, render invoice lines.
//
//   java com.example.billing.BillingJob old|new [batches]
//
// The "new" version carries one known, injected slowdown: SkuNormalizer
// calls String.replaceAll, which compiles its regular expression on every
// call, instead of reusing a precompiled Pattern.
package com.example.billing;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

public final class BillingJob {
    public static void main(String[] args) {
        if (args.length < 1 || !(args[0].equals("old") || args[0].equals("new"))) {
            System.err.println("usage: java com.example.billing.BillingJob old|new [batches]");
            System.exit(2);
        }
        boolean slow = args[0].equals("new");
        int batches = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        InvoiceService service = new InvoiceService(new Catalogue(), new SkuNormalizer(slow));
        long checksum = 0;
        for (int b = 0; b < batches; b++) {
            for (Order o : Orders.batch(b)) {
                checksum += service.invoice(o).hashCode();
            }
        }
        System.out.println(args[0] + ": " + batches + " batches, checksum " + checksum);
    }
}

final class Order {
    final String region;
    final List<String> skus = new ArrayList<>();
    final List<Integer> quantities = new ArrayList<>();

    Order(String region) {
        this.region = region;
    }
}

final class Orders {
    private static final String[] REGIONS = {"DE", "FR", "US-CA", "US-NY", "JP"};

    static List<Order> batch(int seed) {
        List<Order> out = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Order o = new Order(REGIONS[(seed + i) % REGIONS.length]);
            for (int j = 0; j < 8; j++) {
                int n = (seed * 31 + i * 17 + j * 7) % 997;
                o.skus.add(" sku-" + (n % 40) + "/" + (char) ('a' + n % 26) + " ");
                o.quantities.add(1 + n % 5);
            }
            out.add(o);
        }
        return out;
    }
}

final class SkuNormalizer {
    private static final Pattern NOT_ALNUM = Pattern.compile("[^A-Z0-9]");
    private final boolean slow;

    SkuNormalizer(boolean slow) {
        this.slow = slow;
    }

    String normalize(String sku) {
        String upper = sku.toUpperCase();
        if (slow) {
            return upper.replaceAll("[^A-Z0-9]", "");
        }
        return NOT_ALNUM.matcher(upper).replaceAll("");
    }
}

final class Catalogue {
    private final Map<String, BigDecimal> prices = new HashMap<>();

    Catalogue() {
        for (int n = 0; n < 40; n++) {
            for (char c = 'A'; c <= 'Z'; c++) {
                prices.put("SKU" + n + c, BigDecimal.valueOf(199 + n * 37 + c, 2));
            }
        }
    }

    BigDecimal price(String sku) {
        BigDecimal p = prices.get(sku);
        return p != null ? p : BigDecimal.ONE;
    }
}

final class InvoiceService {
    private static final Map<String, BigDecimal> TAX = Map.of(
            "DE", new BigDecimal("0.19"), "FR", new BigDecimal("0.20"),
            "US-CA", new BigDecimal("0.0725"), "US-NY", new BigDecimal("0.04"), "JP", new BigDecimal("0.10"));
    private final Catalogue catalogue;
    private final SkuNormalizer normalizer;

    InvoiceService(Catalogue catalogue, SkuNormalizer normalizer) {
        this.catalogue = catalogue;
        this.normalizer = normalizer;
    }

    String invoice(Order o) {
        StringBuilder sb = new StringBuilder();
        BigDecimal total = BigDecimal.ZERO;
        for (int i = 0; i < o.skus.size(); i++) {
            String sku = normalizer.normalize(o.skus.get(i));
            BigDecimal line = catalogue.price(sku).multiply(BigDecimal.valueOf(o.quantities.get(i)));
            total = total.add(line);
            sb.append(renderLine(sku, o.quantities.get(i), line));
        }
        BigDecimal tax = total.multiply(TAX.get(o.region)).setScale(2, RoundingMode.HALF_EVEN);
        sb.append(String.format("total %s tax %s%n", total.toPlainString(), tax.toPlainString()));
        return sb.toString();
    }

    private static String renderLine(String sku, int qty, BigDecimal amount) {
        StringBuilder sb = new StringBuilder(sku);
        while (sb.length() < 12) {
            sb.append(' ');
        }
        return sb.append(' ').append(qty).append(' ').append(amount.setScale(2, RoundingMode.HALF_EVEN).toPlainString()).append('\n').toString();
    }
}
