package io.deltalite.flink.sink;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.maintenance.DeadLineageCleanup;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.storage.StorageSettings;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Removes what jobs that will never run again left in a table: the notes a job keeps under {@code
 * _deltalite/journal/<app id>/}, the staged key files they name under {@code _deltalite/staged/},
 * and the data and deletion vector files they name that no version references — what a job that was
 * cancelled, or stopped and never resumed, leaves behind. {@code VACUUM} never touches {@code
 * _deltalite/}.
 *
 * <pre>{@code
 * MaintenanceReport removed = DeltaLiteMaintenance.forTable("s3a://lake/orders")
 *     .hadoopOption("fs.s3a.endpoint", "https://s3.eu-west-1.amazonaws.com")
 *     .run();
 * }</pre>
 *
 * or from the command line, with the connector's jar: {@code java -cp
 * deltalite-connector-<version>-sql.jar:$FLINK_HOME/lib/*
 * io.deltalite.flink.sink.DeltaLiteMaintenance s3a://lake/orders --dry-run}.
 *
 * <p>A job's lineage — the checkpoints it prepares under its app id — is dead when none of its
 * notes, none of its heartbeats and none of its commits is younger than the retention period (7
 * days by default, Delta's default {@code delta.deletedFileRetentionDuration}; the table's own
 * value when it sets a longer one), as {@code VACUUM} ages files: a running job refreshes its
 * heartbeat every {@link DeltaLiteOptions#HEARTBEAT_INTERVAL}, also without input, so its lineage
 * is live and the pass may run beside it. A lineage whose heartbeat is old but refreshed more
 * rarely than half the retention is left undecided. A savepoint older than the retention may no
 * longer be restored — as after {@code VACUUM} with the same retention, its commit would be refused
 * for missing files. A file that a version added is never removed; where the log no longer holds
 * the versions that would tell, data files stay for {@code VACUUM} and only the notes and staged
 * keys go.
 */
@PublicEvolving
public final class DeltaLiteMaintenance {
    /** The retention used unless another is set, and the shortest allowed without the override. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

    private static final String USAGE =
            String.join(
                    "\n",
                    "Usage: DeltaLiteMaintenance <table path> [options]",
                    "Removes the notes, staged key files and unreferenced data files that jobs",
                    "which will never run again left in a deltalite-written Delta table.",
                    "Options:",
                    "  --dry-run                  report what would be removed, remove nothing",
                    "  --retention <duration>     a job with a note, heartbeat or commit younger",
                    "                             than this is alive (default 7d; e.g. 7d, 36h,",
                    "                             90m, PT12H; the table's longer",
                    "                             delta.deletedFileRetentionDuration wins)",
                    "  --allow-short-retention    allow a retention below 7 days: a job stopped",
                    "                             longer than it can no longer be resumed",
                    "  --hadoop <key>=<value>     a Hadoop setting of the table's file system,",
                    "                             e.g. fs.s3a.endpoint=https://... (repeatable)");

    private final String location;
    private final Map<String, String> hadoopOptions = new LinkedHashMap<>();
    private Duration retention = DEFAULT_RETENTION;
    private boolean allowShortRetention;
    private boolean dryRun;

    private DeltaLiteMaintenance(String location) {
        this.location = Objects.requireNonNull(location, "location");
    }

    /** Maintenance of the existing Delta table at {@code location}. */
    public static DeltaLiteMaintenance forTable(String location) {
        return new DeltaLiteMaintenance(location);
    }

    /**
     * A lineage with a note, a heartbeat or a commit younger than {@code retention} is live and
     * left alone. Shorter than {@link #DEFAULT_RETENTION} only with {@link #allowShortRetention()};
     * a table whose {@code delta.deletedFileRetentionDuration} is longer gets that instead. To
     * judge running jobs by their heartbeats it must be at least twice the sinks' {@link
     * DeltaLiteOptions#HEARTBEAT_INTERVAL}.
     */
    public DeltaLiteMaintenance retention(Duration retention) {
        Objects.requireNonNull(retention, "retention");
        if (retention.isNegative()) {
            throw new IllegalArgumentException(
                    "The retention must not be negative, got " + retention + ".");
        }
        this.retention = retention;
        return this;
    }

    /**
     * Allows a retention below {@link #DEFAULT_RETENTION}, as Delta's {@code
     * retentionDurationCheck} does for {@code VACUUM}: only when no job will be resumed that was
     * stopped (or whose savepoint was taken) longer ago than the retention.
     */
    public DeltaLiteMaintenance allowShortRetention() {
        this.allowShortRetention = true;
        return this;
    }

    /** Only reports what would be removed. */
    public DeltaLiteMaintenance dryRun(boolean dryRun) {
        this.dryRun = dryRun;
        return this;
    }

