package io.deltalite.peers;

import java.math.BigInteger;
import java.nio.file.Path;

/** A full scan of a final table with one format's reader, deletes applied. */
interface TableReader {
    /** What a scan saw: live rows and their checksum ({@link Changelog#checksumOf}). */
    record Scanned(long rows, BigInteger checksum) {}

    /** The table's physical shape: live data files, and the delete files that apply to them. */
    record Shape(long dataFiles, long deleteFiles) {}

    Scanned scan(Path table) throws Exception;

    Shape shape(Path table) throws Exception;

    /** Sums the checksums of rows handed over one at a time, exactly (128 bits, no allocation). */
    final class Tally {
        private long rows;
        private long low;
        private long high;

        void add(long id, String day, long amount, String note) {
            rows++;
            long sum = low + Changelog.checksumOf(id, day, amount, note);
            if (Long.compareUnsigned(sum, low) < 0) {
                high++;
            }
            low = sum;
        }

        Scanned result() {
            BigInteger checksum =
                    BigInteger.valueOf(high)
                            .shiftLeft(64)
                            .add(new BigInteger(Long.toUnsignedString(low)));
            return new Scanned(rows, checksum);
        }
    }
}
