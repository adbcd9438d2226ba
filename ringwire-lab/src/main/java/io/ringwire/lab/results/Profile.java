package io.ringwire.lab.results;

import com.fasterxml.jackson.annotation.JsonIgnore;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One measured process's profile of one window ({@code --profile}), a server's or the redis-client workload's client
 * JVM's: its samples by {@link ProfileLayer} and by leaf frame (self time), read from async-profiler's collapsed
 * stacks, with the process's CPU per message (per command, for a client) over the same window.
 *
 * @param workload     the workload
 * @param variant      its parameters
 * @param server       the competitor: a server, or a client
 * @param round        the round
 * @param engine       the sampling engine that ran: {@code cpu-clock} (perf_events), or {@code itimer} and why
 * @param flameGraph   the flame graph, relative to the report's directory
 * @param collapsed    the collapsed stacks, relative to the report's directory
 * @param samples      samples in the window
 * @param kernelFrames whether any sample had kernel frames
 * @param cpuUsPerMsg  the process's CPU per message over the window, its JIT compiler threads included (they
 *                     are in the samples too)
 * @param layers       samples per layer
 * @param self         samples per leaf frame ({@code _[k]} on kernel frames); not written to results.json
 */
public record Profile(String workload, String variant, String server, int round, String engine, String flameGraph,
                      String collapsed, long samples, boolean kernelFrames, double cpuUsPerMsg,
                      Map<ProfileLayer, Long> layers, @JsonIgnore Map<String, Long> self) {
    /**
     * @param lines collapsed stacks: {@code frame;frame;...;leaf count}, one per line
     * @return samples per layer and per leaf frame, the total and whether kernel frames were seen, in a profile
     *         with the given identity
     */
    public static Profile of(String workload, String variant, String server, int round, String engine, String flameGraph,
                             String collapsed, double cpuUsPerMsg, List<String> lines) {
        Map<ProfileLayer, Long> layers = new EnumMap<>(ProfileLayer.class);
        for (ProfileLayer l : ProfileLayer.values()) {
            layers.put(l, 0L);
        }
        Map<String, Long> self = new HashMap<>();
        long total = 0;
        boolean kernel = false;
        for (String line : lines) {
            int space = line.lastIndexOf(' ');
            if (space <= 0) {
                continue;
            }
            long n;
            try {
                n = Long.parseLong(line.substring(space + 1).trim());
            } catch (NumberFormatException e) {
                continue;
            }
            String stack = line.substring(0, space);
            layers.merge(ProfileLayer.of(stack), n, Long::sum);
            self.merge(stack.substring(stack.lastIndexOf(';') + 1), n, Long::sum);
            kernel |= stack.contains(ProfileLayer.KERNEL);
            total += n;
        }
        return new Profile(workload, variant, server, round, engine, flameGraph, collapsed, total, kernel, cpuUsPerMsg,
            layers, self);
    }

    /** Reads {@code file}'s collapsed stacks. */
    public static Profile read(String workload, String variant, String server, int round, String engine, String flameGraph,
                               String collapsed, double cpuUsPerMsg, Path file) throws IOException {
        return of(workload, variant, server, round, engine, flameGraph, collapsed, cpuUsPerMsg,
            Files.readAllLines(file, StandardCharsets.UTF_8));
    }
}
