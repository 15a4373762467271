import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Join builds the hash side of a join. */
final class Join {
    private Join() { }

    /** index maps each customer's id to the customer; the map is sized for the batch, so it never resizes. */
    static Map<Long, Main.Customer> index(List<Main.Customer> customers) {
        Map<Long, Main.Customer> byId = new HashMap<>(customers.size() * 4 / 3 + 1);
        for (Main.Customer c : customers) {
            byId.put(c.id(), c);
        }
        return byId;
    }
}
