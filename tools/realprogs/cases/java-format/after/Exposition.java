/** Exposition renders series in the Prometheus text format. */
final class Exposition {
    private Exposition() { }

    /** writeSample renders one series as "name{labels} value timestamp". */
    static void writeSample(StringBuilder b, String name, String labels, long value, long ts) {
        b.append(String.format("%s{%s} %d %d%n", name, labels, value, ts));
    }
}
