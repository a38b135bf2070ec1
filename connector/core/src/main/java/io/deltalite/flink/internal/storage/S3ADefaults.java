package io.deltalite.flink.internal.storage;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.s3a.S3A;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider;
import org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider;

/** What deltalite adds to the user's Hadoop settings for S3 tables, where the user set nothing. */
public final class S3ADefaults {
    static final String CREDENTIALS_PROVIDER = "fs.s3a.aws.credentials.provider";

    /**
     * Keys in the settings (session or plain), else the AWS SDK's default chain: what users of AWS
     * tools expect when they configure no credentials.
     */
    static final String DEFAULT_CREDENTIALS_PROVIDERS =
            String.join(
                    ",",
                    TemporaryAWSCredentialsProvider.class.getName(),
                    SimpleAWSCredentialsProvider.class.getName(),
                    AwsDefaultCredentialChain.class.getName());

    private S3ADefaults() {}

    /**
     * Serves {@code s3://} with S3A (Hadoop 3 has no {@code s3://} file system of its own) and,
     * unless credential providers were configured, looks for credentials where AWS tools do.
     * Settings the user made, in the options or in a Hadoop configuration file, are kept.
     */
    public static void apply(Configuration conf) {
        setUnlessConfigured(conf, "fs.s3.impl", S3AFileSystem.class.getName());
        setUnlessConfigured(conf, "fs.AbstractFileSystem.s3.impl", S3A.class.getName());
        setUnlessConfigured(conf, CREDENTIALS_PROVIDER, DEFAULT_CREDENTIALS_PROVIDERS);
    }

    /** Sets {@code key} unless it has a value from somewhere other than Hadoop's defaults. */
    private static void setUnlessConfigured(Configuration conf, String key, String value) {
        if (conf.get(key) == null || onlyHadoopsDefault(conf, key)) {
            conf.set(key, value, "deltalite default");
        }
    }

    private static boolean onlyHadoopsDefault(Configuration conf, String key) {
        String[] sources = conf.getPropertySources(key);
        if (sources == null || sources.length == 0) {
            return false;
        }
        for (String source : sources) {
            if (!source.equals("core-default.xml")) {
                return false;
            }
        }
        return true;
    }
}
