/**
 * The immutable values the merge engine passes around: a row's match key and the order of key
 * values and its 128-bit identity in the key index, partition values, data files with their key
 * statistics and deletion vectors, deleted and staged keys, the key groups a writer owns, and the
 * self-describing binary form of scalar values.
 *
 * <p>Plain Java; it may use {@code merge.schema} and nothing else of the engine.
 */
package io.deltalite.flink.internal.merge.value;
