package io.deltalite.peers;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * The deterministic change stream every system receives, and the table it must end as.
 *
 * <p>Rows are {@code (id BIGINT, day STRING, amount BIGINT, note STRING)}; {@code day} and {@code
 * note} are functions of the id and the amount, so the model only tracks one amount per key. The
 * same {@link Phase} with the same sizes always yields the same records in the same order: the
 * writer JVM feeds them to Flink, the reader JVM replays them to know what the table must hold.
 *
 * <p>Not thread-safe; one instance per source.
 */
final class Changelog {
    /** What a record does to its key. */
    enum Kind {
        INSERT,
        UPDATE,
        DELETE
    }

    /**
     * One record of the stream; {@code amount} is the row's new amount, or its last for deletes.
     */
    record Change(Kind kind, long id, long amount) {}

    /** Which part of which workload a job writes. */
    enum Phase {
        /** Workload 1 and 3, first job: keys {@code 0 .. bulk-1}, inserted in order. */
        BULK,
        /**
         * Workload 1 and 3, second job, on the bulk-loaded table: 40 % inserts of new keys, 50 %
         * updates and 10 % deletes of uniformly random live keys.
         */
        CDC,
        /**
         * Workload 2: an append stream of events partitioned by day, 5 % of records correcting one
         * of the last {@value #RECENT_EVENTS} events.
         */
        LATE_CORRECTIONS
    }

    static final int RECENT_EVENTS = 10_000;
    static final int CDC_DAYS = 30;

    private final Phase phase;
    private final long bulk;
    private final long eventsPerDay;
    private final SplittableRandom random;

    /** Amount of each key ever written, {@link #ABSENT} once deleted. */
    private final long[] amounts;

    /** The live keys, in no order (uniform sampling), and each key's index in it. */
    private final long[] live;

    private final int[] liveIndex;
    private int liveCount;
    private long nextId;
    private long emitted;

    private static final long ABSENT = Long.MIN_VALUE;

    /**
     * @param bulk keys loaded before {@link Phase#CDC} (its starting table)
     * @param records records this phase emits
     * @param eventsPerDay events of {@link Phase#LATE_CORRECTIONS} per day partition
     */
    Changelog(Phase phase, long bulk, long records, long eventsPerDay) {
        this.phase = phase;
        this.bulk = phase == Phase.LATE_CORRECTIONS ? 0 : bulk;
        this.eventsPerDay = eventsPerDay;
        this.random = new SplittableRandom(phase.ordinal() * 7919L + 42);
        long capacity = this.bulk + (phase == Phase.BULK ? 0 : records);
        if (capacity > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(capacity + " keys do not fit the model");
        }
        amounts = new long[(int) capacity];
        live = phase == Phase.CDC ? new long[(int) capacity] : new long[0];
        liveIndex = phase == Phase.CDC ? new int[(int) capacity] : new int[0];
        if (phase == Phase.CDC) {
            for (int id = 0; id < this.bulk; id++) {
                amounts[id] = bulkAmount(id);
                live[id] = id;
                liveIndex[id] = id;
            }
            liveCount = (int) this.bulk;
        }
        nextId = phase == Phase.BULK ? 0 : this.bulk;
    }

    /** The next record of the stream. */
    Change next() {
        emitted++;
        switch (phase) {
            case BULK:
                return new Change(Kind.INSERT, nextId, bulkAmount(nextId++));
            case CDC:
                int draw = random.nextInt(100);
                if (draw < 40 || liveCount == 0) {
                    long id = nextId++;
                    return insert(id);
                }
                long id = live[random.nextInt(liveCount)];
                if (draw < 90) {
                    return update(id);
                }
                removeLive(id);
                long last = amounts[(int) id];
                amounts[(int) id] = ABSENT;
                return new Change(Kind.DELETE, id, last);
            case LATE_CORRECTIONS:
                if (nextId > 0 && random.nextInt(100) < 5) {
                    long recent = Math.min(RECENT_EVENTS, nextId);
                    return update(nextId - 1 - random.nextLong(recent));
                }
                long event = nextId++;
                amounts[(int) event] = nextAmount();
                return new Change(Kind.INSERT, event, amounts[(int) event]);
            default:
                throw new AssertionError(phase);
        }
    }

    long emitted() {
        return emitted;
    }

    private Change insert(long id) {
        amounts[(int) id] = nextAmount();
        liveIndex[(int) id] = liveCount;
        live[liveCount++] = id;
        return new Change(Kind.INSERT, id, amounts[(int) id]);
    }

    private Change update(long id) {
        amounts[(int) id] = nextAmount();
        return new Change(Kind.UPDATE, id, amounts[(int) id]);
    }

    private void removeLive(long id) {
        int index = liveIndex[(int) id];
        long moved = live[--liveCount];
        live[index] = moved;
        liveIndex[(int) moved] = index;
    }

    private long nextAmount() {
        return random.nextLong(1_000_000_000L);
    }

    private static long bulkAmount(long id) {
        return (mix(id) >>> 1) % 1_000_000_000L;
    }

    /** The partition of a row: a day per {@code eventsPerDay} events, or a label for CDC rows. */
    String day(long id) {
        if (phase == Phase.LATE_CORRECTIONS) {
            return java.time.LocalDate.of(2026, 11, 1).plusDays(id / eventsPerDay).toString();
        }
        return "d" + (id % CDC_DAYS);
    }

    /** 24 letters that depend on the key and its amount (so a stale row is seen as wrong). */
    static String note(long id, long amount) {
        char[] letters = new char[24];
        long bits = mix(id * 1_000_003L + amount);
        for (int i = 0; i < letters.length; i++) {
            if (i % 12 == 0 && i > 0) {
                bits = mix(bits);
            }
            letters[i] = (char) ('a' + (int) ((bits >>> ((i % 12) * 5)) & 31) % 26);
        }
        return new String(letters);
    }

    /**
     * The table after the whole phase ({@link Phase#CDC} includes the bulk load it starts from):
     * its row count and {@link #checksum}.
     */
    TableReader.Scanned replayAll(long records) {
        while (emitted < records) {
            next();
        }
        TableReader.Tally tally = new TableReader.Tally();
        long keys = phase == Phase.BULK ? nextId : amounts.length;
        for (long id = 0; id < keys; id++) {
            long amount = phase == Phase.BULK ? bulkAmount(id) : amounts[(int) id];
            if (amount == ABSENT || (phase != Phase.BULK && id >= nextId)) {
                continue;
            }
            tally.add(id, day(id), amount, note(id, amount));
        }
        return tally.result();
    }

    /**
     * A row's share of the table's checksum: {@code id * 1000000007 + amount * 31 + crc32(note) +
     * crc32(day) * 7} over UTF-8 bytes (below 2^54 for ids below 2^24; the table's sum is exact,
     * see {@link TableReader.Tally}). Spark computes the same sum in SQL ({@link
     * SparkRead#CHECKSUM_SQL}).
     */
    static long checksumOf(long id, String day, long amount, String note) {
        return id * 1_000_000_007L + amount * 31 + crc32(note) + crc32(day) * 7;
    }

    private static long crc32(String text) {
        CRC32 crc = new CRC32();
        crc.update(text.getBytes(StandardCharsets.UTF_8));
        return crc.getValue();
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
