package io.deltalite.peers;

import io.deltalite.peers.Changelog.Change;
import io.deltalite.peers.Changelog.Phase;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;

/**
 * Turns the {@link Changelog} into Flink rows for a {@code DataGeneratorSource} of parallelism 1:
 * inserts as {@code +I}, updates as {@code +U} (an upsert stream: no {@code -U}), deletes as {@code
 * -D} carrying the row's last values, as a CDC source would.
 */
final class ChangelogGenerator implements GeneratorFunction<Long, RowData> {
    private static final long serialVersionUID = 1L;

    private final Phase phase;
    private final long bulk;
    private final long records;
    private final long eventsPerDay;
    private transient Changelog changelog;

    ChangelogGenerator(Phase phase, long bulk, long records, long eventsPerDay) {
        this.phase = phase;
        this.bulk = bulk;
        this.records = records;
        this.eventsPerDay = eventsPerDay;
    }

    @Override
    public void open(SourceReaderContext context) {
        if (context.currentParallelism() != 1) {
            throw new IllegalStateException("the changelog is one ordered stream: parallelism 1");
        }
        changelog = new Changelog(phase, bulk, records, eventsPerDay);
    }

    @Override
    public RowData map(Long index) {
        if (index != changelog.emitted()) {
            // A restart would replay from a checkpointed index the generator cannot seek to.
            throw new IllegalStateException(
                    "record " + index + " requested after " + changelog.emitted());
        }
        Change change = changelog.next();
        GenericRowData row =
                GenericRowData.of(
                        change.id(),
                        StringData.fromString(changelog.day(change.id())),
                        change.amount(),
                        StringData.fromString(Changelog.note(change.id(), change.amount())));
        row.setRowKind(
                switch (change.kind()) {
                    case INSERT -> RowKind.INSERT;
                    case UPDATE -> RowKind.UPDATE_AFTER;
                    case DELETE -> RowKind.DELETE;
                });
        return row;
    }
}
