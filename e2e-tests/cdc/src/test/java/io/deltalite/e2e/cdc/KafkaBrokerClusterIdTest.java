package io.deltalite.e2e.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KafkaBrokerClusterIdTest {
    /**
     * The storage tool is called with {@code -t ID}: an id starting with '-' is taken for an option
     * and formatting fails ("argument --cluster-id/-t: expected one argument"), as a CI run did.
     */
    @Test
    void noClusterIdStartsLikeAnOption() {
        for (int i = 0; i < 5_000; i++) {
            String id = KafkaBroker.newClusterId();
            assertThat(id).hasSize(22).doesNotStartWith("-").matches("[A-Za-z0-9_-]+");
        }
    }
}
