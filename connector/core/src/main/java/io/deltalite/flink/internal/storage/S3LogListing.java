package io.deltalite.flink.internal.storage;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Lists the objects of one S3 "directory" whose names sort at or after a given name, asking S3 for
 * only those ({@code ListObjectsV2} with {@code start-after}) — so a Delta reader that lists the
 * log from its last checkpoint on reads a page or two, however long the table's history. S3A's own
 * listing has no start-after and would page through the whole {@code _delta_log}.
 */
final class S3LogListing {
    private final S3AFileSystem fs;

    S3LogListing(S3AFileSystem fs) {
        this.fs = fs;
    }

    /**
     * The objects beside {@code from} whose names are at or after its name, in name order.
     *
     * @throws FileNotFoundException if nothing exists under the parent of {@code from}
     */
    List<FileStatus> listFrom(Path from) throws IOException {
        Path parent = from.getParent();
        String bucket = from.toUri().getHost();
        String prefix = key(parent) + "/";
        String first = from.getName();
        S3Client s3 = fs.getS3AInternals().getAmazonS3Client("list the Delta log from a version");
        List<FileStatus> files = new ArrayList<>();
        try {
            ListObjectsV2Request.Builder request =
                    ListObjectsV2Request.builder()
                            .bucket(bucket)
                            .prefix(prefix)
                            .delimiter("/")
                            // Exclusive: the key that sorts just before the first wanted name.
                            .startAfter(prefix + justBefore(first));
            String token = null;
            do {
                ListObjectsV2Response page =
                        s3.listObjectsV2(
                                token == null
                                        ? request.build()
                                        : request.continuationToken(token).build());
                for (S3Object object : page.contents()) {
                    String name = object.key().substring(prefix.length());
                    if (name.compareTo(first) >= 0 && !name.isEmpty()) {
                        files.add(
                                new FileStatus(
                                        object.size(),
                                        false,
                                        1,
                                        fs.getDefaultBlockSize(parent),
                                        object.lastModified().toEpochMilli(),
                                        new Path(parent, name)));
                    }
                }
                token =
                        Boolean.TRUE.equals(page.isTruncated())
                                ? page.nextContinuationToken()
                                : null;
            } while (token != null);
            if (files.isEmpty() && !anyUnder(s3, bucket, prefix)) {
                throw new FileNotFoundException("No such directory: " + parent);
            }
        } catch (SdkException e) {
            throw new IOException(
                    "Listing " + parent + " from " + first + " failed: " + e.getMessage(), e);
        }
        return files;
    }

    private static boolean anyUnder(S3Client s3, String bucket, String prefix) {
        return s3.listObjectsV2(
                                ListObjectsV2Request.builder()
                                        .bucket(bucket)
                                        .prefix(prefix)
                                        .maxKeys(1)
                                        .build())
                        .keyCount()
                > 0;
    }

    /** The object key of {@code path} in its bucket. */
    private static String key(Path path) {
        String key = path.toUri().getPath();
        return key.startsWith("/") ? key.substring(1) : key;
    }

    /**
     * A name that sorts before {@code name} and after every smaller name that is a Delta log file:
     * {@code name} without its last character, which is lowered by one. S3 orders keys by their
     * UTF-8 bytes, which for the ASCII names of the log is character order.
     */
    static String justBefore(String name) {
        if (name.isEmpty()) {
            return "";
        }
        char last = name.charAt(name.length() - 1);
        return name.substring(0, name.length() - 1) + (char) (last - 1);
    }
}