    /** A Hadoop setting for the table's file system, for example {@code fs.s3a.endpoint}. */
    public DeltaLiteMaintenance hadoopOption(String key, String value) {
        hadoopOptions.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
        return this;
    }

    /**
     * Decides every lineage with notes in the table and removes what the dead ones left (nothing in
     * a dry run).
     *
     * @return per lineage: live or dead and why, and the notes, files and bytes removed
     * @throws IllegalArgumentException for a retention below {@link #DEFAULT_RETENTION} without
     *     {@link #allowShortRetention()}
     */
    public MaintenanceReport run() {
        if (retention.compareTo(DEFAULT_RETENTION) < 0 && !allowShortRetention) {
            throw new IllegalArgumentException(
                    "A retention of "
                            + retention
                            + " for "
                            + location
                            + " is below "
                            + DEFAULT_RETENTION.toDays()
                            + " days: the files of a job stopped for longer, or of a savepoint"
                            + " taken longer ago, would be removed while the job may still be"
                            + " resumed. Use a retention of at least "
                            + DEFAULT_RETENTION.toDays()
                            + " days, or allow a shorter one (allowShortRetention(),"
                            + " --allow-short-retention) if no such job will be resumed.");
        }
        DeltaTable table =
                DeltaTable.open(
                        location,
                        new StorageSettings(hadoopOptions, false),
                        MergeOptions.DEFAULTS,
                        TableDefinition.existingTable(),
                        false);
        return new DeadLineageCleanup(table, retention).run(Instant.now(), dryRun);
    }

    /** The command line: see {@link #USAGE}, printed by {@code --help}. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the command line.
     *
     * @return the exit code: 0 done, 1 failed, 2 wrong arguments
     */
    static int run(String[] args, PrintStream out, PrintStream err) {
        DeltaLiteMaintenance maintenance;
        try {
            maintenance = parse(args);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return 2;
        }
        if (maintenance == null) {
            out.println(USAGE);
            return 0;
        }
        try {
            out.println(maintenance.run());
            return 0;
        } catch (RuntimeException e) {
            err.println("Maintenance of " + maintenance.location + " failed: " + e.getMessage());
            return e instanceof IllegalArgumentException ? 2 : 1;
        }
    }

    /** The maintenance the arguments ask for, or null for {@code --help}. */
    private static DeltaLiteMaintenance parse(String[] args) {
        DeltaLiteMaintenance maintenance = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                return null;
            }
            if (!arg.startsWith("--")) {
                if (maintenance != null) {
                    throw new IllegalArgumentException(
                            "One table path only; got " + maintenance.location + " and " + arg);
                }
                maintenance = forTable(arg);
                continue;
            }
            if (maintenance == null) {
                throw new IllegalArgumentException("The table path comes first, before " + arg);
            }
            switch (arg) {
                case "--dry-run" -> maintenance.dryRun(true);
                case "--allow-short-retention" -> maintenance.allowShortRetention();
                case "--retention" -> maintenance.retention(duration(value(args, ++i, arg)));
                case "--hadoop" -> {
                    String setting = value(args, ++i, arg);
                    int equals = setting.indexOf('=');
                    if (equals <= 0) {
                        throw new IllegalArgumentException(
                                "--hadoop takes <key>=<value>, got a setting without '='");
                    }
                    maintenance.hadoopOption(
                            setting.substring(0, equals), setting.substring(equals + 1));
                }
                default -> throw new IllegalArgumentException("Unknown option " + arg);
            }
        }
        if (maintenance == null) {
            throw new IllegalArgumentException("No table path given.");
        }
        return maintenance;
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[index];
    }

    /** {@code 7d}, {@code 36h}, {@code 90m}, {@code 30s} or an ISO-8601 duration. */
    static Duration duration(String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (value.startsWith("p")) {
                return Duration.parse(text.trim());
            }
            long amount = Long.parseLong(value.substring(0, value.length() - 1));
            return switch (value.charAt(value.length() - 1)) {
                case 'd' -> Duration.ofDays(amount);
                case 'h' -> Duration.ofHours(amount);
                case 'm' -> Duration.ofMinutes(amount);
                case 's' -> Duration.ofSeconds(amount);
                default -> throw new NumberFormatException();
            };
        } catch (DateTimeParseException
                | NumberFormatException
                | StringIndexOutOfBoundsException e) {
            throw new IllegalArgumentException(
                    "Cannot read the retention '" + text + "': write 7d, 36h, 90m, 30s or PT36H");
        }
    }

    @Override
    public String toString() {
        // Hadoop options may hold credentials: only their keys.
        return "DeltaLiteMaintenance{"
                + location
                + ", retention "
                + retention
                + (dryRun ? ", dry run" : "")
                + ", hadoop options "
                + hadoopOptions.keySet()
                + "}";
    }
}
