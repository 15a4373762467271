/** Exposition renders series in the Prometheus text format. */
final class Exposition {
    private Exposition() { }

    /** writeSample renders one series as "name{labels} value timestamp". */
    static void writeSample(StringBuilder b, String name, String labels, long value, long ts) {
        b.append(name).append('{').append(labels).append("} ").append(value).append(' ').append(ts).append('\n');
    }
}
