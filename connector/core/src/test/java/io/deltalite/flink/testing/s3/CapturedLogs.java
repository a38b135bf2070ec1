package io.deltalite.flink.testing.s3;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * Everything logged in this JVM while open, with stack traces, into a string — at INFO for every
 * logger, and at the given, finer levels for chosen ones (those go only here, not to the console).
 */
public final class CapturedLogs implements AutoCloseable {
    private static final String APPENDER = "captured-logs";

    private final StringWriter text = new StringWriter();
    private final LoggerContext context;
    private final Configuration configuration;
    private final WriterAppender appender;
    private final Level rootLevel;
    private final List<String> addedLoggers = new ArrayList<>();

    private CapturedLogs(Map<String, Level> finerLevels) {
        context = (LoggerContext) LogManager.getContext(false);
        configuration = context.getConfiguration();
        appender =
                WriterAppender.createAppender(
                        PatternLayout.newBuilder()
                                .withConfiguration(configuration)
                                .withPattern("%d{HH:mm:ss,SSS} %-5p %c %m%n%throwable")
                                .build(),
                        null,
                        text,
                        APPENDER,
                        false,
                        true);
        appender.start();
        configuration.addAppender(appender);
        LoggerConfig root = configuration.getRootLogger();
        rootLevel = root.getLevel();
        root.setLevel(Level.INFO);
        root.addAppender(appender, null, null);
        finerLevels.forEach(
                (name, level) -> {
                    LoggerConfig logger =
                            LoggerConfig.newBuilder()
                                    .withLoggerName(name)
                                    .withLevel(level)
                                    .withAdditivity(false)
                                    .withConfig(configuration)
                                    .build();
                    logger.addAppender(appender, null, null);
                    configuration.addLogger(name, logger);
                    addedLoggers.add(name);
                });
        context.updateLoggers();
    }

    /** Starts capturing; {@code finerLevels} maps logger names to their levels while capturing. */
    public static CapturedLogs start(Map<String, Level> finerLevels) {
        return new CapturedLogs(finerLevels);
    }

    /** What was logged so far. */
    public String text() {
        synchronized (text) {
            return text.toString();
        }
    }

    @Override
    public void close() {
        addedLoggers.forEach(configuration::removeLogger);
        LoggerConfig root = configuration.getRootLogger();
        root.removeAppender(APPENDER);
        root.setLevel(rootLevel);
        context.updateLoggers();
        appender.stop();
    }
}
