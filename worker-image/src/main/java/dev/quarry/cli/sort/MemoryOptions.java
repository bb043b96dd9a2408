package dev.quarry.cli.sort;

import dev.quarry.core.sort.MemoryBudget;
import dev.quarry.core.sort.spec.SortSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The JVM options of a quarry command line, one a line: for a sort, the heap of its memory budget
 * ({@link MemoryBudget#heapBytes}), the budget being {@code --memory-budget}, else the {@code --spec} file's
 * {@code workers.memoryBudget}, else the default of the memory limit ({@link MemoryBudget#defaultFor}); nothing for
 * any other command. The ./quarry launcher and the worker image's entrypoint run this in a JVM of its own before the
 * command's (worker-image/memory-options.sh), in the same cgroup, so that the command's heap follows the same rule and
 * the same parser as the command. A budget the command will refuse (a bad spelling, a spec file it cannot read, a
 * limit too small to sort) gives nothing here: the command says what is wrong.
 */
public final class MemoryOptions {
  private MemoryOptions() {}

  public static void main(String[] args) {
    options(List.of(args)).forEach(System.out::println);
  }

  /** The options for the command line {@code args}. */
  static List<String> options(List<String> args) {
    if (args.isEmpty() || !args.getFirst().equals("sort")) {
      return List.of();
    }
    boolean holdsRecordBytes = args.size() > 1 && args.get(1).equals("run");
    String budget = null;
    String spec = null;
    for (int index = 0; index < args.size(); index++) {
      String word = args.get(index);
      String next = index + 1 < args.size() ? args.get(index + 1) : null;
      if (word.equals("--memory-budget") && next != null) {
        budget = next;
      } else if (word.startsWith("--memory-budget=")) {
        budget = word.substring("--memory-budget=".length());
      } else if (word.equals("--spec") && next != null) {
        spec = next;
      } else if (word.startsWith("--spec=")) {
        spec = word.substring("--spec=".length());
      }
    }
    try {
      if (budget == null && spec != null) {
        budget = SpecFile.memoryBudget(Path.of(spec));
      }
      return List.of("-Xmx" + new SortSpec.Workers(budget, null).memory().heapSize(holdsRecordBytes));
    } catch (IllegalArgumentException | IOException e) {
      return List.of();
    }
  }
}
