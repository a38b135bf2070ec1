package io.deltalite.flink.internal.merge.value;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.roaringbitmap.RoaringBitmap;

/**
 * The rows of a data file that are deleted, by their 0-based physical position in the file (across
 * all row groups). Immutable: {@link #union} makes a new one.
 *
 * <p>{@link #serialize()} writes Delta's {@code bitmapData}: the magic number {@code 1681511377},
 * the number of buckets, then per bucket (ascending) the high 32 bits of its positions and a
 * portable 32-bit RoaringBitmap of the low 32 bits, all little-endian.
 */
public final class DeletionVector {
    private static final int MAGIC = 1681511377;

    public static final DeletionVector EMPTY = new DeletionVector(new TreeMap<>());

    /** Bitmaps of the low 32 bits, by the high 32 bits of the positions. */
    private final NavigableMap<Integer, RoaringBitmap> buckets;

    private final long cardinality;

    private DeletionVector(NavigableMap<Integer, RoaringBitmap> buckets) {
        this.buckets = buckets;
        long count = 0;
        for (RoaringBitmap bitmap : buckets.values()) {
            count += bitmap.getLongCardinality();
        }
        this.cardinality = count;
    }

    /** A deletion vector of the given positions. */
    public static DeletionVector of(long... positions) {
        NavigableMap<Integer, RoaringBitmap> buckets = new TreeMap<>();
        for (long position : positions) {
            add(buckets, position);
        }
        buckets.values().forEach(RoaringBitmap::runOptimize);
        return new DeletionVector(buckets);
    }

    private static void add(NavigableMap<Integer, RoaringBitmap> buckets, long position) {
        if (position < 0) {
            throw new IllegalArgumentException("negative row position " + position);
        }
        buckets.computeIfAbsent((int) (position >>> 32), key -> new RoaringBitmap())
                .add((int) position);
    }

    /** This deletion vector and {@code positions}. */
    public DeletionVector union(long[] positions) {
        if (positions.length == 0) {
            return this;
        }
        return union(of(positions));
    }

    public DeletionVector union(DeletionVector other) {
        if (other.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return other;
        }
        NavigableMap<Integer, RoaringBitmap> merged = new TreeMap<>();
        buckets.forEach((key, bitmap) -> merged.put(key, bitmap.clone()));
        other.buckets.forEach(
                (key, bitmap) ->
                        merged.merge(key, bitmap.clone(), (a, b) -> RoaringBitmap.or(a, b)));
        merged.values().forEach(RoaringBitmap::runOptimize);
        return new DeletionVector(merged);
    }

