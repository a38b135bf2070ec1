package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.sink.Distribution;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.RowData;

/**
 * Checks, for a sink distributed by key, that each record reached the writer its primary key is
 * routed to. Writers that share partitions are correct only because no two of them ever see the
 * same key: a record that arrives elsewhere (an input that was not keyed by the sink, a partitioner
 * changed in between) would leave two rows for one key, so it fails the job instead.
 */
final class KeyRouting {
    private final ColumnValuesKeySelector keys;
    private final int maxParallelism;
    private final int parallelism;
    private final int subtask;
    private final String location;

    private KeyRouting(SinkConfig config, WriterSlot slot) {
        this.keys = SinkTopology.keySelector(config);
        this.maxParallelism = slot.keyGroups();
        this.parallelism = slot.parallelism();
        this.subtask = slot.subtask();
        this.location = config.location();
    }

    /** The check for a writer of {@code config}, or null when records are not keyed by key. */
    static KeyRouting of(SinkConfig config, WriterSlot slot) {
        if (config.distribution() != Distribution.KEY
                || config.definition().primaryKey().isEmpty()) {
            return null;
        }
        return new KeyRouting(config, slot);
    }

    /**
     * The writer a record of {@code config} goes to when the sink is distributed by key: of {@code
     * parallelism} writers, its keys hashed into {@code keyGroups} groups.
     */
    static java.util.function.ToIntFunction<RowData> writerOfKey(
            SinkConfig config, int keyGroups, int parallelism) {
        ColumnValuesKeySelector keys = SinkTopology.keySelector(config);
        return row ->
                KeyGroupRangeAssignment.assignKeyToParallelOperator(
                        keys.getKey(row), keyGroups, parallelism);
    }

    /**
     * The part of each partition's changes the writer of {@code task} handles: whole partitions, or
     * the key groups Flink routes to it when the sink is distributed by key.
     */
    static WriterShare share(SinkConfig config, WriterSlot slot) {
        if (config.distribution() != Distribution.KEY) {
            return WriterShare.WHOLE_PARTITIONS;
        }
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        slot.keyGroups(), slot.parallelism(), slot.subtask());
        return WriterShare.keysIn(
                new KeyGroups(
                        scheme(config),
                        range.getStartKeyGroup(),
                        range.getEndKeyGroup(),
                        slot.keyGroups()));
    }

    /**
     * How this sink hashes keys into key groups: its primary-key columns with their input types
     * (the key's text depends on them: an INT 5 reads "5", a DOUBLE 5 "5.0"), through {@link
     * ColumnValuesKeySelector} and Flink's key-group assignment. A table without a key is spread
     * over the writers at random: its ranges only tell which writer wrote a file.
     */
    static String scheme(SinkConfig config) {
        StringBuilder scheme = new StringBuilder("deltalite key routing 1");
        List<String> names = config.rowType().getFieldNames();
        for (String column : config.definition().primaryKey()) {
            for (int i = 0; i < names.size(); i++) {
                if (names.get(i).equalsIgnoreCase(column)) {
                    scheme.append('|')
                            .append(column.toLowerCase(Locale.ROOT))
                            .append(':')
                            .append(config.rowType().getTypeAt(i).copy(true).asSummaryString());
                }
            }
        }
        if (config.definition().primaryKey().isEmpty()) {
            scheme.append("|no key: rebalanced");
        }
        try {
            byte[] digest =
                    MessageDigest.getInstance("SHA-256")
                            .digest(scheme.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    void check(RowData row) {
        String key = keys.getKey(row);
        int owner =
                KeyGroupRangeAssignment.assignKeyToParallelOperator(
                        key, maxParallelism, parallelism);
        if (owner != subtask) {
            throw new IllegalStateException(
                    "A record of key "
                            + key.replace('\u0001', ',')
                            + " reached writer "
                            + subtask
                            + " of the sink of "
                            + location
                            + ", but distribution 'key' routes it to writer "
                            + owner
                            + " (of "
                            + parallelism
                            + "): the records were not routed as the sink keys them. Nothing of"
                            + " this checkpoint is committed. Write to the sink with sinkTo(...)"
                            + " so that it keys the records itself, and give the sink a fixed"
                            + " parallelism (in a batch job Flink may choose one and route key"
                            + " groups its own way); or use distribution 'partition'.");
        }
    }
}
