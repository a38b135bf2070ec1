package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.exceptions.DeltaLiteUnsupportedStorageException;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A table on a storage whose guarantees deltalite has not proven — an atomic put-if-absent of each
 * Delta log file, a file published only once whole — is refused when the job is built and when a
 * writer opens it, naming the scheme, what is missing and where to put the table instead; never
 * written through Hadoop's file system as it comes.
 */
class UnprovenStorageTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "abfs://data@account.dfs.core.windows.net/tables/orders",
                "abfss://data@account.dfs.core.windows.net/tables/orders",
                "gs://bucket/tables/orders",
                "wasb://data@account.blob.core.windows.net/tables/orders",
                "wasbs://data@account.blob.core.windows.net/tables/orders",
                "viewfs://cluster/tables/orders",
                "oss://bucket/tables/orders",
            })
    void aTableOnAStorageTheGuaranteesWereNotBuiltForIsRefusedAtBuild(String location) {
        String scheme = location.substring(0, location.indexOf(':'));
        assertThatThrownBy(
                        () ->
                                DeltaTable.existingSchema(
                                        location,
                                        StorageSettings.of(Map.of()),
                                        S3UpsertHarness.ORDERS))
                .isInstanceOf(DeltaLiteUnsupportedStorageException.class)
                .hasMessageContaining(location)
                .hasMessageContaining("'" + scheme + "'")
                .hasMessageContaining("put-if-absent")
                .hasMessageContaining("s3a://")
                .hasMessageContaining("hdfs://");
        assertThatThrownBy(
                        () ->
                                DeltaTable.open(
                                        location,
                                        StorageSettings.of(Map.of()),
                                        MergeOptions.DEFAULTS,
                                        S3UpsertHarness.ORDERS,
                                        true))
                .isInstanceOf(DeltaLiteUnsupportedStorageException.class)
                .hasMessageContaining("'" + scheme + "'");
    }
}
