package io.deltalite.peers;

import io.deltalite.peers.Changelog.Phase;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One full scan of a final table in a JVM of its own: the system's own reader, or Spark for a Delta
 * table ({@code reader=spark}). Timed from opening the table to the last row (Spark's session is
 * started before); then the table's shape, then the rows the table must hold, replayed from the
 * same changelog.
 */
public final class ReadJob {
    private ReadJob() {}

    public static void main(String[] args) throws Exception {
        JobArguments job = JobArguments.parse(args);
        PeerSystem system = PeerSystem.valueOf(job.get("system"));
        Path table = job.getPath("table");
        TableReader reader = job.get("reader").equals("spark") ? new SparkRead() : system.reader();
        try {
            long start = System.nanoTime();
            TableReader.Scanned scanned = reader.scan(table);
            long scanMillis = (System.nanoTime() - start) / 1_000_000;
            long rss = JobArguments.peakRssBytes();
            TableReader.Shape shape = reader.shape(table);
            Phase phase = Phase.valueOf(job.get("phase"));
            TableReader.Scanned expected =
                    new Changelog(
                                    phase,
                                    job.getLong("bulk"),
                                    job.getLong("records"),
                                    job.getLong("eventsPerDay"))
                            .replayAll(job.getLong("records"));
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("scanMillis", scanMillis);
            report.put("peakRssBytes", rss);
            report.put("rows", scanned.rows());
            report.put("checksum", scanned.checksum());
            report.put("expectedRows", expected.rows());
            report.put("expectedChecksum", expected.checksum());
            report.put("dataFiles", shape.dataFiles());
            report.put("deleteFiles", shape.deleteFiles());
            JobArguments.report(job.getPath("result"), report);
        } finally {
            if (reader instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
    }
}
