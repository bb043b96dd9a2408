package dev.quarry.cli.sort;

import picocli.CommandLine.Option;

/** Which share of a phase this worker does: index {@code index} of {@code count} (a Job's completion index). */
public final class WorkerIndex {
  @Option(names = "--index", required = true, description = "This worker's index, from 0.")
  int index;

  @Option(names = "--count", required = true, description = "The number of workers of this phase.")
  int count;

  int index() {
    if (count < 1 || index < 0 || index >= count) {
      throw new IllegalArgumentException("Invalid worker index: " + index + " of " + count
          + " (must be from 0 to count - 1)");
    }
    return index;
  }

  int count() {
    return count;
  }
}
