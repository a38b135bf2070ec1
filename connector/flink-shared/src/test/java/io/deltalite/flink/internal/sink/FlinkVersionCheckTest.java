package io.deltalite.flink.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.internal.compat.FlinkLine;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.junit.jupiter.api.Test;

/** Runs on each Flink line, against that line's own Flink jars. */
class FlinkVersionCheckTest {
    private static final boolean LINE_1_20 = FlinkLine.ARTIFACT.endsWith("-flink-1.20");

    @Test
    void theFlinkTheseTestsRunOnIsAcceptedAndKnown() {
        String running = EnvironmentInformation.getVersion();
        assertThat(running).startsWith(LINE_1_20 ? "1.20." : "2.");
        assertThatCode(FlinkVersionCheck::checkRunningFlink).doesNotThrowAnyException();
    }

    @Test
    void anotherLinesFlinkIsRefusedNamingTheArtifactForIt() {
        String other = LINE_1_20 ? "2.3.0" : "1.20.3";
        assertThatThrownBy(() -> FlinkVersionCheck.check(other))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("runs on Flink " + other)
                .hasMessageContaining(FlinkLine.ARTIFACT)
                .hasMessageContaining(
                        LINE_1_20
                                ? "io.deltalite:deltalite-connector on Flink 2.x"
                                : "io.deltalite:deltalite-connector-flink-1.20 on Flink 1.20");
    }

    @Test
    void olderAndNewerLinesAndReleasesWithTheOldEndOfInputAreRefused() {
        for (String version :
                new String[] {
                    "1.19.2", "1.18.1", "3.0.0", "1.21-SNAPSHOT", "1.20.0", "1.20.1", "2.0.0"
                }) {
            assertThatThrownBy(() -> FlinkVersionCheck.check(version))
                    .as(version)
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aVersionFlinkCannotTellPasses() {
        assertThatCode(() -> FlinkVersionCheck.check("<unknown>")).doesNotThrowAnyException();
        assertThatCode(() -> FlinkVersionCheck.check(null)).doesNotThrowAnyException();
    }

    @Test
    void thisLinesSnapshotsAndPatchesPass() {
        for (String version :
                LINE_1_20
                        ? new String[] {"1.20.2", "1.20.3", "1.20-SNAPSHOT", "1.20.3-vvr-11.1"}
                        : new String[] {"2.0.1", "2.3.0", "2.3-SNAPSHOT", "2.4.1"}) {
            assertThatCode(() -> FlinkVersionCheck.check(version))
                    .as(version)
                    .doesNotThrowAnyException();
        }
    }
}
