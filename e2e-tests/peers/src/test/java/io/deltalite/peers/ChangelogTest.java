package io.deltalite.peers;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.peers.Changelog.Change;
import io.deltalite.peers.Changelog.Kind;
import io.deltalite.peers.Changelog.Phase;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The changelog and its model: the table the model predicts is the one a plain map of the emitted
 * records ends as, and the mix of each workload is what BENCHMARKS.md says it is.
 */
class ChangelogTest {
    @Test
    void cdcModelIsTheBulkLoadWithEveryChangeApplied() {
        long bulk = 20_000;
        long records = 30_000;
        Map<Long, Long> table = new HashMap<>();
        Changelog load = new Changelog(Phase.BULK, bulk, bulk, 1);
        for (int i = 0; i < bulk; i++) {
            apply(table, load.next());
        }
        Changelog changes = new Changelog(Phase.CDC, bulk, records, 1);
        Map<Kind, Integer> kinds = new EnumMap<>(Kind.class);
        for (int i = 0; i < records; i++) {
            Change change = changes.next();
            kinds.merge(change.kind(), 1, Integer::sum);
            if (change.kind() != Kind.INSERT) {
                assertThat(table).as("updates and deletes hit live keys").containsKey(change.id());
            }
            if (change.kind() == Kind.DELETE) {
                assertThat(table.get(change.id())).isEqualTo(change.amount());
            }
            apply(table, change);
        }
        assertThat(kinds.get(Kind.INSERT)).isBetween(11_400, 12_600);
        assertThat(kinds.get(Kind.UPDATE)).isBetween(14_300, 15_700);
        assertThat(kinds.get(Kind.DELETE)).isBetween(2_700, 3_300);
        assertThat(new Changelog(Phase.CDC, bulk, records, 1).replayAll(records))
                .isEqualTo(tally(table, changes));
        assertThat(new Changelog(Phase.BULK, bulk, bulk, 1).replayAll(bulk).rows()).isEqualTo(bulk);
    }

    @Test
    void lateCorrectionsUpdateRecentEventsInTheirOwnDay() {
        long records = 50_000;
        Map<Long, Long> table = new HashMap<>();
        Changelog events = new Changelog(Phase.LATE_CORRECTIONS, 0, records, 10_000);
        long corrections = 0;
        long newest = -1;
        for (int i = 0; i < records; i++) {
            Change change = events.next();
            if (change.kind() == Kind.UPDATE) {
                corrections++;
                assertThat(change.id()).isBetween(newest - Changelog.RECENT_EVENTS, newest);
            } else {
                assertThat(change.kind()).isEqualTo(Kind.INSERT);
                newest = change.id();
            }
            apply(table, change);
        }
        assertThat(corrections).isBetween(2_200L, 2_800L);
        assertThat(events.day(0)).isEqualTo("2026-11-01");
        assertThat(events.day(newest)).isEqualTo("2026-11-05");
        assertThat(new Changelog(Phase.LATE_CORRECTIONS, 0, records, 10_000).replayAll(records))
                .isEqualTo(tally(table, events));
    }

    private static void apply(Map<Long, Long> table, Change change) {
        if (change.kind() == Kind.DELETE) {
            table.remove(change.id());
        } else {
            table.put(change.id(), change.amount());
        }
    }

    private static TableReader.Scanned tally(Map<Long, Long> table, Changelog days) {
        TableReader.Tally tally = new TableReader.Tally();
        table.forEach(
                (id, amount) -> tally.add(id, days.day(id), amount, Changelog.note(id, amount)));
        return tally.result();
    }
}
