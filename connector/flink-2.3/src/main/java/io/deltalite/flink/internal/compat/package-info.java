/**
 * The Flink 2.x side of the per-line adapter: the only place where the Flink layer (compiled from
 * {@code connector/flink-shared} once per line) meets an API that differs between Flink 1.20 and
 * Flink 2.x. The 1.20 module has a class of the same name and shape for each class here; {@code
 * CompatLayeringTest} keeps the differing APIs inside this package.
 */
package io.deltalite.flink.internal.compat;
