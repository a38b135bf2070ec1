-- Debezium change events of an `orders` table, read from a JSON file; a CDC connector such as
-- Flink CDC's mysql-cdc or Kafka with 'format' = 'debezium-json' produces the same changelog.
CREATE TABLE orders_cdc (
  id     BIGINT,
  `day`  STRING,
  amount INT,
  note   STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${events}',
  'format' = 'debezium-json'
);

-- The Delta table that mirrors it: one row per order, partitioned by day.
CREATE TABLE orders (
  id     BIGINT,
  `day`  STRING,
  amount INT,
  note   STRING,
  PRIMARY KEY (id) NOT ENFORCED
) PARTITIONED BY (`day`) WITH (
  'connector' = 'deltalite',
  'path' = '${table}'
);

INSERT INTO orders SELECT * FROM orders_cdc;