    /** This deletion vector and every position from {@code from} (inclusive) to {@code to}. */
    public DeletionVector withRange(long from, long to) {
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("bad row range " + from + ".." + to);
        }
        if (from == to) {
            return this;
        }
        NavigableMap<Integer, RoaringBitmap> merged = new TreeMap<>();
        buckets.forEach((key, bitmap) -> merged.put(key, bitmap.clone()));
        for (long bucketStart = from & ~0xFFFF_FFFFL; bucketStart < to; bucketStart += 1L << 32) {
            long low = Math.max(from, bucketStart) - bucketStart;
            long high = Math.min(to, bucketStart + (1L << 32)) - bucketStart;
            merged.computeIfAbsent((int) (bucketStart >>> 32), key -> new RoaringBitmap())
                    .add(low, high);
        }
        merged.values().forEach(RoaringBitmap::runOptimize);
        return new DeletionVector(merged);
    }

    /** How many of the positions from {@code from} (inclusive) to {@code to} it deletes. */
    public long cardinality(long from, long to) {
        long count = 0;
        for (long bucketStart = from & ~0xFFFF_FFFFL; bucketStart < to; bucketStart += 1L << 32) {
            RoaringBitmap bitmap = buckets.get((int) (bucketStart >>> 32));
            if (bitmap != null) {
                count +=
                        bitmap.rangeCardinality(
                                Math.max(from, bucketStart) - bucketStart,
                                Math.min(to, bucketStart + (1L << 32)) - bucketStart);
            }
        }
        return count;
    }

    /**
     * The deletion vector of a file that holds the rows of several files one after the other: the
     * rows {@code vectors[i]} deletes, moved down by {@code offsets[i]} (where file {@code i}'s
     * first row lands).
     */
    public static DeletionVector concatenated(List<DeletionVector> vectors, long[] offsets) {
        if (vectors.size() != offsets.length) {
            throw new IllegalArgumentException(
                    vectors.size() + " deletion vectors but " + offsets.length + " offsets");
        }
        NavigableMap<Integer, RoaringBitmap> buckets = new TreeMap<>();
        for (int i = 0; i < offsets.length; i++) {
            long offset = offsets[i];
            if (offset < 0) {
                throw new IllegalArgumentException("negative row offset " + offset);
            }
            for (Map.Entry<Integer, RoaringBitmap> bucket : vectors.get(i).buckets.entrySet()) {
                long high = Integer.toUnsignedLong(bucket.getKey()) << 32;
                org.roaringbitmap.IntIterator positions = bucket.getValue().getIntIterator();
                while (positions.hasNext()) {
                    add(buckets, offset + high + Integer.toUnsignedLong(positions.next()));
                }
            }
        }
        buckets.values().forEach(RoaringBitmap::runOptimize);
        return new DeletionVector(buckets);
    }

    public boolean contains(long position) {
        RoaringBitmap bitmap = buckets.get((int) (position >>> 32));
        return bitmap != null && bitmap.contains((int) position);
    }

    /**
     * Clears {@code live[i]} for every deleted position {@code first + i}: the rows of a batch that
     * starts at position {@code first}. Walks only the deleted positions in that range.
     */
    public void clearDeleted(long first, boolean[] live) {
        long end = first + live.length; // exclusive
        for (long bucketStart = first & ~0xFFFF_FFFFL; bucketStart < end; bucketStart += 1L << 32) {
            RoaringBitmap bitmap = buckets.get((int) (bucketStart >>> 32));
            if (bitmap == null) {
                continue;
            }
            org.roaringbitmap.PeekableIntIterator deleted = bitmap.getIntIterator();
            deleted.advanceIfNeeded((int) Math.max(first, bucketStart));
            while (deleted.hasNext()) {
                long position = bucketStart + Integer.toUnsignedLong(deleted.peekNext());
                if (position >= end) {
                    break;
                }
                live[(int) (position - first)] = false;
                deleted.next();
            }
        }
    }

    /** How many rows it deletes. */
    public long cardinality() {
        return cardinality;
    }

    /** Bytes this vector takes on the heap, about. */
    public long memoryBytes() {
        long bytes = 48;
        for (RoaringBitmap bitmap : buckets.values()) {
            bytes += 48 + bitmap.getLongSizeInBytes();
        }
        return bytes;
    }

    public boolean isEmpty() {
        return cardinality == 0;
    }

    /** Delta's {@code bitmapData} of this deletion vector. */
    public byte[] serialize() {
        int size = 4 + 8;
        for (RoaringBitmap bitmap : buckets.values()) {
            size += 4 + bitmap.serializedSizeInBytes();
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(MAGIC);
        out.putLong(buckets.size());
        for (Map.Entry<Integer, RoaringBitmap> bucket : buckets.entrySet()) {
            out.putInt(bucket.getKey());
            bucket.getValue().serialize(out);
        }
        return out.array();
    }

    /** Reads Delta's {@code bitmapData}. */
    public static DeletionVector deserialize(byte[] bitmapData) {
        ByteBuffer in = ByteBuffer.wrap(bitmapData).order(ByteOrder.LITTLE_ENDIAN);
        int magic = in.getInt();
        if (magic != MAGIC) {
            throw new IllegalArgumentException(
                    "not a Delta deletion vector: magic number " + magic + ", expected " + MAGIC);
        }
        long count = in.getLong();
        NavigableMap<Integer, RoaringBitmap> buckets = new TreeMap<>();
        for (long i = 0; i < count; i++) {
            int key = in.getInt();
            RoaringBitmap bitmap = new RoaringBitmap();
            try {
                bitmap.deserialize(in.slice().order(ByteOrder.LITTLE_ENDIAN));
            } catch (java.io.IOException e) {
                throw new IllegalArgumentException("a corrupt deletion vector bucket", e);
            }
            in.position(in.position() + bitmap.serializedSizeInBytes());
            if (!bitmap.isEmpty()) {
                buckets.put(key, bitmap);
            }
        }
        return new DeletionVector(buckets);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DeletionVector vector && buckets.equals(vector.buckets);
    }

    @Override
    public int hashCode() {
        return buckets.hashCode();
    }

    @Override
    public String toString() {
        return "DeletionVector{cardinality=" + cardinality + "}";
    }
}
