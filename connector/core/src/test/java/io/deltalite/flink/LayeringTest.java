package io.deltalite.flink;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The lines the code base keeps: the engine knows neither Flink nor Kernel, and so on. */
class LayeringTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("io.deltalite.flink");
    }

    @Test
    void mergeEngineDoesNotDependOnFlink() {
        noClasses()
                .that()
                .resideInAPackage("io.deltalite.flink.internal.merge..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.apache.flink..")
                .check(classes);
    }

    @Test
    void onlyTheDeltaPackageImportsKernel() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.deltalite.flink.internal.delta..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.delta.kernel..")
                .check(classes);
    }

    @Test
    void onlyKernelInternalsUsesKernelInternalApi() {
        noClasses()
                .that()
                .doNotHaveFullyQualifiedName("io.deltalite.flink.internal.delta.KernelInternals")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.delta.kernel.internal..", "io.delta.kernel.defaults.internal..")
                .check(classes);
    }

    @Test
    void onlyTheStoragePackageKnowsS3() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.deltalite.flink.internal.storage..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.apache.hadoop.fs.s3a..", "software.amazon.awssdk..")
                .check(classes);
    }

    @Test
    void publicApiDoesNotExposeInternals() {
        noClasses()
                .that()
                .resideInAnyPackage("io.deltalite.flink.exceptions..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.deltalite.flink.internal..")
                .check(classes);
    }
}
