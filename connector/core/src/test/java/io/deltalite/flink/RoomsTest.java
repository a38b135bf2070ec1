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
import java.util.LinkedHashMap;
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
     * libraries are {@link LayeringTest}'s business), bottom-up: the engine's values, the port to
     * the table, what merges produce, the merge and its parts, the writer and the committer on top;
     * the Delta side implements the port below them. A room built {@link #on} others may use them
     * and everything they may use.
     */
    static final Map<String, Set<String>> MAY_USE = new LinkedHashMap<>();

    static {
        room("merge.schema");
        room("merge.value", "merge.schema");
        room("merge.table", on("merge.value"));
        room("merge.options");
        room("merge.changes", on("merge.table"));
        room("merge.result", on("merge.table"));
        room("merge.probe", on("merge.result"));
        room("merge.index", on("merge.probe", "merge.options"));
        room("merge.compaction", on("merge.result", "merge.options"));
        room("merge.rewrite", on("merge.index", "merge.compaction", "merge.changes"));
        room("merge.journal", on("merge.result"));
        room("merge.writer", on("merge.rewrite", "merge.journal"));
        room("merge.commit", on("merge.rewrite", "merge.journal"));
        room("merge.maintenance", on("merge.commit"));
        room("parquet", on("merge.table"));
        // S3 tells its faults apart through the engine's Causes
        room("storage", "merge.table");
        room("faults");
        room("delta.kernel", on("merge.table"));
        // file access knows Kernel's conversions, S3 and the fault hook, not the engine
        room("delta.fileio", "delta.kernel", "storage", "faults");
        room("delta.table", on("delta.fileio", "delta.kernel", "parquet", "merge.options"));
        // the engine driven on a throwaway Delta table of its own
        room("warmup", on("delta.table", "merge.writer", "merge.commit"));
    }

    private static void room(String name, String... mayUse) {
        MAY_USE.put(name, new TreeSet<>(List.of(mayUse)));
    }

    /** The given rooms and everything they may use. */
    private static String[] on(String... rooms) {
        Set<String> all = new TreeSet<>();
        for (String room : rooms) {
            all.add(room);
            all.addAll(MAY_USE.get(room));
        }
        return all.toArray(String[]::new);
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
