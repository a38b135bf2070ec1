package io.deltalite.flink.internal.merge.result;

import io.deltalite.flink.internal.merge.value.DataFile;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;

/**
 * A compact digest of the set of live files of a partition. A merge records the fingerprint of the
 * files it planned against; if the table's partition has a different fingerprint at commit time,
 * someone else changed the partition and the merge must be redone.
 */
public final class LiveSetFingerprint {
    private LiveSetFingerprint() {}

    public static String of(Collection<DataFile> files) {
        List<String> paths = new ArrayList<>(files.size());
        files.forEach(file -> paths.add(file.identity()));
        paths.sort(null);
        MessageDigest digest = sha256();
        for (String path : paths) {
            digest.update(path.getBytes(StandardCharsets.UTF_8));
            digest.update((byte) '\n');
        }
        return paths.size() + ":" + HexFormat.of().formatHex(digest.digest(), 0, 16);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
