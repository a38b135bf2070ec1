package io.deltalite.flink.internal.merge.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.value.KeyIdentity;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The index's hash table against a plain map, through random adds, removes and rewrites. */
class KeyLocationsTest {

    /**
     * Ids chosen to share a slot: integral keys are their own identity, so whoever writes the ids
     * could pick ones an unkeyed hash sends to one home slot, and every insert and lookup would
     * then probe along one run of all of them (quadratic: a writer stalled by its input). These
     * 20,000 ids share their low 20 bits after the unkeyed mix this table used; keyed with this
     * JVM's secret, their run must stay as short as random keys' do.
     */
    @Test
    void idsChosenToShareASlotUnderAnUnkeyedHashDoNotPileUp() {
        long inverse = inverseOf(UNKEYED_MULTIPLIER);
        KeyLocations table = new KeyLocations(false);
        table.reserve(20_000);
        for (long i = 1; i <= 20_000; i++) {
            long mixed = unfold((i << 20) | 0x5A5A5);
            long id = mixed * inverse;
            assertThat(unkeyedHome(id) & 0xFFFFF).isEqualTo(0x5A5A5); // the attack works
            table.add(KeyIdentity.ofIntegral(id), KeyLocations.pack(0, i));
        }
        assertThat(table.size()).isEqualTo(20_000);
        // Random keys at this load (20,000 in 32,768 slots) make runs of tens to a few hundred.
        assertThat(table.longestRun()).isLessThan(2_000);
    }

    private static final long UNKEYED_MULTIPLIER = 0x9E3779B97F4A7C15L;

    /** The slot bits of the unkeyed mix of a one-column integral key. */
    private static long unkeyedHome(long id) {
        long mixed = id * UNKEYED_MULTIPLIER;
        return mixed ^ (mixed >>> 29) ^ (mixed >>> 47);
    }

    /** The x with {@code x ^ (x >>> 29) ^ (x >>> 47) == folded}. */
    private static long unfold(long folded) {
        long x = folded;
        for (int i = 0; i < 4; i++) {
            x = folded ^ (x >>> 29) ^ (x >>> 47);
        }
        return x;
    }

