package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.compat.FlinkLine;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.OptionalInt;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.metadata.MetadataSerializers;
import org.apache.flink.runtime.state.filesystem.AbstractFsCheckpointStorageAccess;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses, where the job is built, to start from a savepoint that a newer Flink wrote: a savepoint
 * of Flink 2.x given to a job on Flink 1.20. Flink refuses it too, but only once the JobMaster
 * starts, and with no more than "Unrecognized checkpoint version number"; this names the savepoint,
 * the running Flink and what to do. Only the header of the savepoint's metadata is read (its magic
 * number and format version), through Flink's own resolution of the savepoint path; the running
 * Flink says whether it reads that version. A savepoint this JVM cannot read (its file system is
 * not set up in the client, say) is left to Flink's own check.
 */
@Internal
public final class SavepointCheck {
    private static final Logger LOG = LoggerFactory.getLogger(SavepointCheck.class);

    private SavepointCheck() {}

    /** Checks the savepoint {@code configuration} starts the job from, if any. */
    public static void checkRestorable(ReadableConfig configuration) {
        String savepoint = configuration.get(StateRecoveryOptions.SAVEPOINT_PATH);
        if (savepoint == null || savepoint.isBlank()) {
            return;
        }
        OptionalInt version = metadataVersion(savepoint);
        if (version.isPresent() && !readsMetadataVersion(version.getAsInt())) {
            String flink = EnvironmentInformation.getVersion();
            String line = flink.replaceFirst("^(\\d+\\.\\d+)\\..*$", "$1");
            throw new IllegalStateException(
                    String.format(
                            "Cannot start this job from the savepoint %s: a newer Flink wrote it"
                                    + " (savepoint metadata version %d), and Flink %s does not"
                                    + " read that version. Savepoints move to newer Flink"
                                    + " versions only: restore it on the Flink version that took"
                                    + " it, with deltalite's artifact for that Flink line"
                                    + " (io.deltalite:deltalite-connector on Flink 2.x), or start"
                                    + " this job from a savepoint that Flink %s took, or without"
                                    + " state. (This connector: %s.)",
                            savepoint, version.getAsInt(), flink, line, FlinkLine.ARTIFACT));
        }
    }

    /** The format version in the savepoint's metadata, or empty when it cannot be read here. */
    static OptionalInt metadataVersion(String savepoint) {
        try (DataInputStream in =
                new DataInputStream(
                        AbstractFsCheckpointStorageAccess.resolveCheckpointPointer(savepoint)
                                .getMetadataHandle()
                                .openInputStream())) {
            if (in.readInt() != Checkpoints.HEADER_MAGIC_NUMBER) {
                return OptionalInt.empty();
            }
            return OptionalInt.of(in.readInt());
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cannot read the metadata of savepoint {}; Flink checks it.", savepoint, e);
            return OptionalInt.empty();
        }
    }

    /** Whether the running Flink reads checkpoint metadata of {@code version}. */
    static boolean readsMetadataVersion(int version) {
        try {
            MetadataSerializers.getSerializer(version);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
