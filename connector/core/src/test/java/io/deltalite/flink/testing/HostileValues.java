package io.deltalite.flink.testing;

import java.util.List;

/** Partition values that a path, a URI or a Hive-style partition directory treats specially. */
public final class HostileValues {
    private HostileValues() {}

    /**
     * Non-empty, non-null strings; tests add {@code ""} and {@code null} where they mean to. Not
     * {@code "__HIVE_DEFAULT_PARTITION__"}, which Spark turns into null.
     */
    public static final List<String> PARTITION_STRINGS =
            List.of(
                    "it's",
                    "say \"hi\"",
                    "a/b",
                    "/leading/slash/",
                    "a=b",
                    "p=q/r=s",
                    "100%",
                    "%25",
                    "%2F",
                    "a b",
                    " ",
                    "tab\there",
                    "new\nline",
                    "a+b",
                    "a?b#c&d",
                    "C:\\windows",
                    "{curly}[square]",
                    "*:<>|",
                    "..",
                    ".",
                    "ünïcödé",
                    "日本語",
                    "emoji \uD83D\uDE00 outside the BMP",
                    "__HIVE_DEFAULT_PARTITION__x",
                    "null");
}
