package io.deltalite.flink.sink;

import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertEachCheckpointCommittedOnce;
import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertTableEquals;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.internal.faults.FaultInjection.Point;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.NoKeyIndexDisagreements;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Minutes of changes with a failure every few seconds at a random point of the sink. Not part of
 * the default build; run it with
 *
 * <pre>
 * mvn -B -ntp -pl connector test -Dtest=DeltaLiteSoakITCase -Dsoak.minutes=5 -Dsurefire.excludedGroups=
 * </pre>
 */
@Tag("soak")
@ExtendWith(NoKeyIndexDisagreements.class)
class DeltaLiteSoakITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    @TempDir Path dir;

    @AfterEach
    void disarm() {
        FaultInjection.disarmAll();
    }

    @Test
    void randomFailuresForMinutesLoseAndDoubleNothing() throws Exception {
        double minutes = Double.parseDouble(System.getProperty("soak.minutes", "2"));
        int recordsPerSecond = 1_000;
        int records = (int) (minutes * 60 * recordsPerSecond);
        ChangeScript script = ChangeScript.generate(2024, records, 20_000, 8, false);
        Path table = dir.resolve("soak");
        long failEveryMillis = 4_000;
        AtomicLong lastFailure = new AtomicLong(System.currentTimeMillis());
        AtomicInteger failures = new AtomicInteger();
        Random random = new Random(7);
        for (Point point : Point.values()) {
            FaultInjection.arm(
                    point,
                    (location, occurrence) -> {
                        long now = System.currentTimeMillis();
                        long last = lastFailure.get();
                        // Each point gets its turn at random; at most one failure per period.
                        if (now - last > failEveryMillis
                                && random.nextInt(Point.values().length) == point.ordinal()
                                && lastFailure.compareAndSet(last, now)) {
                            failures.incrementAndGet();
                            throw new RuntimeException("soak: injected failure at " + point);
                        }
                    });
        }
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(500), 10_000);
        SinkJobs.sink(
                SinkJobs.changes(env, script, recordsPerSecond),
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("256kb"))
                        .option(DeltaLiteOptions.MAX_BUFFERED_BYTES, MemorySize.parse("1mb"))
                        .option(DeltaLiteOptions.KEY_INDEX, KeyIndexMode.ON)
                        // Every merge also runs the exact probe: an index gone stale fails the
                        // test.
                        .option(DeltaLiteOptions.KEY_INDEX_VALIDATE, true)
                        .build(),
                4);
        env.execute("soak");

        System.out.printf("soak: %d records, %d injected failures%n", records, failures.get());
        assertThat(failures.get()).isGreaterThan(0);
        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
    }
}
