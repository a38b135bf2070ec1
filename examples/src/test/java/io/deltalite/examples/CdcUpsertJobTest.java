package io.deltalite.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The job jar's entry point reads its settings from the program arguments. */
class CdcUpsertJobTest {

    @Test
    void argumentsOverrideTheDefaults() {
        CdcUpsertJob job =
                CdcUpsertJob.fromArgs(
                        new String[] {
                            "--table", "/data/orders",
                            "--orders", "20011",
                            "--rounds", "3",
                            "--rate", "4000",
                            "--checkpoint-interval", "500"
                        });

        assertThat(job).isEqualTo(new CdcUpsertJob("/data/orders", 20_011, 3, 4_000, 500));
    }

    @Test
    void onlyTheTableIsRequired() {
        assertThat(CdcUpsertJob.fromArgs(new String[] {"--table", "/data/orders"}))
                .isEqualTo(CdcUpsertJob.withDefaults("/data/orders", 100_000));
    }

    @Test
    void aMissingTableIsRefused() {
        assertThatThrownBy(() -> CdcUpsertJob.fromArgs(new String[] {"--orders", "5003"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--table is required");
    }

    @Test
    void anUnknownArgumentIsRefusedByName() {
        assertThatThrownBy(
                        () ->
                                CdcUpsertJob.fromArgs(
                                        new String[] {"--table", "/data/orders", "--order", "5"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unknown argument --order;");
    }

    @Test
    void anOrderCountThatBreaksTheShuffleIsRefused() {
        assertThatThrownBy(() -> CdcUpsertJob.withDefaults("/data/orders", 7_919 * 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("coprime to 7919");
    }
}