    /** The multiplicative inverse modulo 2^64 of an odd number (Newton's iteration). */
    private static long inverseOf(long odd) {
        long inverse = odd;
        for (int i = 0; i < 5; i++) {
            inverse *= 2 - odd * inverse;
        }
        return inverse;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void randomOperationsAgreeWithAMapOfSets(boolean wide) {
        Random random = new Random(wide ? 7 : 11);
        KeyLocations table = new KeyLocations(wide);
        Map<KeyIdentity, Set<Long>> model = new HashMap<>();
        // Few distinct keys, so that keys collide in slots, repeat, and gather several locations.
        List<KeyIdentity> keys = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            long high = random.nextInt(4) == 0 ? 0 : random.nextLong();
            keys.add(new KeyIdentity(high, wide ? random.nextLong() : 0));
        }
        long[] replaced = {0};
        long[] replacedInModel = {0};
        for (int step = 0; step < 200_000; step++) {
            KeyIdentity key = keys.get(random.nextInt(keys.size()));
            long location = KeyLocations.pack(random.nextInt(5), random.nextInt(3));
            int operation = random.nextInt(10);
            if (operation == 5) {
                // A block of one file's rows, as an index build adds them; a key's locations in
                // a file taken for dead (file 4, here) are dropped.
                int count = 1 + random.nextInt(40);
                int file = random.nextInt(4);
                long[] high = new long[count + 3];
                long[] low = new long[count + 3];
                long[] positions = new long[count + 3];
                for (int i = 0; i < count; i++) {
                    KeyIdentity row = keys.get(random.nextInt(keys.size()));
                    high[i] = row.high();
                    low[i] = row.low();
                    positions[i] = random.nextInt(3);
                    long packed = KeyLocations.pack(file, positions[i]);
                    Set<Long> known = model.computeIfAbsent(row, unused -> new LinkedHashSet<>());
                    int before = known.size();
                    known.removeIf(other -> other != packed && KeyLocations.fileOf(other) == 4);
                    replacedInModel[0] += before - known.size();
                    known.add(packed);
                }
                table.addAll(
                        high,
                        low,
                        positions,
                        count,
                        file,
                        new KeyLocations.Liveness() {
                            @Override
                            public boolean isDead(long location) {
                                return KeyLocations.fileOf(location) == 4;
                            }

                            @Override
                            public void replaced(long location) {
                                replaced[0]++;
                            }
                        });
                assertThat(replaced[0]).as("locations replaced").isEqualTo(replacedInModel[0]);
            } else if (operation < 6) {
                table.add(key, location);
                model.computeIfAbsent(key, unused -> new LinkedHashSet<>()).add(location);
            } else if (operation < 9) {
                table.remove(key, location);
                Set<Long> known = model.get(key);
                if (known != null && known.remove(location) && known.isEmpty()) {
                    model.remove(key);
                }
            } else if (step % 5000 == 9) {
                int deadFile = random.nextInt(5);
                table.rewrite(
                        packed ->
                                KeyLocations.fileOf(packed) == deadFile
                                        ? -1
                                        : KeyLocations.pack(
                                                KeyLocations.fileOf(packed) + 10,
                                                KeyLocations.positionOf(packed)));
                Map<KeyIdentity, Set<Long>> moved = new HashMap<>();
                model.forEach(
                        (k, locations) -> {
                            Set<Long> kept = new LinkedHashSet<>();
                            for (long packed : locations) {
                                if (KeyLocations.fileOf(packed) != deadFile) {
                                    kept.add(
                                            KeyLocations.pack(
                                                    KeyLocations.fileOf(packed) + 10,
                                                    KeyLocations.positionOf(packed)));
                                }
                            }
                            if (!kept.isEmpty()) {
                                moved.put(k, kept);
                            }
                        });
                model.clear();
                model.putAll(moved);
                // keep file numbers small for the next rounds
                table.rewrite(
                        packed ->
                                KeyLocations.pack(
                                        KeyLocations.fileOf(packed) % 10,
                                        KeyLocations.positionOf(packed)));
                Map<KeyIdentity, Set<Long>> renumbered = new HashMap<>();
                model.forEach(
                        (k, locations) -> {
                            Set<Long> kept = new LinkedHashSet<>();
                            for (long packed : locations) {
                                kept.add(
                                        KeyLocations.pack(
                                                KeyLocations.fileOf(packed) % 10,
                                                KeyLocations.positionOf(packed)));
                            }
                            renumbered.put(k, kept);
                        });
                model.clear();
                model.putAll(renumbered);
            }
            if (step % 997 == 0) {
                assertAgrees(table, model, keys);
            }
        }
        assertAgrees(table, model, keys);
        assertThat(replaced[0]).as("dead locations replaced").isPositive();
    }

    @Test
    void aMillionIntegralKeysTakeAtMost43BytesEach() {
        KeyLocations table = new KeyLocations(false);
        for (long key = 0; key < 1_000_000; key++) {
            table.add(
                    KeyIdentity.ofIntegral(key * 7919), KeyLocations.pack((int) (key % 100), key));
        }
        assertThat(table.size()).isEqualTo(1_000_000);
        assertThat(table.memoryBytes() / 1_000_000.0).isLessThanOrEqualTo(43.0);
        assertThat(table.get(KeyIdentity.ofIntegral(7919L * 4242)))
                .containsExactly(KeyLocations.pack(42, 4242));
        assertThat(table.get(KeyIdentity.ofIntegral(7919L * 4242 + 1))).isEmpty();
    }

    /**
     * A table another engine wrote may hold one key in many rows. Each of its locations is charged
     * to the memory budget, and the key's locations stay exact as rows come and go.
     */
    @Test
    void aKeyInManyRowsIsChargedPerRowAndKeepsEveryLocation() {
        KeyLocations table = new KeyLocations(true);
        KeyIdentity key = KeyIdentity.of(RowKey.ofValues("duplicated"), false);
        int rows = 50_000;
        long empty = table.memoryBytes();
        for (int row = 0; row < rows; row++) {
            table.add(key, KeyLocations.pack(row % 7, row));
        }
        assertThat(table.size()).isEqualTo(1);
        assertThat(table.memoryBytes() - empty).isGreaterThanOrEqualTo(8L * rows);
        long[] all = table.get(key);
        assertThat(all).hasSize(rows);

        for (int row = 0; row < rows; row += 2) {
            table.remove(key, KeyLocations.pack(row % 7, row));
        }
        long[] odd = table.get(key);
        assertThat(odd).hasSize(rows / 2);
        for (long location : odd) {
            assertThat(KeyLocations.positionOf(location) % 2).isEqualTo(1);
            assertThat(KeyLocations.fileOf(location))
                    .isEqualTo((int) (KeyLocations.positionOf(location) % 7));
        }
        for (int row = 1; row < rows - 2; row += 2) {
            table.remove(key, KeyLocations.pack(row % 7, row));
        }
        assertThat(table.get(key)).containsExactly(KeyLocations.pack((rows - 1) % 7, rows - 1));
    }

