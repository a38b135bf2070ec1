package io.deltalite.flink.cdc;

import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.flink.cdc.common.configuration.Configuration;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.factories.DataSinkFactory;
import org.apache.flink.cdc.common.factories.Factory;
import org.apache.flink.cdc.common.factories.FactoryHelper;
import org.apache.flink.cdc.common.sink.DataSink;
import org.apache.flink.cdc.runtime.typeutils.EventTypeInfo;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A pipeline run as Flink CDC 3.5's command line runs one with {@code --use-mini-cluster}, minus
 * the YAML: in one JVM whose class path is Flink's {@code lib/} and Flink CDC's {@code lib/}, the
 * sink's factory is found by its identifier among the class path's {@code
 * org.apache.flink.cdc.common.factories.Factory} services ({@code FactoryDiscoveryUtils}), the jar
 * that holds it is added to the job's jars (so the tasks load it in their own child-first class
 * loader, as on a cluster), the sink is created from the sink options and wired as the composer
 * wires it ({@link PipelineTopology}), and the job runs to its end on a local mini cluster.
 *
 * <p>It refers to no deltalite class: e2e-tests/flink-1.20 runs it with the bundle jar as the only
 * deltalite code on the class path. Arguments: the table root, the script's seed and its changes
 * per phase ({@link PipelineScript}).
 */
public final class MiniClusterPipeline {
    private MiniClusterPipeline() {}

    public static void main(String[] args) throws Exception {
        String root = args[0];
        long seed = Long.parseLong(args[1]);
        int changesPerPhase = Integer.parseInt(args[2]);

        DataSinkFactory factory = sinkFactory("deltalite");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        URL jar = factory.getClass().getProtectionDomain().getCodeSource().getLocation();
        if (!Files.isDirectory(Paths.get(jar.toURI()))) {
            org.apache.flink.configuration.Configuration jobJars =
                    new org.apache.flink.configuration.Configuration();
            jobJars.set(PipelineOptions.JARS, List.of(jar.toString()));
            env.configure(jobJars);
        }
        env.enableCheckpointing(300);
        env.setParallelism(2);

        DataSink sink =
                factory.createDataSink(
                        new FactoryHelper.DefaultContext(
                                Configuration.fromMap(
                                        Map.of(
                                                "table.root",
                                                root,
                                                "partition.key",
                                                "shop.orders:customer")),
                                new Configuration(),
                                Thread.currentThread().getContextClassLoader()));
        PipelineScript script = new PipelineScript(seed, changesPerPhase);
        DataStream<Event> events =
                env.addSource(new ScriptSource("mini-cluster", script.events, 50), "source")
                        .returns(new EventTypeInfo())
                        .uid("source");
        PipelineTopology.sinkTo(events, sink);
        env.execute("deltalite pipeline on a mini cluster");
    }

    /**
     * Each table's name (as {@code shop/orders}, its place below the table root) and the rows the
     * run leaves in it, in the Java types a Delta reader returns.
     */
    public static Map<String, Collection<Object[]>> expectedTables(long seed, int changesPerPhase) {
        Map<String, Collection<Object[]>> tables = new LinkedHashMap<>();
        for (Map.Entry<TableId, Map<Object, Object[]>> table :
                new PipelineScript(seed, changesPerPhase).model.entrySet()) {
            tables.put(
                    table.getKey().getSchemaName() + "/" + table.getKey().getTableName(),
                    new ArrayList<>(table.getValue().values()));
        }
        return tables;
    }

    /** As Flink CDC's {@code FactoryDiscoveryUtils.getFactoryByIdentifier}. */
    private static DataSinkFactory sinkFactory(String identifier) {
        List<String> seen = new ArrayList<>();
        for (Factory factory : ServiceLoader.load(Factory.class)) {
            seen.add(factory.getClass().getName());
            if (factory.identifier().equals(identifier) && factory instanceof DataSinkFactory) {
                return (DataSinkFactory) factory;
            }
        }
        throw new IllegalStateException(
                "no pipeline sink factory '" + identifier + "' on the class path; found " + seen);
    }
}
