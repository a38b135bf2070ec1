package io.deltalite.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.index.KeyIndex;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For tests whose Flink jobs run with {@code key-index.validate}: fails a test during which a merge
 * found its key index disagreeing with the table's files. Such a merge fails its checkpoint, and a
 * job that may restart recovers (its writers build their indexes afresh) and ends with the right
 * table: without this, the difference would pass unseen. The jobs of a mini cluster run in the
 * test's JVM, where {@link KeyIndex#disagreementsInThisJvm} counts them.
 */
public final class NoKeyIndexDisagreements implements BeforeEachCallback, AfterEachCallback {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(NoKeyIndexDisagreements.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getStore(NAMESPACE).put("before", KeyIndex.disagreementsInThisJvm());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Long before = context.getStore(NAMESPACE).get("before", Long.class);
        if (before == null) {
            return; // the test never started
        }
        assertThat(KeyIndex.disagreementsInThisJvm() - before)
                .as(
                        "key indexes that disagreed with the table's files during the test"
                                + " (key-index.validate; the job restarted and hid it: look for"
                                + " DeltaLiteKeyIndexDisagreementException in the log)")
                .isZero();
    }
}
