import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Join builds the hash side of a join. */
final class Join {
    private Join() { }

    /** index maps each customer's id to the customer. */
    static Map<Long, Main.Customer> index(List<Main.Customer> customers) {
        Map<Long, Main.Customer> byId = new HashMap<>();
        for (Main.Customer c : customers) {
            byId.put(c.id(), c);
        }
        return byId;
    }
}
