package io.deltalite.flink.internal.merge.value;

import java.util.Collection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A contiguous range of key groups, {@code first} to {@code last} of {@code groups}, under one
 * {@code scheme}: the keys a writer owns when the sink is distributed by key (the keys hash into
 * {@code groups} groups, and each writer gets a range of them), and the keys a data file may hold.
 * The scheme names how keys become groups — which columns, of which input types, hashed how — so
 * that a range is only ever compared with ranges of the same hashing: a job with another primary
 * key, or other input types for it, sees the files of an earlier one as shared, never as another
 * writer's.
 *
 * <p>A file's range is in its path: the files a key-distributed writer writes go into a folder
 * {@code keys-<scheme>-<first>-<last>-of-<groups>} of their partition, and hold rows of keys in
 * that range only (a new row has a key the writer owns; a copied row comes from a file whose range
 * the output covers). Files without such a folder (written by a writer of whole partitions, Spark,
 * the committer) may hold any key. Delta readers do not care about folders: the log lists every
 * file.
 *
 * @param scheme eight lower-case hex digits naming how keys are hashed into groups
 */
public record KeyGroups(String scheme, int first, int last, int groups) {
    private static final Pattern SCHEME = Pattern.compile("[0-9a-f]{8}");
    private static final Pattern FOLDER =
            Pattern.compile("/keys-([0-9a-f]{8})-(\\d+)-(\\d+)-of-(\\d+)/[^/]+$");

    public KeyGroups {
        if (scheme == null || !SCHEME.matcher(scheme).matches()) {
            throw new IllegalArgumentException("key scheme '" + scheme + "'");
        }
        if (groups < 1 || first < 0 || last < first || last >= groups) {
            throw new IllegalArgumentException(
                    "key groups " + first + " to " + last + " of " + groups);
        }
    }

    /** The folder, in its partition, of the files a writer owning this range writes. */
    public String folder() {
        return "keys-" + scheme + "-" + first + "-" + last + "-of-" + groups;
    }

    /** The range of the file at {@code path}, or null when it may hold any key. */
    public static KeyGroups ofPath(String path) {
        Matcher matcher = FOLDER.matcher(path);
        if (!matcher.find()) {
            return null;
        }
        try {
            return new KeyGroups(
                    matcher.group(1),
                    Integer.parseInt(matcher.group(2)),
                    Integer.parseInt(matcher.group(3)),
                    Integer.parseInt(matcher.group(4)));
        } catch (IllegalArgumentException e) {
            return null; // a folder of that shape that no writer made
        }
    }

    /** Whether every key group of {@code other} is in this range. */
    public boolean contains(KeyGroups other) {
        return other != null && sameHashing(other) && other.first >= first && other.last <= last;
    }

    /** Whether key group {@code group} is in this range. */
    public boolean containsGroup(int group) {
        return group >= first && group <= last;
    }

    /** Whether no key group of {@code other} is in this range (null may hold any key). */
    public boolean isDisjointFrom(KeyGroups other) {
        return other != null && sameHashing(other) && (other.last < first || other.first > last);
    }

    private boolean sameHashing(KeyGroups other) {
        return other.groups == groups && other.scheme.equals(scheme);
    }

    /**
     * The smallest range that covers the ranges of all {@code files}: the range of a file made of
     * their rows. Null when one of them may hold any key, or they hash keys differently.
     */
    public static KeyGroups covering(Collection<DataFile> files) {
        KeyGroups hull = null;
        for (DataFile file : files) {
            KeyGroups range = ofPath(file.path());
            if (range == null || (hull != null && !hull.sameHashing(range))) {
                return null;
            }
            hull =
                    hull == null
                            ? range
                            : new KeyGroups(
                                    range.scheme,
                                    Math.min(hull.first, range.first),
                                    Math.max(hull.last, range.last),
                                    range.groups);
        }
        return hull;
    }
}
