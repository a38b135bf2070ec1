/**
 * The table's columns as the engine knows them: the column types and the Java values that stand for
 * them ({@link io.deltalite.flink.internal.merge.schema.ValueType}), a table's schema with its
 * primary key and partition columns, what the user declared about the table, and how an input's
 * columns map onto the table's and what they ask of its schema.
 *
 * <p>The bottom room of the merge engine: it uses nothing of deltalite but the public API's {@code
 * SchemaEvolution}, and nothing of Flink, Kernel or storage.
 */
package io.deltalite.flink.internal.merge.schema;
