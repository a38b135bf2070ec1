package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.delta.kernel.KernelInternals;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.DeletionVectorRef;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.zip.CRC32;

/**
 * Deletion vectors on disk, in Delta's format: a file {@code deletion_vector_<uuid>.bin} of the
 * table holds a format version byte ({@code 1}) and then, per vector, its size (4 bytes), its
 * {@code bitmapData} and the CRC-32 of that data (4 bytes), big-endian. A descriptor points at the
 * size field ({@code offset}). Vectors stored inline in the log or at absolute paths are read too.
 */
final class DeletionVectorFiles {
    private static final int FORMAT = 1;
    private static final int CACHED = 1_024;

    private final String tablePath;
    private final FileIO fileIO;
    private final Map<String, DeletionVector> cache =
            new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, DeletionVector> eldest) {
                    return size() > CACHED;
                }
            };

    /** Vectors added to files not written yet, by the UUID part of their descriptor. */
    private final Map<String, Writer> unwritten = new java.util.concurrent.ConcurrentHashMap<>();

    DeletionVectorFiles(String tablePath, FileIO fileIO) {
        this.tablePath = tablePath;
        this.fileIO = fileIO;
    }

    /** The rows {@code ref} deletes. */
    DeletionVector read(DeletionVectorRef ref, String dataFile) {
        synchronized (cache) {
            DeletionVector cached = cache.get(ref.id());
            if (cached != null) {
                return cached;
            }
        }
        Writer open = unwritten.get(ref.pathOrInlineDv());
        if (open != null) {
            DeletionVector added = open.added(ref);
            if (added != null) {
                return added;
            }
        }
        DeletionVector vector;
        try {
            vector = DeletionVector.deserialize(bitmapData(ref));
        } catch (IOException | RuntimeException e) {
            throw new DeltaLiteException(
                    "Reading the deletion vector "
                            + ref.id()
                            + " of data file "
                            + dataFile
                            + " in Delta table "
                            + tablePath
                            + " failed: "
                            + e.getMessage()
                            + ". The deletion vector file may be missing or damaged; nothing was"
                            + " committed.",
                    e);
        }
        if (ref.cardinality() >= 0 && vector.cardinality() != ref.cardinality()) {
            throw new DeltaLiteException(
                    "The deletion vector "
                            + ref.id()
                            + " of data file "
                            + dataFile
                            + " in Delta table "
                            + tablePath
                            + " deletes "
                            + vector.cardinality()
                            + " rows, but the log says "
                            + ref.cardinality()
                            + ". The table is damaged; nothing was committed.");
        }
        synchronized (cache) {
            cache.put(ref.id(), vector);
        }
        return vector;
    }

    private byte[] bitmapData(DeletionVectorRef ref) throws IOException {
        if (ref.storageType().equals("i")) {
            return KernelInternals.decodeInlineDeletionVector(
                    ref.pathOrInlineDv(), ref.sizeInBytes());
        }
        String path = path(ref);
        try (InputStream stream = fileIO.newInputFile(path, -1).newStream();
                DataInputStream in = new DataInputStream(stream)) {
            // A descriptor without an offset names the file's only vector, after its version byte.
            int offset = ref.offset() < 0 ? 1 : ref.offset();
            in.skipNBytes(offset);
            int size = in.readInt();
            if (ref.sizeInBytes() >= 0 && size != ref.sizeInBytes()) {
                throw new IOException(
                        "the vector at offset "
                                + offset
                                + " of "
                                + path
                                + " has "
                                + size
                                + " bytes, the log says "
                                + ref.sizeInBytes());
            }
            byte[] data = in.readNBytes(size);
            int checksum = in.readInt();
            CRC32 crc = new CRC32();
            crc.update(data);
            if ((int) crc.getValue() != checksum) {
                throw new IOException("checksum mismatch at offset " + offset + " of " + path);
            }
            return data;
        }
    }

    /** The file of an on-disk deletion vector. */
    String path(DeletionVectorRef ref) {
        return KernelInternals.deletionVectorPath(ref, tablePath);
    }

    /** Collects vectors for one new file; {@link Writer#close()} writes it. */
    Writer newFile() {
        Writer writer = new Writer();
        unwritten.put(writer.encodedId, writer);
        return writer;
    }

    /** The vectors of one new deletion vector file, written when it is closed. */
    final class Writer implements io.deltalite.flink.internal.merge.table.DeletionVectorSink {
        private final UUID id = UUID.randomUUID();
        private final String encodedId = KernelInternals.encodeUuid(id);
        private final Map<Integer, DeletionVector> byOffset = new java.util.HashMap<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream out = new DataOutputStream(bytes);
        private boolean closed;

        Writer() {
            bytes.write(FORMAT);
        }

        @Override
        public synchronized DeletionVectorRef add(DeletionVector vector) {
            if (closed) {
                throw new IllegalStateException("the deletion vector file is written already");
            }
            byte[] data = vector.serialize();
            int offset = bytes.size();
            try {
                out.writeInt(data.length);
                out.write(data);
                CRC32 crc = new CRC32();
                crc.update(data);
                out.writeInt((int) crc.getValue());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            byOffset.put(offset, vector);
            return new DeletionVectorRef("u", encodedId, offset, data.length, vector.cardinality());
        }

        /** A vector added here and not written yet, or null. */
        private synchronized DeletionVector added(DeletionVectorRef ref) {
            return byOffset.get(ref.offset());
        }

        /** The path of the file (whether or not anything was written to it). */
        @Override
        public String path() {
            return DeletionVectorFiles.this.path(new DeletionVectorRef("u", encodedId, 1, 0, 0));
        }

        @Override
        public synchronized long bytes() {
            return bytes.size() > 1 ? bytes.size() : 0;
        }

        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (bytes.size() > 1) {
                    write();
                }
            } finally {
                unwritten.remove(encodedId);
            }
        }

        private void write() {
            String path = path();
            try (PositionOutputStream stream = fileIO.newOutputFile(path).create(false)) {
                stream.write(bytes.toByteArray());
            } catch (IOException e) {
                try {
                    fileIO.delete(path);
                } catch (IOException | RuntimeException ignored) {
                    // the journal of the checkpoint lists it
                }
                throw new DeltaLiteException(
                        "Writing the deletion vector file "
                                + path
                                + " of Delta table "
                                + tablePath
                                + " failed: "
                                + e.getMessage()
                                + ". Nothing of the checkpoint was committed; check that the table"
                                + " location is writable.",
                        e);
            }
            synchronized (cache) {
                byOffset.forEach(
                        (offset, vector) ->
                                cache.put(
                                        new DeletionVectorRef("u", encodedId, offset, 0, 0).id(),
                                        vector));
            }
        }

        @Override
        public synchronized void discard() {
            closed = true;
            unwritten.remove(encodedId);
        }
    }
}
