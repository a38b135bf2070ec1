package io.deltalite.flink;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static java.util.stream.Collectors.counting;
import static java.util.stream.Collectors.groupingBy;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rooms of the core and the arrows between them: each room under {@code internal} says in
 * {@link #MAY_USE} which other rooms it may use, the arrows run one way, and no room of main code
 * grows past {@link #MAX_CLASSES_PER_ROOM} classes. Each room's {@code package-info.java} says the
 * same in prose. The layering against outside libraries (Flink, Kernel, S3, Parquet) is in {@link
 * LayeringTest}.
 */
public class RoomsTest {
    private static final String INTERNAL = "io.deltalite.flink.internal.";

    /** A room past this many top-level classes is a question to ask: which two rooms is it? */
    static final int MAX_CLASSES_PER_ROOM = 30;

    /**
     * Every room of the core and the rooms it may use besides itself (the public API and outside
     * libraries are {@link LayeringTest}'s business). Read bottom-up: the engine's values, the port
     * to the table, what merges produce, the merge and its parts, the writer and the committer on
     * top; the Delta side implements the port below them.
     */
    static final Map<String, Set<String>> MAY_USE =
            Map.ofEntries(
                    Map.entry("merge.schema", Set.of()),
                    Map.entry("merge.value", Set.of("merge.schema")),
                    Map.entry("merge.table", Set.of("merge.value", "merge.schema")),
                    Map.entry("merge.options", Set.of()),
                    Map.entry("merge.changes", lower("merge.table")),
                    Map.entry("merge.result", lower("merge.table")),
                    Map.entry("merge.probe", lower("merge.result", "merge.table")),
                    Map.entry("merge.index", lower("merge.probe", "merge.options", "merge.table")),
                    Map.entry(
                            "merge.compaction",
                            lower("merge.options", "merge.result", "merge.table")),
                    Map.entry(
                            "merge.rewrite",
                            lower(
                                    "merge.index",
                                    "merge.compaction",
                                    "merge.probe",
                                    "merge.changes",
                                    "merge.result",
                                    "merge.options",
                                    "merge.table")),
                    Map.entry("merge.journal", lower("merge.result", "merge.table")),
                    Map.entry(
                            "merge.writer",
                            lower(
                                    "merge.rewrite",
                                    "merge.journal",
                                    "merge.index",
                                    "merge.compaction",
                                    "merge.probe",
                                    "merge.changes",
                                    "merge.result",
                                    "merge.options",
                                    "merge.table")),
                    Map.entry(
                            "merge.commit",
                            lower(
                                    "merge.rewrite",
                                    "merge.journal",
                                    "merge.probe",
                                    "merge.result",
                                    "merge.options",
                                    "merge.table")),
                    Map.entry(
                            "merge.maintenance",
                            lower(
                                    "merge.commit",
                                    "merge.rewrite",
                                    "merge.compaction",
                                    "merge.journal",
                                    "merge.result",
                                    "merge.options",
                                    "merge.table")),
                    Map.entry("parquet", lower("merge.table")),
                    // S3 tells its faults apart through the engine's Causes
                    Map.entry("storage", Set.of("merge.table")),
                    Map.entry("faults", Set.of()),
                    Map.entry("delta.kernel", lower("merge.table")),
                    Map.entry("delta.fileio", Set.of("delta.kernel", "storage", "faults")),
                    Map.entry(
                            "delta.table",
                            lower(
                                    "delta.fileio",
                                    "delta.kernel",
                                    "parquet",
                                    "storage",
                                    "merge.options",
                                    "merge.table")));

    /** The given rooms and the engine's values and schema, which every room above them uses. */
    private static Set<String> lower(String... rooms) {
        Set<String> all = new TreeSet<>(List.of(rooms));
        all.add("merge.value");
        all.add("merge.schema");
        return all;
    }

    /**
     * The test seams are used only where they are hooked in: the table's file access and the sink's
     * writer and committer (and tests). Used by {@code FlinkLayeringTest} too.
     */
    public static final ArchRule FAULTS_ONLY_AT_THEIR_HOOKS =
            noClasses()
                    .that()
                    .resideOutsideOfPackages(
                            INTERNAL + "faults..", INTERNAL + "delta.fileio..", INTERNAL + "sink..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAPackage(INTERNAL + "faults..")
                    .because("test seams stay out of the packages production code runs through");

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = LayeringTest.deltaliteClasses();
    }

    @Test
    void eachRoomUsesOnlyTheRoomsItNames() {
        for (Map.Entry<String, Set<String>> room : new TreeMap<>(MAY_USE).entrySet()) {
            String[] forbidden =
                    MAY_USE.keySet().stream()
                            .filter(other -> !other.equals(room.getKey()))
                            .filter(other -> !room.getValue().contains(other))
                            .map(other -> INTERNAL + other + "..")
                            .toArray(String[]::new);
            noClasses()
                    .that()
                    .resideInAPackage(INTERNAL + room.getKey() + "..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(forbidden)
                    .because(room.getKey() + " may use only " + room.getValue())
                    .check(classes);
        }
    }

    /** A class placed beside the rooms instead of in one, or in a room nobody described. */
    @Test
    void everyEngineAndDeltaClassLivesInAKnownRoom() {
        classes()
                .that()
                .resideInAnyPackage(INTERNAL + "merge..", INTERNAL + "delta..")
                .should()
                .resideInAnyPackage(
                        MAY_USE.keySet().stream()
                                .filter(
                                        room ->
                                                room.startsWith("merge.")
                                                        || room.startsWith("delta."))
                                .map(room -> INTERNAL + room)
                                .toArray(String[]::new))
                .because("a new room is named in RoomsTest.MAY_USE and has a package-info.java")
                .check(classes);
    }

    @Test
    void theRoomsOfTheEngineAndOfTheDeltaSideAreFreeOfCycles() {
        slices().matching(INTERNAL + "(*).(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theTopLevelRoomsAreFreeOfCycles() {
        slices().matching(INTERNAL + "(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void noRoomHoldsMoreThanThirtyClasses() {
        Map<String, Long> sizes =
                classes.stream()
                        .filter(JavaClass::isTopLevelClass)
                        .filter(type -> !type.getSimpleName().equals("package-info"))
                        .collect(groupingBy(JavaClass::getPackageName, TreeMap::new, counting()));
        assertThat(sizes)
                .allSatisfy(
                        (room, size) ->
                                assertThat(size)
                                        .as("classes in %s", room)
                                        .isLessThanOrEqualTo(MAX_CLASSES_PER_ROOM));
    }

    @Test
    void testSeamsAreUsedOnlyAtTheirHooks() {
        FAULTS_ONLY_AT_THEIR_HOOKS.check(classes);
    }
}
