package io.deltalite.flink;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.deltalite.flink.internal.compat.SinkV2;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lines the whole connector keeps, on the Flink line these tests run on: the core's rules over
 * every class, and the APIs that differ between Flink 1.20 and 2.x only in {@code internal.compat}
 * (each line has its own copy of that package).
 */
class FlinkLayeringTest {
    private static final String COMPAT = "io.deltalite.flink.internal.compat..";
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = LayeringTest.deltaliteClasses();
    }

    @Test
    void theCoreRulesHoldOverTheWholeConnector() {
        LayeringTest.KERNEL_ONLY_IN_DELTA.check(classes);
        LayeringTest.KERNEL_INTERNALS_IN_ONE_CLASS.check(classes);
        LayeringTest.S3_ONLY_IN_STORAGE.check(classes);
        LayeringTest.EXCEPTIONS_EXPOSE_NO_INTERNALS.check(classes);
        RoomsTest.FAULTS_ONLY_AT_THEIR_HOOKS.check(classes);
    }

    @Test
    void theEngineDoesNotDependOnFlink() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "io.deltalite.flink.internal.merge..",
                        "io.deltalite.flink.internal.delta..",
                        "io.deltalite.flink.internal.parquet..",
                        "io.deltalite.flink.internal.storage..",
                        "io.deltalite.flink.internal.faults..",
                        "io.deltalite.flink.exceptions..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.apache.flink..")
                .check(classes);
    }

    @Test
    void onlyTheAdapterReadsCheckpointIdsOfCommittables() {
        noClasses()
                .that()
                .resideOutsideOfPackage(COMPAT)
                .should()
                .callMethodWhere(
                        target(name("getCheckpointId").or(name("getCheckpointIdOrEOI")))
                                .and(target(owner(assignableTo(CommittableMessage.class)))))
                .because("CommittableMessage.getCheckpointId() is an OptionalLong on Flink 1.20")
                .check(classes);
    }

    @Test
    void onlyTheAdapterMakesCommittableSummaries() {
        noClasses()
                .that()
                .resideOutsideOfPackage(COMPAT)
                .should()
                .callConstructorWhere(target(owner(assignableTo(CommittableSummary.class))))
                .because("CommittableSummary's constructors differ between Flink 1.20 and 2.x")
                .check(classes);
    }

    @Test
    void everySinkGoesThroughTheAdaptersSinkInterface() {
        classes()
                .that()
                .areAssignableTo(Sink.class)
                .and()
                .resideOutsideOfPackage(COMPAT)
                .should()
                .beAssignableTo(SinkV2.class)
                .because(
                        "Flink 1.20's Sink declares createWriter(Sink.InitContext); SinkV2 answers")
                .check(classes);
        noClasses()
                .that()
                .resideOutsideOfPackage(COMPAT)
                .should()
                .dependOnClassesThat()
                .haveFullyQualifiedName("org.apache.flink.api.connector.sink2.Sink$InitContext")
                .check(classes);
    }
}
