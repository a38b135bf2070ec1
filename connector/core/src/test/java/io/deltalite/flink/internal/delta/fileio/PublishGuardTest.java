package io.deltalite.flink.internal.delta.fileio;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What keeps a file that is not whole from being published. */
class PublishGuardTest {
    private static final String CHECKPOINT = "/_delta_log/00000000000000000010.checkpoint.parquet";

    @Test
    void anAbandonedCheckpointOfOneTableDoesNotStopTheSameVersionOfAnother() {
        PublishGuard.abandon("file:/tables/a" + CHECKPOINT);
        try {
            assertThat(whole("/tables/b" + CHECKPOINT).refusal())
                    .as("table b's checkpoint 10")
                    .isNull();
            assertThat(whole("file:///tables/a" + CHECKPOINT).refusal())
                    .as("table a's checkpoint 10, however its path is spelled")
                    .contains("could not be read to its end");
        } finally {
            PublishGuard.forget("/tables/a" + CHECKPOINT);
        }
    }

    @Test
    void aParquetFileWithoutItsFooterOrWithAFailedWriteIsRefused() {
        PublishGuard noFooter =
                new PublishGuard("/t/_delta_log/00000000000000000001.checkpoint.parquet");
        noFooter.wrote("PAR1 rows".getBytes(StandardCharsets.US_ASCII), 0, 9);
        assertThat(noFooter.refusal()).contains("no Parquet footer");

        PublishGuard headerOnly =
                new PublishGuard("/t/_delta_log/00000000000000000004.checkpoint.parquet");
        headerOnly.wrote("PAR1".getBytes(StandardCharsets.US_ASCII), 0, 4);
        assertThat(headerOnly.refusal())
                .as("the header of a writer that failed before its first row group")
                .contains("no Parquet footer");

        PublishGuard failed = whole("/t/part-2.parquet");
        failed.failed();
        assertThat(failed.refusal()).contains("a write to it failed");

        assertThat(whole("/t/part-3.parquet").refusal()).isNull();
    }

    /** A guard over a Parquet file that was written to its end: header, data, footer, length. */
    private static PublishGuard whole(String path) {
        PublishGuard guard = new PublishGuard(path);
        byte[] head = "PAR1 rows footer".getBytes(StandardCharsets.US_ASCII);
        guard.wrote(head, 0, head.length);
        guard.wrote(6); // the footer's length, little-endian: "footer"
        guard.wrote(0);
        guard.wrote(0);
        guard.wrote(0);
        byte[] magic = "PAR1".getBytes(StandardCharsets.US_ASCII);
        guard.wrote(magic, 0, magic.length);
        return guard;
    }
}
