package io.deltalite.flink.internal.parquet;

import io.deltalite.flink.internal.merge.schema.ValueType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * The key columns of one data file as the readers of this package decode them: per key column its
 * form ({@link KeyColumnForm}) and its descriptor, and the file's schema projected to them.
 */
record ProjectedKeyColumns(
        List<KeyColumnForm> forms, ColumnDescriptor[] descriptors, MessageType projection) {
    /**
     * No configuration files are read (that costs an XML parse per file); the class loader is
     * deltalite's, not the one of the thread that first touches this class (under Flink, a job's
     * loader that is closed when the job ends).
     */
    private static final Configuration CONFIGURATION = configuration();

    private static Configuration configuration() {
        Configuration configuration = new Configuration(false);
        configuration.setClassLoader(ProjectedKeyColumns.class.getClassLoader());
        return configuration;
    }

    /** Opens {@code file} for reading its footer and row groups. */
    static ParquetFileReader open(InputFile file) throws IOException {
        return new ParquetFileReader(file, HadoopReadOptions.builder(CONFIGURATION).build());
    }

    /**
     * The key columns {@code names} of types {@code types} in a file of {@code schema}, or null
     * when the file lacks one or stores one in a form this package does not decode exactly.
     */
    static ProjectedKeyColumns of(MessageType schema, List<String> names, List<ValueType> types) {
        List<KeyColumnForm> forms = new ArrayList<>(names.size());
        List<Type> projected = new ArrayList<>(names.size());
        ColumnDescriptor[] descriptors = new ColumnDescriptor[names.size()];
        for (int c = 0; c < names.size(); c++) {
            String name = names.get(c);
            if (!schema.containsField(name)) {
                return null;
            }
            Type column = schema.getType(name);
            KeyColumnForm form = KeyColumnForm.of(types.get(c), column);
            if (form == null) {
                return null;
            }
            forms.add(form);
            projected.add(column);
            descriptors[c] = schema.getColumnDescription(new String[] {name});
        }
        return new ProjectedKeyColumns(
                List.copyOf(forms), descriptors, new MessageType(schema.getName(), projected));
    }
}
