package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.merge.table.KeyStream;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.merge.value.StagedKeys;
import io.deltalite.flink.internal.merge.value.ValueCodec;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.NoSuchElementException;
import java.util.UUID;

/**
 * Staged key files under {@code <table>/_deltalite/staged/}: a magic number, a format version and a
 * key count, then each key as its component count and self-describing values. Delta readers and
 * {@code VACUUM} ignore folders that start with an underscore; deltalite deletes each file once the
 * checkpoint that needs it is committed.
 */
final class StagedKeyFiles {
    private static final int MAGIC = 0x444c4b59; // "DLKY"
    private static final int FORMAT = 1;
    static final String FOLDER = "_deltalite/staged/";

    private final String tableLocation;
    private final FileIO fileIO;

    StagedKeyFiles(String tableLocation, FileIO fileIO) {
        this.tableLocation = tableLocation.endsWith("/") ? tableLocation : tableLocation + "/";
        this.fileIO = fileIO;
    }

    boolean isStaged(String path) {
        return path.contains("/" + FOLDER);
    }

    StagedKeys write(Collection<RowKey> keys) {
        String path;
        try {
            path = fileIO.resolvePath(tableLocation + FOLDER + UUID.randomUUID() + ".keys");
        } catch (IOException e) {
            throw failure("Resolving the staged key folder", e);
        }
        try (PositionOutputStream stream = fileIO.newOutputFile(path).create(false);
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(stream))) {
            out.writeInt(MAGIC);
            out.writeInt(FORMAT);
            out.writeLong(keys.size());
            for (RowKey key : keys) {
                out.writeInt(key.size());
                for (int i = 0; i < key.size(); i++) {
                    ValueCodec.write(out, key.get(i));
                }
            }
        } catch (IOException e) {
            deleteQuietly(path);
            throw failure("Writing " + keys.size() + " deleted keys to " + path, e);
        }
        return new StagedKeys(path, keys.size());
    }

    KeyStream read(StagedKeys file) {
        DataInputStream in;
        long count;
        try {
            InputStream stream = fileIO.newInputFile(file.path(), -1).newStream();
            in = new DataInputStream(new BufferedInputStream(stream));
            if (in.readInt() != MAGIC || in.readInt() != FORMAT) {
                in.close();
                throw new IOException("not a deltalite staged key file of format " + FORMAT);
            }
            count = in.readLong();
        } catch (IOException e) {
            throw failure("Reading the staged deleted keys " + file.path(), e);
        }
        return new KeyStream() {
            private long remaining = count;

            @Override
            public boolean hasNext() {
                return remaining > 0;
            }

            @Override
            public RowKey next() {
                if (remaining <= 0) {
                    throw new NoSuchElementException();
                }
                remaining--;
                try {
                    Object[] values = new Object[in.readInt()];
                    for (int i = 0; i < values.length; i++) {
                        values[i] = ValueCodec.read(in);
                    }
                    return RowKey.adopt(values);
                } catch (IOException e) {
                    throw failure("Reading the staged deleted keys " + file.path(), e);
                }
            }

            @Override
            public void close() {
                try {
                    in.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }

    private void deleteQuietly(String path) {
        try {
            fileIO.delete(path);
        } catch (IOException | RuntimeException ignored) {
            // The journal entry of the checkpoint still lists it.
        }
    }

    private DeltaLiteException failure(String what, IOException cause) {
        return new DeltaLiteException(
                what
                        + " failed for Delta table "
                        + tableLocation
                        + ": "
                        + cause.getMessage()
                        + ". Nothing of the checkpoint was committed; check that the table's"
                        + " _deltalite folder is readable and writable.",
                cause);
    }
}
