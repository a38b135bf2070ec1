package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The names a table's columns carry where deltalite meets its files: in the data files' Parquet
 * schemas, in the statistics and the partition values of the log's {@code add} actions.
 *
 * <p>Without column mapping those are the columns' own (logical) names. With column mapping ({@code
 * delta.columnMapping.mode} {@code name} or {@code id}) every column, nested fields included, has a
 * physical name that never changes ({@code delta.columnMapping.physicalName}, {@code col-<uuid>}
 * for columns Spark or Kernel created) and an id ({@code delta.columnMapping.id}): a rename changes
 * only the logical name, a dropped column's data stays in old files under a physical name no column
 * has any more. Data files are written with the physical names, and in {@code id} mode with the ids
 * as Parquet field ids, by which readers then find the columns. The merge engine sees logical names
 * only; {@code KernelFileStore} translates with this class (and the partition value codec it hands
 * the table's snapshots).
 */
public final class PhysicalNames {
    /** The table property that names the mode. */
    public static final String MODE_PROPERTY = "delta.columnMapping.mode";

    private static final String PHYSICAL_NAME = "delta.columnMapping.physicalName";

    private final StructType tableSchema;
    private final String mode;

    private PhysicalNames(StructType tableSchema, String mode) {
        this.tableSchema = tableSchema;
        this.mode = mode;
    }

    /**
     * The names of the table with schema {@code tableSchema} (as Kernel reads it from the log, with
     * the fields' metadata) and properties {@code properties}.
     */
    public static PhysicalNames of(StructType tableSchema, Map<String, String> properties) {
        return of(tableSchema, properties.getOrDefault(MODE_PROPERTY, "none"));
    }

    /**
     * The names of the table with schema {@code tableSchema} in column mapping mode {@code mode}.
     */
    public static PhysicalNames of(StructType tableSchema, String mode) {
        return new PhysicalNames(tableSchema, mode.toLowerCase(Locale.ROOT));
    }

    /** Whether the table maps its columns ({@code name} or {@code id} mode). */
    public boolean mapped() {
        return !"none".equals(mode);
    }

    /** The name top-level column {@code logical} has in data files and in the log. */
    public String of(String logical) {
        if (!mapped()) {
            return logical;
        }
        StructField field = tableSchema.get(logical);
        Object physical = field.getMetadata().getEntries().get(PHYSICAL_NAME);
        return physical == null ? logical : physical.toString();
    }

    /** {@link #of} for each of {@code logical}, in order. */
    public List<String> of(List<String> logical) {
        List<String> names = new ArrayList<>(logical.size());
        logical.forEach(name -> names.add(of(name)));
        return names;
    }

    /**
     * The data columns, nested fields included, whose values files written with {@code before}'s
     * names hold under a name this table does not read them by: each as its logical name then, with
     * the name in the files. A rename keeps the name in the files and is no loss; a dropped column,
     * a column dropped and added again, or a change of mode that renames the files' columns is.
     *
     * @param dataColumns the names of the data columns (not partition columns) at {@code before}
     */
    public List<String> lostSince(PhysicalNames before, List<String> dataColumns) {
        StructType then = new StructType();
        for (String column : dataColumns) {
            then = then.add(before.tableSchema.get(column));
        }
        List<String> lost = new ArrayList<>();
        lost(before.fileSchema(then), fileSchema(tableSchema), "", lost, then);
        return lost;
    }

    private static void lost(
            StructType written,
            StructType now,
            String prefix,
            List<String> lost,
            StructType logical) {
        for (int i = 0; i < written.length(); i++) {
            StructField field = written.at(i);
            String name = prefix + logical.at(i).getName();
            int index = now.indexOf(field.getName());
            if (index < 0) {
                lost.add(name + " (stored as " + field.getName() + ")");
                continue;
            }
            lost(
                    field.getDataType(),
                    now.at(index).getDataType(),
                    name,
                    lost,
                    logical.at(i).getDataType());
        }
    }

    /**
     * The struct fields within {@code written} (through arrays and maps) that {@code now} lacks.
     */
    private static void lost(
            DataType written, DataType now, String name, List<String> lost, DataType logical) {
        if (written instanceof StructType struct
                && now instanceof StructType nowStruct
                && logical instanceof StructType logicalStruct) {
            lost(struct, nowStruct, name + ".", lost, logicalStruct);
        } else if (written instanceof ArrayType array
                && now instanceof ArrayType nowArray
                && logical instanceof ArrayType logicalArray) {
            lost(
                    array.getElementType(),
                    nowArray.getElementType(),
                    name + "[]",
                    lost,
                    logicalArray.getElementType());
        } else if (written instanceof MapType map
                && now instanceof MapType nowMap
                && logical instanceof MapType logicalMap) {
            lost(
                    map.getKeyType(),
                    nowMap.getKeyType(),
                    name + "{key}",
                    lost,
                    logicalMap.getKeyType());
            lost(
                    map.getValueType(),
                    nowMap.getValueType(),
                    name + "{value}",
                    lost,
                    logicalMap.getValueType());
        }
    }

    /**
     * The schema data files have for the table's columns {@code logical} (a subset of the table's,
     * in any order, nested types as the table's): physical names at every level and, in {@code id}
     * mode, the ids as Parquet field ids.
     */
    public StructType fileSchema(StructType logical) {
        return mapped() ? KernelInternals.physicalSchema(logical, tableSchema, mode) : logical;
    }
}
