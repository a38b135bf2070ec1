package io.deltalite.flink.internal.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.FieldMetadata;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which columns files written under one version's names hold under names a later version does not
 * read ({@link PhysicalNames#lostSince}): what a restored checkpoint would lose if committed.
 */
class PhysicalNamesTest {
    private static final List<String> COLUMNS = List.of("id", "amount", "points", "byName");

    private static StructField field(String name, DataType type, long id, String physical) {
        return new StructField(
                name,
                type,
                true,
                FieldMetadata.builder()
                        .putLong("delta.columnMapping.id", id)
                        .putString("delta.columnMapping.physicalName", physical)
                        .build());
    }

    private static StructType point(boolean withY) {
        StructType point = new StructType().add(field("x", IntegerType.INTEGER, 3, "col-x"));
        return withY ? point.add(field("y", IntegerType.INTEGER, 4, "col-y")) : point;
    }

    private static StructType table(String amountName, String amountPhysical, boolean withY) {
        return new StructType()
                .add(field("id", IntegerType.INTEGER, 1, "col-id"))
                .add(field(amountName, StringType.STRING, 2, amountPhysical))
                .add(field("points", new ArrayType(point(withY), true), 5, "col-points"))
                .add(
                        field(
                                "byName",
                                new MapType(StringType.STRING, point(withY), true),
                                6,
                                "col-by-name"));
    }

    @Test
    void aRenameLosesNothing() {
        PhysicalNames before = PhysicalNames.of(table("amount", "col-amount", true), "name");
        PhysicalNames after = PhysicalNames.of(table("total", "col-amount", true), "name");
        assertThat(after.lostSince(before, COLUMNS)).isEmpty();
    }

    @Test
    void aColumnDroppedAndAddedAgainUnderTheSameNameIsLost() {
        PhysicalNames before = PhysicalNames.of(table("amount", "col-amount", true), "name");
        PhysicalNames after = PhysicalNames.of(table("amount", "col-amount-2", true), "name");
        assertThat(after.lostSince(before, COLUMNS))
                .containsExactly("amount (stored as col-amount)");
    }

    @Test
    void aFieldDroppedFromStructsInArraysAndMapsIsLost() {
        PhysicalNames before = PhysicalNames.of(table("amount", "col-amount", true), "name");
        PhysicalNames after = PhysicalNames.of(table("amount", "col-amount", false), "name");
        assertThat(after.lostSince(before, COLUMNS))
                .containsExactly(
                        "points[].y (stored as col-y)", "byName{value}.y (stored as col-y)");
    }

    @Test
    void turningColumnMappingOffLosesEveryColumnWhoseFileNameDiffers() {
        PhysicalNames before = PhysicalNames.of(table("amount", "col-amount", true), "name");
        PhysicalNames after = PhysicalNames.of(table("amount", "col-amount", true), "none");
        assertThat(after.lostSince(before, COLUMNS)).hasSize(4);
    }
}
