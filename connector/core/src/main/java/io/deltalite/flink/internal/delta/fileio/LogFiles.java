package io.deltalite.flink.internal.delta.fileio;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Names of the files in a table's {@code _delta_log}. */
public final class LogFiles {
    private static final Pattern COMMIT = Pattern.compile("(?:.*/)?_delta_log/(\\d{20})\\.json");

    private LogFiles() {}

    /** Whether {@code path} is a commit file {@code _delta_log/<20-digit version>.json}. */
    public static boolean isCommitFile(String path) {
        return COMMIT.matcher(path).matches();
    }

    /** The version of a commit file, or empty for any other path. */
    public static OptionalLong commitVersion(String path) {
        Matcher matcher = COMMIT.matcher(path);
        return matcher.matches()
                ? OptionalLong.of(Long.parseLong(matcher.group(1)))
                : OptionalLong.empty();
    }

    /** The commit file of {@code version} under the table root {@code tableRoot}. */
    public static String commitFile(String tableRoot, long version) {
        String root = tableRoot.endsWith("/") ? tableRoot : tableRoot + "/";
        return root + "_delta_log/" + String.format("%020d.json", version);
    }
}
