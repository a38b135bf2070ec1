package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.deltalite.flink.internal.delta.fileio.ParquetInputFiles;
import io.deltalite.flink.internal.delta.fileio.TrackingFileIO;
import io.deltalite.flink.internal.merge.value.DataFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.schema.MessageType;

/**
 * Joins Parquet data files into one by copying their row groups byte for byte, file after file: the
 * column chunks (pages, dictionaries, compression) stay as they are, only the footer is new. This
 * is what makes a fold of small files in deletion-vector mode cost what its bytes cost to copy, not
 * what its rows cost to decode and encode again.
 *
 * <p>Only files of exactly one layout are joined: every input's Parquet schema must equal the one
 * Kernel gives the files this table's store writes now (names, types, field ids), so the result is
 * a file that store could have written, and its statistics are read back from its footer as Kernel
 * reads those of any file it writes. Each input's row count must be the one its statistics claim,
 * because the caller moves the inputs' deletion vectors by those counts. Page indexes and bloom
 * filters are not carried over (the sink writes neither).
 */
final class RowGroupSplice {
    /**
     * Row groups a joined file may hold at most. Each fold of a size tier joins four files, so
     * without a bound a file of the top tier would hold {@code 4^tiers} small row groups; past it,
     * the files are merged row by row (one row group per target size) instead.
     */
    static final int MAX_ROW_GROUPS = 64;

    /** The footer key under which Kernel's Parquet writer names itself. */
    private static final String KERNEL_WRITER = "io.delta.kernel.default-parquet-writer";

    /** The footer key under which parquet-java names the write support that wrote the file. */
    private static final String WRITER_MODEL = "writer.model.name";

    /** Kernel's Parquet writer's write support, as parquet-java names it. */
    private static final String KERNEL_MODEL = "delta-kernel-default-parquet-writer";

    private final FileIO files;

    /** {@link #files}, tracking the streams it opens in the current write scope. */
    private final FileIO tracked;

    private final MessageType layout;

    /**
     * @param layout the schema of the files the store writes now, or null when it is unknown (then
     *     nothing is joined)
     */
    RowGroupSplice(FileIO files, MessageType layout) {
        this.files = files;
        this.tracked = new TrackingFileIO(files, Map.of());
        this.layout = layout;
    }

    /**
     * The inputs opened for joining, or null when they cannot be joined as they are (and nothing is
     * open). Close what it returns.
     */
    Inputs open(List<DataFile> inputs) throws IOException {
        if (layout == null || inputs.isEmpty()) {
            return null;
        }
        List<ParquetFileReader> readers = new ArrayList<>(inputs.size());
        boolean joinable = false;
        try {
            int rowGroups = 0;
            for (DataFile input : inputs) {
                if (!input.hasStatistics()) {
                    return null;
                }
                ParquetFileReader reader;
                try {
                    reader =
                            ParquetFileReader.open(
                                    ParquetInputFiles.open(files, input.path(), input.sizeBytes()));
                } catch (IOException | RuntimeException e) {
                    throw new UnreadableInput(input, e);
                }
                readers.add(reader);
                MessageType schema = reader.getFooter().getFileMetaData().getSchema();
                Map<String, String> metadata =
                        reader.getFooter().getFileMetaData().getKeyValueMetaData();
                if (!withoutWriterName(metadata)
                        .equals(
                                withoutWriterName(
                                        readers.get(0)
                                                .getFooter()
                                                .getFileMetaData()
                                                .getKeyValueMetaData()))) {
                    // The footer's key-value metadata speaks for every row of a file (Spark's
                    // datetime rebase mode, its writer version): files that disagree on it
                    // cannot share one footer.
                    return null;
                }
                long rows = 0;
                for (BlockMetaData block : reader.getRowGroups()) {
                    rows += block.getRowCount();
                }
                rowGroups += reader.getRowGroups().size();
                if (!layout.equals(schema)
                        || rows != input.numRecords()
                        || rowGroups > MAX_ROW_GROUPS) {
                    return null;
                }
            }
            joinable = true;
            return new Inputs(readers);
        } finally {
            if (!joinable) {
                closeAll(readers);
            }
        }
    }

    /**
     * Writes the row groups of {@code inputs}, in order, into a new file at {@code path}. A failed
     * write leaves no file behind.
     */
    void write(Inputs inputs, String path) throws IOException {
        try {
            // As Kernel creates data files (not atomically: only a commit makes one visible). The
            // scope abandons the stream should the write fail before it is closed: no
            // descriptor stays open, no upload unfinished.
            try (TrackingFileIO.WriteScope scope = new TrackingFileIO.WriteScope()) {
                ParquetFileWriter writer =
                        new ParquetFileWriter(
                                new KernelOutputFile(
                                        tracked.newOutputFile(path).create(false), path),
                                layout,
                                ParquetFileWriter.Mode.CREATE,
                                0,
                                0);
                writer.start();
                for (ParquetFileReader reader : inputs.readers) {
                    reader.appendTo(writer);
                }
                Map<String, String> metadata =
                        inputs.readers.get(0).getFooter().getFileMetaData().getKeyValueMetaData();
                writer.end(metadata); // closes, and so publishes, the stream
            }
        } catch (IOException | RuntimeException e) {
            try {
                files.delete(path);
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed); // an unreferenced data file: VACUUM removes it
            }
            throw e;
        }
    }

    /**
     * The footer's metadata but the names of the writer that wrote the file, when that is Kernel's
     * Parquet writer or deltalite's own ({@link RowParquetWriter}): they write the same files,
     * whose rows read the same under either footer. Parquet names the writer twice: under the
     * writer's own key, and as {@code writer.model.name}.
     */
    private static Map<String, String> withoutWriterName(Map<String, String> metadata) {
        String model = metadata.get(WRITER_MODEL);
        boolean known = KERNEL_MODEL.equals(model) || RowParquetWriter.MODEL.equals(model);
        if (!known
                && !metadata.containsKey(KERNEL_WRITER)
                && !metadata.containsKey(RowParquetWriter.WRITER)) {
            return metadata;
        }
        Map<String, String> rest = new java.util.HashMap<>(metadata);
        rest.remove(KERNEL_WRITER);
        rest.remove(RowParquetWriter.WRITER);
        if (known) {
            rest.remove(WRITER_MODEL);
        }
        return rest;
    }

    private static void closeAll(List<ParquetFileReader> readers) throws IOException {
        IOException failure = null;
        for (ParquetFileReader reader : readers) {
            try {
                reader.close();
            } catch (IOException e) {
                failure = e;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** An input file could not be opened: gone, damaged, or the storage failed. */
    static final class UnreadableInput extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private final transient DataFile file;

        UnreadableInput(DataFile file, Throwable cause) {
            super(cause);
            this.file = file;
        }

        DataFile file() {
            return file;
        }
    }

    /** Open readers of the files to join. */
    static final class Inputs implements AutoCloseable {
        private final List<ParquetFileReader> readers;

        private Inputs(List<ParquetFileReader> readers) {
            this.readers = readers;
        }

        @Override
        public void close() throws IOException {
            closeAll(readers);
        }
    }
}
