package io.deltalite.examples;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What happens to each order in each round of the example's CDC stream, computed from the record
 * index alone so that a restarted source produces exactly the same changes. Plain Java, without
 * Flink types, so that a test in another JVM can compute the expected table; {@link OrderChanges}
 * turns it into Flink rows.
 *
 * <p>In round 0 every order is inserted into one of eight day partitions. In each later round every
 * order is visited once, in a shuffled order: a live order is updated in place (-U/+U), moved to
 * another day (-U in the old partition, +U in the new one), deleted (-D) or left alone; a deleted
 * order may be inserted again. Each visit occupies two slots (before and after); a slot with
 * nothing to say is empty.
 *
 * <p>Values are as the sink writes them: order_id {@link Long}, day {@link Integer} days since
 * 1970-01-01, customer {@link String}, amount {@link BigDecimal} with scale 2, status {@link
 * String}, updated_at {@link Long} microseconds since the epoch.
 */
public final class OrderTimeline implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final long PERMUTATION = 7_919;
    private static final LocalDate FIRST_DAY = LocalDate.of(2024, 6, 1);
    private static final int DAYS = 8;

    /** The kind of a change, named as Flink's {@code RowKind}. */
    public enum Kind {
        INSERT,
        UPDATE_BEFORE,
        UPDATE_AFTER,
        DELETE
    }

    /** One change of one order: its kind and the row it carries, in table-column order. */
    public record Change(Kind kind, Object[] values) {}

    private final int orders;
    private final int rounds;

    public OrderTimeline(int orders, int rounds) {
        if (orders <= 0 || rounds <= 0 || gcd(PERMUTATION, orders) != 1) {
            throw new IllegalArgumentException(
                    "orders must be positive and coprime to "
                            + PERMUTATION
                            + ", rounds positive; got "
                            + orders
                            + " orders in "
                            + rounds
                            + " rounds");
        }
        this.orders = orders;
        this.rounds = rounds;
    }

    /** The number of slots: two per order and round, empty ones included. */
    public long size() {
        return 2L * orders * rounds;
    }

    /** The change in slot {@code index}, or nothing. */
    public Optional<Change> change(long index) {
        int round = (int) (index / (2L * orders));
        long position = (index / 2) % orders;
        boolean after = index % 2 == 1;
        long order = (position * PERMUTATION + round * 31L) % orders;
        OrderState before = stateBefore(order, round);
        Action action = action(order, round, before);
        switch (action) {
            case INSERT:
                return after
                        ? change(Kind.INSERT, order, round, newDay(order, round))
                        : Optional.empty();
            case UPDATE:
                return after
                        ? change(Kind.UPDATE_AFTER, order, round, before.day)
                        : change(Kind.UPDATE_BEFORE, order, before.round, before.day);
            case MOVE:
                return after
                        ? change(
                                Kind.UPDATE_AFTER, order, round, movedDay(order, round, before.day))
                        : change(Kind.UPDATE_BEFORE, order, before.round, before.day);
            case DELETE:
                return after
                        ? Optional.empty()
                        : change(Kind.DELETE, order, before.round, before.day);
            default:
                return Optional.empty();
        }
    }

    /** The table the whole stream must produce, by order id. */
    public Map<Long, Object[]> expectedTable() {
        Map<Long, Object[]> table = new HashMap<>();
        for (long order = 0; order < orders; order++) {
            OrderState state = stateBefore(order, rounds);
            if (state.alive) {
                table.put(order, values(order, state.round, state.day));
            }
        }
        return table;
    }

    private enum Action {
        INSERT,
        UPDATE,
        MOVE,
        DELETE,
        NONE
    }

    private record OrderState(boolean alive, int day, int round) {}

    private OrderState stateBefore(long order, int round) {
        OrderState state = new OrderState(false, -1, -1);
        for (int r = 0; r < round; r++) {
            state =
                    switch (action(order, r, state)) {
                        case INSERT -> new OrderState(true, newDay(order, r), r);
                        case UPDATE -> new OrderState(true, state.day, r);
                        case MOVE -> new OrderState(true, movedDay(order, r, state.day), r);
                        case DELETE -> new OrderState(false, -1, r);
                        case NONE -> state;
                    };
        }
        return state;
    }

    private static Action action(long order, int round, OrderState state) {
        if (round == 0) {
            return Action.INSERT;
        }
        int dice = (int) (hash(order, round) % 100);
        if (!state.alive) {
            return dice < 50 ? Action.INSERT : Action.NONE;
        }
        if (dice < 55) {
            return Action.UPDATE;
        }
        if (dice < 70) {
            return Action.MOVE;
        }
        return dice < 85 ? Action.DELETE : Action.NONE;
    }

    private static int newDay(long order, int round) {
        return (int) (hash(order, round + 1000) % DAYS);
    }

    private static int movedDay(long order, int round, int day) {
        return (int) ((day + 1 + hash(order, round + 2000) % (DAYS - 1)) % DAYS);
    }

    private static Optional<Change> change(Kind kind, long order, int round, int day) {
        return Optional.of(new Change(kind, values(order, round, day)));
    }

    /** order_id, day (days since epoch), customer, amount, status, updated_at (micros). */
    private static Object[] values(long order, int round, int day) {
        long h = hash(order, round + 3000);
        return new Object[] {
            order,
            (int) FIRST_DAY.plusDays(day).toEpochDay(),
            "customer-" + (order % 997),
            BigDecimal.valueOf(h % 10_000_000, 2),
            round == 0 ? "created" : (h % 2 == 0 ? "paid" : "shipped"),
            1_717_200_000_000_000L + round * 3_600_000_000L + order * 1_000L
        };
    }

    private static long hash(long order, int salt) {
        long x = order * 0x9E3779B97F4A7C15L + salt * 0xC2B2AE3D27D4EB4FL;
        x ^= x >>> 31;
        x *= 0xBF58476D1CE4E5B9L;
        x ^= x >>> 29;
        return x & Long.MAX_VALUE;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
