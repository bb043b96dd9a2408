package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.sync.GcProtocolModel.GcOrder;
import dev.quarry.core.sync.GcProtocolModel.PushSpec;
import dev.quarry.core.sync.GcProtocolModel.Step;
import dev.quarry.core.sync.GcProtocolModel.World;
import dev.quarry.core.sync.gc.GarbageCollector;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model checker for the gc and push protocol: explores every interleaving of the steps of pushes and gcs
 * ({@link GcProtocolModel}, one step per store request) by depth-first search over the worlds they reach, and checks
 * that no gc ever deletes an object a ref, a ref log entry or a push past the gc fence needs, that every run ends
 * (no push waits forever), and that every push ends with its version present. The last test ties the model to the
 * code: the steps of a push and a gc run alone are the requests the real classes send, in the same order.
 */
class GcProtocolModelTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;

  /** What a search found: the worlds seen, the finished runs, and the first violation with the steps to it. */
  private record Outcome(int worlds, int finished, String violation, List<String> trace) {}

  @Test
  void everyInterleavingOfAPushAndAGcKeepsWhatIsReachable() {
    for (boolean indexKnowsSub : List.of(false, true)) {
      Outcome outcome = explore(GcOrder.LEASES_THEN_REFS, List.of(new PushSpec("latest", "T_p", indexKnowsSub)), 1);
      assertThat(outcome.violation()).as("index knows T_sub: %s; trace %s", indexKnowsSub, outcome.trace()).isNull();
      assertThat(outcome.finished()).isPositive();
      assertThat(outcome.worlds()).as("worlds explored").isGreaterThan(100);
      System.out.printf("one push (index knows T_sub: %s), one gc: %d worlds, %d finished runs%n", indexKnowsSub,
          outcome.worlds(), outcome.finished());
    }
  }

  @Test
  void everyInterleavingOfTwoPushesToOneRefAndAGcKeepsWhatIsReachable() {
    Outcome outcome = explore(GcOrder.LEASES_THEN_REFS,
        List.of(new PushSpec("latest", "T_p", true), new PushSpec("latest", "T_q", false)), 1);
    assertThat(outcome.violation()).as("trace %s", outcome.trace()).isNull();
    System.out.printf("two pushes, one gc: %d worlds, %d finished runs%n", outcome.worlds(), outcome.finished());
  }

  @Test
  void everyInterleavingOfAPushAndTwoGcsKeepsWhatIsReachable() {
    Outcome outcome = explore(GcOrder.LEASES_THEN_REFS, List.of(new PushSpec("latest", "T_p", true)), 2);
    assertThat(outcome.violation()).as("trace %s", outcome.trace()).isNull();
    System.out.printf("one push, two gcs: %d worlds, %d finished runs%n", outcome.worlds(), outcome.finished());
  }

  /** The checker has teeth: the order gc had before (refs, then leases) loses the objects a push reused. */
  @Test
  void readingRefsBeforeLeasesLosesAReusedObjectInSomeInterleaving() {
    Outcome outcome = explore(GcOrder.REFS_THEN_LEASES, List.of(new PushSpec("latest", "T_p", false)), 1);
    assertThat(outcome.violation()).matches("gc 0 deleted T_\\w+, which a ref, a ref log entry or a push past the"
        + " fence needs");
    assertThat(String.join(", ", outcome.trace())).contains("push 0: LIST gc-running", "gc 0: PUT gc-running",
        "gc 0: LIST ref", "push 0: PUT ref", "push 0: DELETE lease", "gc 0: LIST lease");
  }

  /**
   * A gc killed after any of its deletes leaves what that step left: every delete is checked to leave no present
   * manifest naming what it deleted. Deleting children first (or in parallel, as gc did) breaks this.
   */
  @Test
  void deletingChildManifestsFirstLeavesAParentWithoutItsSubtreeAtSomeKill() {
    Outcome outcome = explore(new GcProtocolModel(GcOrder.LEASES_THEN_REFS, false),
        List.of(new PushSpec("latest", "T_p", false)), 1);
    assertThat(outcome.violation()).isEqualTo("gc 0 deleted T_sub while T_old, which names it, is present: a kill"
        + " here leaves a manifest without its subtree");
  }

  private static Outcome explore(GcOrder order, List<PushSpec> pushes, int gcs) {
    return explore(new GcProtocolModel(order), pushes, gcs);
  }

  private static Outcome explore(GcProtocolModel model, List<PushSpec> pushes, int gcs) {
    Set<World> seen = new HashSet<>();
    int[] finished = {0};
    List<String> path = new ArrayList<>();
    String[] violation = {null};
    List<String> trace = new ArrayList<>();
    search(model, GcProtocolModel.initial(pushes, gcs), seen, finished, path, violation, trace);
    return new Outcome(seen.size(), finished[0], violation[0], trace);
  }

  private static void search(GcProtocolModel model, World world, Set<World> seen, int[] finished, List<String> path,
      String[] violation, List<String> trace) {
    if (violation[0] != null || !seen.add(world)) {
      return;
    }
    List<Step> steps = model.steps(world);
    if (steps.isEmpty()) {
      String problem = GcProtocolModel.finished(world) ? endProblem(world) : "no process can move: " + world;
      if (problem != null) {
        violation[0] = problem;
        trace.addAll(path);
      }
      finished[0]++;
      return;
    }
    for (Step step : steps) {
      path.add(step.process() + ": " + step.label());
      if (step.violation() != null) {
        violation[0] = step.violation();
        trace.addAll(path);
        return;
      }
      search(model, step.after(), seen, finished, path, violation, trace);
      path.remove(path.size() - 1);
    }
  }

  /** At the end: every ref and log entry names a present version, and every push succeeded with its version. */
  private static String endProblem(World world) {
    for (GcProtocolModel.Push push : world.pushes()) {
      if (push.failed()) {
        return "push " + push.id() + " failed";
      }
      if (!world.present().containsAll(GcProtocolModel.closure(push.spec().root()))) {
        return "push " + push.id() + " ended but its version is incomplete: " + world.present();
      }
    }
    Set<String> needed = GcProtocolModel.protectedObjects(world);
    return world.present().containsAll(needed) ? null : "a ref or log entry names a missing object: " + world;
  }

  /**
   * The model's steps for a push run alone and then a gc run alone are the requests the real classes send for the
   * same scenario, in order (repeats of one request, such as the uploads of several blobs, count once).
   */
  @Test
  void theModelsStepsAreTheRequestsOfTheRealPushAndGc() throws Exception {
    GcProtocolModel model = new GcProtocolModel(GcOrder.LEASES_THEN_REFS);
    List<String> modelled = new ArrayList<>();
    World world = GcProtocolModel.initial(List.of(new PushSpec("latest", "T_p", false)), 1);
    for (String process : List.of("push 0", "gc 0")) {
      for (Step step = next(model, world, process); step != null; step = next(model, world, process)) {
        modelled.add(process + ": " + step.label());
        world = step.after();
      }
    }

    List<String> requests = Collections.synchronizedList(new ArrayList<>());
    String[] process = {"setup"};
    try (FileStore files = new FileStore(temp.resolve("remote"))) {
      DelegatingStore recording = new DelegatingStore(files) {
        @Override
        public void before(String kind, String key) {
          if (!process[0].equals("setup")) {
            requests.add(process[0] + ": " + label(kind, key));
          }
        }
      };
      CasRemote remote = new CasRemote(recording, "cas", 4);
      // T_old: sub/shared and gone, unreferenced; T_cur: cur, named by latest and its log; T_p: sub/shared, new, cur.
      push(remote, folder("old", "sub/shared", "gone"), "old");
      files.delete("cas/refs/old");
      files.listAll("cas/refs-log/old/").toList().forEach(object -> delete(files, object.key()));
      push(remote, folder("cur", "cur"), "latest");
      Thread.sleep(5);

      process[0] = "push 0";
      push(remote, folder("p", "sub/shared", "new", "cur"), "latest");
      process[0] = "gc 0";
      Path state = temp.resolve("gc");
      try (SyncSession session = new SyncSession(state, state, remote, QUIET)) {
        GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ZERO, Duration.ofDays(30)));
      }
    }
    assertThat(collapse(requests)).isEqualTo(collapse(modelled));
  }

  private static Step next(GcProtocolModel model, World world, String process) {
    return model.steps(world).stream().filter(step -> step.process().equals(process)).findFirst().orElse(null);
  }

  /** A request as the model names it: its kind and which kind of object (lookups of presence are one kind). */
  private static String label(String kind, String key) {
    String rest = key.substring("cas/".length());
    String object;
    if (rest.startsWith("leases/")) {
      object = rest.endsWith(".trees.gz") ? "lease-trees" : "lease";
    } else if (rest.startsWith("gc/running/")) {
      object = "gc-running";
    } else if (rest.equals("gc/generation")) {
      object = "gc-generation";
    } else if (rest.startsWith("refs-log/")) {
      object = "ref-log";
    } else if (rest.startsWith("refs/")) {
      object = "ref";
    } else if (rest.startsWith("trees/")) {
      object = "tree";
    } else if (rest.startsWith("blobs/")) {
      object = "blob";
    } else {
      object = rest;
    }
    boolean lookup = (object.equals("tree") || object.equals("blob")) && !kind.equals("GET")
        && !kind.equals("PUT") && !kind.equals("DELETE");
    return (lookup ? "LOOKUP" : kind) + " " + object;
  }

  private static List<String> collapse(List<String> steps) {
    List<String> collapsed = new ArrayList<>();
    for (String step : steps) {
      if (collapsed.isEmpty() || !collapsed.get(collapsed.size() - 1).equals(step)) {
        collapsed.add(step);
      }
    }
    return collapsed;
  }

  private Path folder(String name, String... files) throws IOException {
    Path folder = temp.resolve(name);
    for (String file : files) {
      Path path = folder.resolve(file);
      Files.createDirectories(path.getParent());
      Files.writeString(path, "content of " + path.getFileName());
    }
    return folder;
  }

  private static void push(CasRemote remote, Path folder, String ref) throws IOException {
    try (SyncSession session = new SyncSession(folder, null, remote, QUIET)) {
      Push.run(session, ref, new Push.Options(false, "model@test"));
    }
  }

  private static void delete(FileStore files, String key) {
    try {
      files.delete(key);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
