-- Three tables of one database, each a stream of Debezium change events (read from JSON files
-- here; Kafka topics with 'format' = 'debezium-json' in production), mirrored into three Delta
-- tables by ONE job: a deltalite sink per table. In Flink's SQL client, wrap the INSERTs in
-- EXECUTE STATEMENT SET BEGIN ... END; MultiTableCdcExample adds them to a statement set.
CREATE TABLE orders_cdc (id BIGINT, `day` STRING, amount INT, note STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = '${events.orders}', 'format' = 'debezium-json');

CREATE TABLE customers_cdc (id BIGINT, name STRING, country STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = '${events.customers}', 'format' = 'debezium-json');

CREATE TABLE payments_cdc (id BIGINT, order_id BIGINT, amount INT, status STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = '${events.payments}', 'format' = 'debezium-json');

CREATE TABLE orders (id BIGINT, `day` STRING, amount INT, note STRING,
  PRIMARY KEY (id) NOT ENFORCED
) PARTITIONED BY (`day`) WITH ('connector' = 'deltalite', 'path' = '${table.orders}');

CREATE TABLE customers (id BIGINT, name STRING, country STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'deltalite', 'path' = '${table.customers}');

CREATE TABLE payments (id BIGINT, order_id BIGINT, amount INT, status STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'deltalite', 'path' = '${table.payments}');

INSERT INTO orders SELECT * FROM orders_cdc;
INSERT INTO customers SELECT * FROM customers_cdc;
INSERT INTO payments SELECT * FROM payments_cdc;