    @Test
    void aTableReservedForItsKeysHoldsThemInTheSameSpaceAsOneThatGrew() {
        KeyLocations grown = new KeyLocations(true);
        KeyLocations reserved = new KeyLocations(true);
        reserved.add(KeyIdentity.ofIntegral(-1), KeyLocations.pack(0, 0));
        reserved.reserve(100_001);
        long reservedBytes = reserved.memoryBytes();
        grown.add(KeyIdentity.ofIntegral(-1), KeyLocations.pack(0, 0));
        for (long key = 0; key < 100_000; key++) {
            KeyIdentity identity = new KeyIdentity(key * 7919, ~key);
            grown.add(identity, KeyLocations.pack(1, key));
            reserved.add(identity, KeyLocations.pack(1, key));
        }
        assertThat(reserved.memoryBytes()).isEqualTo(reservedBytes).isEqualTo(grown.memoryBytes());
        assertThat(reserved.size()).isEqualTo(100_001);
        assertThat(reserved.get(KeyIdentity.ofIntegral(-1)))
                .containsExactly(KeyLocations.pack(0, 0));
        assertThat(reserved.get(new KeyIdentity(7919L * 4242, ~4242L)))
                .containsExactly(KeyLocations.pack(1, 4242));
        reserved.reserve(10);
        assertThat(reserved.memoryBytes()).as("never shrinks").isEqualTo(reservedBytes);
    }

    /**
     * A block of new rows replaces a key's one location that is known dead (its file left, or its
     * vector deletes the row) instead of keeping both; a live one is kept beside the new one.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aBlockReplacesAKeysOneDeadLocation(boolean wide) {
        KeyLocations table = new KeyLocations(wide);
        long low = wide ? 99 : 0;
        table.addAll(
                new long[] {1, 2},
                new long[] {low, low},
                new long[] {5, 6},
                2,
                0,
                KeyLocations.Liveness.ALL_LIVE);
        long before = table.memoryBytes();

        table.addAll(
                new long[] {1, 2},
                new long[] {low, low},
                new long[] {0, 1},
                2,
                3,
                new KeyLocations.Liveness() {
                    @Override
                    public boolean isDead(long location) {
                        return KeyLocations.fileOf(location) == 0
                                && KeyLocations.positionOf(location) == 5;
                    }

                    @Override
                    public void replaced(long location) {}
                });

        assertThat(table.get(new KeyIdentity(1, low)))
                .as("a dead location replaced")
                .containsExactly(KeyLocations.pack(3, 0));
        assertThat(table.get(new KeyIdentity(2, low)))
                .as("a live one kept beside the new one")
                .containsExactlyInAnyOrder(KeyLocations.pack(0, 6), KeyLocations.pack(3, 1));
        assertThat(table.size()).isEqualTo(2);
        assertThat(table.memoryBytes() - before).as("one key in the side map").isPositive();
    }

    @Test
    void locationsPackFileAndPosition() {
        long packed = KeyLocations.pack(KeyLocations.MAX_FILES - 1, (1L << 40) - 1);
        assertThat(KeyLocations.fileOf(packed)).isEqualTo(KeyLocations.MAX_FILES - 1);
        assertThat(KeyLocations.positionOf(packed)).isEqualTo((1L << 40) - 1);
    }

    private static void assertAgrees(
            KeyLocations table, Map<KeyIdentity, Set<Long>> model, List<KeyIdentity> keys) {
        assertThat(table.size()).isEqualTo(model.size());
        for (KeyIdentity key : new HashSet<>(keys)) {
            Set<Long> expected = model.getOrDefault(key, Set.of());
            long[] actual = table.get(key);
            Set<Long> found = new HashSet<>();
            Arrays.stream(actual).forEach(found::add);
            assertThat(found).as("locations of %s", key).isEqualTo(expected);
            assertThat(actual).hasSize(expected.size());
        }
    }
}
