package io.deltalite.flink;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lines the core keeps: no Flink at all, Kernel only in internal.delta, S3 only in
 * internal.storage. The rooms inside internal and the arrows between them are {@link RoomsTest}'s.
 * The Flink layer's own lines (and these, over the whole connector) are in {@code
 * FlinkLayeringTest}.
 */
public class LayeringTest {
    /** Used by {@code FlinkLayeringTest} too, over the whole connector. */
    public static final ArchRule KERNEL_ONLY_IN_DELTA =
            noClasses()
                    .that()
                    .resideOutsideOfPackage("io.deltalite.flink.internal.delta..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("io.delta.kernel..");

    /** Used by {@code FlinkLayeringTest} too, over the whole connector. */
    public static final ArchRule KERNEL_INTERNALS_IN_ONE_CLASS =
            noClasses()
                    .that()
                    // the class and the classes nested in it: one source file
                    .haveNameNotMatching(
                            "io\\.deltalite\\.flink\\.internal\\.delta\\.kernel\\.KernelInternals(\\$.*)?")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(
                            "io.delta.kernel.internal..", "io.delta.kernel.defaults.internal..");

    /** Used by {@code FlinkLayeringTest} too, over the whole connector. */
    public static final ArchRule S3_ONLY_IN_STORAGE =
            noClasses()
                    .that()
                    .resideOutsideOfPackage("io.deltalite.flink.internal.storage..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("org.apache.hadoop.fs.s3a..", "software.amazon.awssdk..");

    /** Used by {@code FlinkLayeringTest} too, over the whole connector. */
    public static final ArchRule EXCEPTIONS_EXPOSE_NO_INTERNALS =
            noClasses()
                    .that()
                    .resideInAnyPackage("io.deltalite.flink.exceptions..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("io.deltalite.flink.internal..");

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = deltaliteClasses();
    }

    /** deltalite's classes on the class path (the core here; the whole connector in a line). */
    public static JavaClasses deltaliteClasses() {
        return new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                // The core's test helpers reach a line's tests as a test jar, which the
                // predefined option (test-classes directories only) does not know.
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.deltalite.flink");
    }

    /** The module graph already keeps Flink out of the core; this says so where it is read. */
    @Test
    void coreDoesNotDependOnFlink() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.apache.flink..")
                .check(classes);
    }

    @Test
    void onlyTheDeltaPackageImportsKernel() {
        KERNEL_ONLY_IN_DELTA.check(classes);
    }

    @Test
    void onlyKernelInternalsUsesKernelInternalApi() {
        KERNEL_INTERNALS_IN_ONE_CLASS.check(classes);
    }

    @Test
    void onlyTheStoragePackageKnowsS3() {
        S3_ONLY_IN_STORAGE.check(classes);
    }

    /**
     * Parquet reading has its own room: the merge engine hands files to a store and never reads
     * Parquet itself; the reader knows the engine's values but not Kernel, S3 or the table.
     */
    @Test
    void parquetIsReadOnlyInItsRoomAndTheStore() {
        noClasses()
                .that()
                .resideInAnyPackage("io.deltalite.flink.internal.merge..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.apache.parquet..", "io.deltalite.flink.internal.parquet..")
                .check(classes);
        noClasses()
                .that()
                .resideInAnyPackage("io.deltalite.flink.internal.parquet..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.deltalite.flink.internal.delta..",
                        "io.deltalite.flink.internal.storage..")
                .check(classes);
    }

    @Test
    void publicApiDoesNotExposeInternals() {
        EXCEPTIONS_EXPOSE_NO_INTERNALS.check(classes);
    }
}
