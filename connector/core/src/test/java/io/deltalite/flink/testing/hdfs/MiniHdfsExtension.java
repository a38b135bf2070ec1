package io.deltalite.flink.testing.hdfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a real HDFS — a name node and a data node of Hadoop's {@link MiniDFSCluster}, in the test
 * JVM, over RPC on a free port — for a test class:
 *
 * <pre>{@code
 * @RegisterExtension static final MiniHdfsExtension HDFS = new MiniHdfsExtension();
 * ... HDFS.uri() + "/tables/t" ...
 * }</pre>
 */
public final class MiniHdfsExtension implements BeforeAllCallback, AfterAllCallback {
    private MiniDFSCluster cluster;
    private Path baseDir;

    /** {@code hdfs://localhost:<port>}: the root of the file system. */
    public String uri() {
        return cluster().getURI().toString();
    }

    /** A client of the running file system. */
    public FileSystem fileSystem() throws IOException {
        return cluster().getFileSystem();
    }

    private MiniDFSCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("the mini HDFS runs only while the test class does");
        }
        return cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        baseDir = Files.createTempDirectory("mini-hdfs");
        Configuration conf = new Configuration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, baseDir.toString());
        // Small blocks so that a data file spans several, and no web servers.
        conf.setLong("dfs.blocksize", 1024 * 1024);
        conf.setBoolean("dfs.webhdfs.enabled", false);
        conf.set("dfs.namenode.http-address", "127.0.0.1:0");
        conf.set("dfs.datanode.http.address", "127.0.0.1:0");
        cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).format(true).build();
        cluster.waitActive();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        if (cluster != null) {
            cluster.shutdown(true);
            cluster = null;
        }
        if (baseDir != null && Files.exists(baseDir)) {
            try (var files = Files.walk(baseDir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
