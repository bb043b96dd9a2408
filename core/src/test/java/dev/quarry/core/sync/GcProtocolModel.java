package dev.quarry.core.sync;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The push and gc protocol as atomic steps over a model store, one step per store request of the real code
 * ({@code push.Push} and {@code gc.GarbageCollector}; {@link GcProtocolModelTest} checks that the step labels follow
 * the real request sequence). Worlds are immutable values, so a checker can explore every interleaving and remember what it
 * has seen.
 *
 * <p>The scenario: an old version nobody references ({@code T_old}: {@code T_sub/B_shared}, {@code B_gone}), the
 * current version of {@code latest} ({@code T_cur}: {@code B_cur}) with its ref log entry, and pushes of versions that
 * reuse the garbage's subtree and the current version's blob. Every gc deletes with no grace period, so an object is
 * deletable as soon as it is older than the gc's start and unmarked: the worst case.
 */
final class GcProtocolModel {
  /** The trees of every version, and their children (trees start with {@code T_}, blobs with {@code B_}). */
  static final Map<String, List<String>> CHILDREN = Map.of(
      "T_old", List.of("T_sub", "B_gone"),
      "T_sub", List.of("B_shared"),
      "T_cur", List.of("B_cur"),
      "T_p", List.of("T_sub", "B_new", "B_cur"),
      "T_q", List.of("T_sub", "B_q"));

  /** Which order gc reads leases and refs in: the real one, and the one that lost objects (issue 18, finding 2). */
  enum GcOrder { LEASES_THEN_REFS, REFS_THEN_LEASES }

  /** A push to run: its ref, its version's root, and whether its local index already knows {@code T_sub}. */
  record PushSpec(String ref, String root, boolean indexKnowsSub) {}

  enum PushPhase {
    PUT_LEASE_TREES, PUT_LEASE, FENCE, GET_GENERATION, GET_REF, GET_PREVIOUS, LOOKUP_TREES, LOOKUP_BLOBS, PUT_BLOBS,
    PUT_TREES, PUT_REF_LOG, PUT_REF, DELETE_LEASE, DELETE_LEASE_TREES, DONE
  }

  enum GcPhase {
    PUT_MARKER, LIST_LEASES, READ_LEASES, LIST_REFS, GET_REFS, WALK_REFS, LIST_LOG, GET_LOG, WALK_LOG, LOOKUP_TREES,
    LOOKUP_BLOBS, READ_TREES, FIRST_GENERATION, DELETE_TREES, DELETE_BLOBS, PUT_GENERATION, LIST_MARKERS, DELETE_MARKER, DONE
  }

  /**
   * One push's progress. {@code todo}: what the current phase still has to do, one request each; {@code relied}:
   * what it found or trusted present and will not upload.
   */
  record Push(int id, PushSpec spec, PushPhase phase, List<String> todo, Set<String> relied, Set<String> missing,
      Set<String> nextLevel, Set<String> unknownBlobs, String previous, int generation, boolean failed) {
    boolean pastFence() {
      return phase.compareTo(PushPhase.FENCE) > 0 && phase != PushPhase.DONE;
    }

    Push at(PushPhase next, List<String> work) {
      return new Push(id, spec, next, List.copyOf(work), relied, missing, nextLevel, unknownBlobs, previous,
          generation, failed);
    }

    Push withTodo(List<String> work) {
      return at(phase, work);
    }
  }

  /** One gc's progress. {@code young}: objects written since its marker, which it never deletes. */
  record Gc(int id, GcPhase phase, List<String> todo, Set<String> marked, Set<String> walked, Set<String> young,
      Set<String> roots, Set<String> trees, Set<String> blobs, boolean deleted, boolean aborted) {
    Gc at(GcPhase next, List<String> work) {
      return new Gc(id, next, List.copyOf(work), marked, walked, young, roots, trees, blobs, deleted, aborted);
    }

    Gc withTodo(List<String> work) {
      return at(phase, work);
    }
  }

  /** A ref log entry. */
  record Entry(String ref, String root) {}

  /**
   * The store and every process. {@code leaseJson}/{@code leaseTrees}: the pushes whose lease marker and lease
   * contents exist; {@code markers}: the gcs whose running marker exists.
   */
  record World(Set<String> present, Map<String, String> refs, Set<Entry> log, Set<Integer> leaseJson,
      Set<Integer> leaseTrees, Set<Integer> markers, int generation, List<Push> pushes, List<Gc> gcs) {
    World withLeaseJson(int id, boolean exists) {
      return new World(present, refs, log, toggled(leaseJson, id, exists), leaseTrees, markers, generation, pushes,
          gcs);
    }

    World withLeaseTrees(int id, boolean exists) {
      return new World(present, refs, log, leaseJson, toggled(leaseTrees, id, exists), markers, generation, pushes,
          gcs);
    }

    /** An object written now: younger than the start of every gc that has begun. */
    World withWritten(String object) {
      Set<String> objects = new TreeSet<>(present);
      objects.add(object);
      List<Gc> aged = gcs.stream().map(gc -> {
        if (gc.phase() == GcPhase.PUT_MARKER || gc.phase() == GcPhase.DONE) {
          return gc;
        }
        Set<String> young = new TreeSet<>(gc.young());
        young.add(object);
        return new Gc(gc.id(), gc.phase(), gc.todo(), gc.marked(), gc.walked(), Set.copyOf(young), gc.roots(),
            gc.trees(), gc.blobs(), gc.deleted(), gc.aborted());
      }).toList();
      return new World(Set.copyOf(objects), refs, log, leaseJson, leaseTrees, markers, generation, pushes, aged);
    }

    World withDeleted(String object) {
      Set<String> objects = new TreeSet<>(present);
      objects.remove(object);
      return new World(Set.copyOf(objects), refs, log, leaseJson, leaseTrees, markers, generation, pushes, gcs);
    }

    private static Set<Integer> toggled(Set<Integer> ids, int id, boolean in) {
      Set<Integer> next = new TreeSet<>(ids);
      if (in) {
        next.add(id);
      } else {
        next.remove(id);
      }
      return Set.copyOf(next);
    }
  }

  /** A step a process can take next: its label (the request) and the world after it. */
  record Step(String process, String label, World after, String violation) {}

  private final GcOrder order;
  /** Whether gc deletes manifests parents first (the real order) or children first (the order a kill can break). */
  private final boolean parentsFirst;

  GcProtocolModel(GcOrder order) {
    this(order, true);
  }

  GcProtocolModel(GcOrder order, boolean parentsFirst) {
    this.order = order;
    this.parentsFirst = parentsFirst;
  }

  static World initial(List<PushSpec> pushes, int gcs) {
    Set<String> present = new TreeSet<>();
    present.addAll(closure("T_old"));
    present.addAll(closure("T_cur"));
    List<Push> pushStates = new ArrayList<>();
    for (int i = 0; i < pushes.size(); i++) {
      pushStates.add(new Push(i, pushes.get(i), PushPhase.PUT_LEASE_TREES, List.of(), Set.of(), Set.of(), Set.of(),
          Set.of(), null, -1, false));
    }
    List<Gc> gcStates = new ArrayList<>();
    for (int i = 0; i < gcs; i++) {
      gcStates.add(new Gc(i, GcPhase.PUT_MARKER, List.of(), Set.of(), Set.of(), Set.of(), Set.of(), Set.of(),
          Set.of(), false, false));
    }
    return new World(Set.copyOf(present), Map.of("latest", "T_cur"), Set.of(new Entry("latest", "T_cur")), Set.of(),
        Set.of(), Set.of(), 0, List.copyOf(pushStates), List.copyOf(gcStates));
  }

  static boolean isTree(String object) {
    return object.startsWith("T_");
  }

  static Set<String> closure(String root) {
    Set<String> all = new LinkedHashSet<>();
    List<String> stack = new ArrayList<>(List.of(root));
    while (!stack.isEmpty()) {
      String next = stack.remove(stack.size() - 1);
      if (all.add(next)) {
        stack.addAll(CHILDREN.getOrDefault(next, List.of()));
      }
    }
    return all;
  }

  /** What no gc may delete: the closures of the refs, of the log entries and of every push past the fence. */
  static Set<String> protectedObjects(World world) {
    Set<String> kept = new HashSet<>();
    world.refs().values().forEach(root -> kept.addAll(closure(root)));
    world.log().forEach(entry -> kept.addAll(closure(entry.root())));
    world.pushes().stream().filter(Push::pastFence).forEach(push -> kept.addAll(closure(push.spec().root())));
    return kept;
  }

  /** A present manifest naming {@code object}: after deleting it, a gc killed there breaks the remote's promise. */
  private static java.util.Optional<String> namer(World world, String object) {
    return world.present().stream().filter(GcProtocolModel::isTree)
        .filter(tree -> CHILDREN.getOrDefault(tree, List.of()).contains(object)).sorted().findFirst();
  }

  /** Every step some process can take now. */
  List<Step> steps(World world) {
    List<Step> steps = new ArrayList<>();
    for (Push push : world.pushes()) {
      Step step = step(world, push);
      if (step != null) {
        steps.add(step);
      }
    }
    for (Gc gc : world.gcs()) {
      Step step = step(world, gc);
      if (step != null) {
        steps.add(step);
      }
    }
    return steps;
  }

  static boolean finished(World world) {
    return world.pushes().stream().allMatch(p -> p.phase() == PushPhase.DONE)
        && world.gcs().stream().allMatch(g -> g.phase() == GcPhase.DONE);
  }

  // ---- push ----

  private Step step(World world, Push push) {
    String name = "push " + push.id();
    String root = push.spec().root();
    return switch (push.phase()) {
      case PUT_LEASE_TREES -> new Step(name, "PUT lease-trees", with(world.withLeaseTrees(push.id(), true),
          push.at(PushPhase.PUT_LEASE, List.of())), null);
      case PUT_LEASE -> new Step(name, "PUT lease", with(world.withLeaseJson(push.id(), true),
          push.at(PushPhase.FENCE, List.of())), null);
      case FENCE -> world.markers().isEmpty()
          ? new Step(name, "LIST gc-running", with(world, push.at(PushPhase.GET_GENERATION, List.of())), null)
          : null; // waits while a gc is running
      case GET_GENERATION -> {
        Push next = new Push(push.id(), push.spec(), PushPhase.GET_REF, List.of(), push.relied(), push.missing(),
            push.nextLevel(), push.unknownBlobs(), push.previous(), world.generation(), push.failed());
        yield new Step(name, "GET gc-generation", with(world, next), null);
      }
      case GET_REF -> {
        String previous = world.refs().get(push.spec().ref());
        Push next = new Push(push.id(), push.spec(), PushPhase.GET_REF, List.of(), push.relied(), push.missing(),
            push.nextLevel(), push.unknownBlobs(), previous, push.generation(), push.failed());
        if (root.equals(previous)) {
          next = next.at(PushPhase.PUT_REF_LOG, List.of());
        } else if (previous != null) {
          next = next.at(PushPhase.GET_PREVIOUS, List.of(previous));
        } else {
          next = startLookups(next, Set.of());
        }
        yield new Step(name, "GET ref", with(world, next), null);
      }
      case GET_PREVIOUS -> {
        String previous = push.previous();
        if (!world.present().contains(previous)) {
          Push failed = new Push(push.id(), push.spec(), PushPhase.DELETE_LEASE, List.of(), push.relied(),
              push.missing(), push.nextLevel(), push.unknownBlobs(), previous, push.generation(), true);
          yield new Step(name, "GET tree", with(world, failed), null);
        }
        // The previous version is complete by the push order: its root and children are trusted present.
        Set<String> trusted = new HashSet<>(CHILDREN.get(previous));
        trusted.add(previous);
        yield new Step(name, "GET tree", with(world, startLookups(push, trusted)), null);
      }
      case LOOKUP_TREES -> {
        String tree = push.todo().get(0);
        Set<String> relied = new HashSet<>(push.relied());
        Set<String> missing = new HashSet<>(push.missing());
        Set<String> nextLevel = new HashSet<>(push.nextLevel());
        Set<String> unknownBlobs = new HashSet<>(push.unknownBlobs());
        if (world.present().contains(tree)) {
          relied.addAll(closure(tree)); // a manifest present proves its subtree present
        } else {
          missing.add(tree);
          for (String child : CHILDREN.get(tree)) {
            if (relied.contains(child)) {
              continue;
            }
            (isTree(child) ? nextLevel : unknownBlobs).add(child);
          }
        }
        Push next = new Push(push.id(), push.spec(), PushPhase.LOOKUP_TREES, push.todo().subList(1,
            push.todo().size()), Set.copyOf(relied), Set.copyOf(missing), Set.copyOf(nextLevel),
            Set.copyOf(unknownBlobs), push.previous(), push.generation(), push.failed());
        yield new Step(name, "LOOKUP tree", with(world, afterLookup(next)), null);
      }
      case LOOKUP_BLOBS -> {
        String blob = push.todo().get(0);
        Set<String> relied = new HashSet<>(push.relied());
        Set<String> missing = new HashSet<>(push.missing());
        (world.present().contains(blob) ? relied : missing).add(blob);
        Push next = new Push(push.id(), push.spec(), PushPhase.LOOKUP_BLOBS, push.todo().subList(1,
            push.todo().size()), Set.copyOf(relied), Set.copyOf(missing), push.nextLevel(), push.unknownBlobs(),
            push.previous(), push.generation(), push.failed());
        yield new Step(name, "LOOKUP blob", with(world, next.todo().isEmpty() ? startUploads(next) : next), null);
      }
      case PUT_BLOBS -> {
        String blob = push.todo().get(0);
        Push next = push.withTodo(push.todo().subList(1, push.todo().size()));
        if (next.todo().isEmpty()) {
          next = next.at(PushPhase.PUT_TREES, treesChildrenFirst(push));
        }
        if (next.phase() == PushPhase.PUT_TREES && next.todo().isEmpty()) {
          next = next.at(PushPhase.PUT_REF_LOG, List.of());
        }
        yield new Step(name, "PUT blob", with(world.withWritten(blob), next), null);
      }
      case PUT_TREES -> {
        String tree = push.todo().get(0);
        Push next = push.withTodo(push.todo().subList(1, push.todo().size()));
        if (next.todo().isEmpty()) {
          next = next.at(PushPhase.PUT_REF_LOG, List.of());
        }
        yield new Step(name, "PUT tree", with(world.withWritten(tree), next), null);
      }
      case PUT_REF_LOG -> {
        Set<Entry> log = new HashSet<>(world.log());
        log.add(new Entry(push.spec().ref(), root));
        World after = new World(world.present(), world.refs(), Set.copyOf(log), world.leaseJson(),
            world.leaseTrees(), world.markers(), world.generation(), world.pushes(), world.gcs());
        yield new Step(name, "PUT ref-log", with(after, push.at(PushPhase.PUT_REF, List.of())), null);
      }
      case PUT_REF -> {
        Map<String, String> refs = new HashMap<>(world.refs());
        refs.put(push.spec().ref(), root);
        World after = new World(world.present(), Map.copyOf(refs), world.log(), world.leaseJson(), world.leaseTrees(),
            world.markers(), world.generation(), world.pushes(), world.gcs());
        yield new Step(name, "PUT ref", with(after, push.at(PushPhase.DELETE_LEASE, List.of())), null);
      }
      case DELETE_LEASE -> new Step(name, "DELETE lease", with(world.withLeaseJson(push.id(), false),
          push.at(PushPhase.DELETE_LEASE_TREES, List.of())), null);
      case DELETE_LEASE_TREES -> new Step(name, "DELETE lease-trees", with(world.withLeaseTrees(push.id(), false),
          push.at(PushPhase.DONE, List.of())), null);
      case DONE -> null;
    };
  }

  /** The first level of tree lookups: the root, unless trusted; {@code T_sub} is skipped if the index knows it. */
  private static Push startLookups(Push push, Set<String> trusted) {
    Set<String> relied = new HashSet<>(push.relied());
    for (String object : trusted) {
      relied.addAll(isTree(object) ? closure(object) : Set.of(object));
    }
    if (push.spec().indexKnowsSub() && push.generation() == 0) {
      relied.addAll(closure("T_sub"));
    }
    Push next = new Push(push.id(), push.spec(), PushPhase.LOOKUP_TREES, List.of(), Set.copyOf(relied), Set.of(),
        Set.of(), Set.of(), push.previous(), push.generation(), push.failed());
    String root = push.spec().root();
    return relied.contains(root) ? afterLookup(next) : next.withTodo(List.of(root));
  }

  /** After a tree lookup: the next tree, the next level, the blob lookups, or the uploads. */
  private static Push afterLookup(Push push) {
    if (!push.todo().isEmpty()) {
      return push;
    }
    List<String> level = push.nextLevel().stream().filter(t -> !push.relied().contains(t)).sorted().toList();
    if (!level.isEmpty()) {
      return new Push(push.id(), push.spec(), PushPhase.LOOKUP_TREES, level, push.relied(), push.missing(), Set.of(),
          push.unknownBlobs(), push.previous(), push.generation(), push.failed());
    }
    List<String> blobs = push.unknownBlobs().stream().filter(b -> !push.relied().contains(b)).sorted().toList();
    if (!blobs.isEmpty()) {
      return push.at(PushPhase.LOOKUP_BLOBS, blobs);
    }
    return startUploads(push);
  }

  private static Push startUploads(Push push) {
    List<String> blobs = push.missing().stream().filter(o -> !isTree(o)).sorted().toList();
    if (!blobs.isEmpty()) {
      return push.at(PushPhase.PUT_BLOBS, blobs);
    }
    List<String> trees = treesChildrenFirst(push);
    return trees.isEmpty() ? push.at(PushPhase.PUT_REF_LOG, List.of()) : push.at(PushPhase.PUT_TREES, trees);
  }

  private static List<String> treesChildrenFirst(Push push) {
    List<String> order = new ArrayList<>(closure(push.spec().root()));
    java.util.Collections.reverse(order);
    return order.stream().filter(o -> isTree(o) && push.missing().contains(o)).toList();
  }

  // ---- gc ----

  private Step step(World world, Gc gc) {
    String name = "gc " + gc.id();
    return switch (gc.phase()) {
      case PUT_MARKER -> {
        Set<Integer> markers = new HashSet<>(world.markers());
        markers.add(gc.id());
        World after = new World(world.present(), world.refs(), world.log(), world.leaseJson(), world.leaseTrees(),
            Set.copyOf(markers), world.generation(), world.pushes(), world.gcs());
        yield new Step(name, "PUT gc-running", with(after, gc.at(firstRead(), List.of())), null);
      }
      case LIST_LEASES -> {
        List<String> seen = world.leaseJson().stream().sorted().map(String::valueOf).toList();
        yield new Step(name, "LIST lease", with(world, seen.isEmpty() ? gc.at(afterLeases(), List.of())
            : gc.at(GcPhase.READ_LEASES, interleave(seen))), null);
      }
      case READ_LEASES -> {
        // todo holds "json:<id>" then "trees:<id>" for each lease listed; a read that finds nothing skips the lease.
        String item = gc.todo().get(0);
        int id = Integer.parseInt(item.substring(item.indexOf(':') + 1));
        List<String> rest = gc.todo().subList(1, gc.todo().size());
        Gc next = gc;
        String label;
        if (item.startsWith("json:")) {
          label = "GET lease";
          if (!world.leaseJson().contains(id)) {
            rest = rest.subList(1, rest.size()); // released: its contents are not read
          }
        } else {
          label = "GET lease-trees";
          if (world.leaseTrees().contains(id)) {
            Set<String> marked = new HashSet<>(gc.marked());
            marked.addAll(closure(world.pushes().get(id).spec().root()));
            next = withMarked(gc, marked);
          }
        }
        next = rest.isEmpty() ? next.at(afterLeases(), List.of()) : next.withTodo(rest);
        yield new Step(name, label, with(world, next), null);
      }
      case LIST_REFS -> {
        List<String> names = world.refs().keySet().stream().sorted().toList();
        yield new Step(name, "LIST ref", with(world, names.isEmpty() ? gc.at(GcPhase.WALK_REFS, List.of())
            : gc.at(GcPhase.GET_REFS, names)), null);
      }
      case GET_REFS -> {
        String ref = gc.todo().get(0);
        Set<String> roots = new TreeSet<>(gc.roots());
        if (world.refs().containsKey(ref)) {
          roots.add(world.refs().get(ref));
        }
        Gc next = withRoots(gc, roots).withTodo(gc.todo().subList(1, gc.todo().size()));
        if (next.todo().isEmpty()) {
          next = startWalk(next, GcPhase.WALK_REFS);
        }
        yield new Step(name, "GET ref", with(world, next), null);
      }
      case WALK_REFS, WALK_LOG -> {
        String tree = gc.todo().get(0);
        boolean strict = gc.phase() == GcPhase.WALK_REFS;
        List<String> rest = new ArrayList<>(gc.todo().subList(1, gc.todo().size()));
        Set<String> marked = new HashSet<>(gc.marked());
        if (!world.present().contains(tree)) {
          if (strict) {
            Gc aborted = new Gc(gc.id(), GcPhase.DELETE_MARKER, List.of(), gc.marked(), gc.walked(), gc.young(),
                gc.roots(), gc.trees(), gc.blobs(), gc.deleted(), true);
            yield new Step(name, "GET tree", with(world, aborted), null);
          }
        } else {
          marked.add(tree);
          for (String child : CHILDREN.get(tree)) {
            if (!isTree(child)) {
              marked.add(child);
            } else if (!gc.walked().contains(child) && !rest.contains(child)) {
              rest.add(child);
            }
          }
        }
        Set<String> walked = new HashSet<>(gc.walked());
        walked.add(tree);
        Gc next = new Gc(gc.id(), gc.phase(), List.copyOf(rest), Set.copyOf(marked), Set.copyOf(walked), gc.young(),
            gc.roots(), gc.trees(), gc.blobs(), gc.deleted(), gc.aborted());
        if (rest.isEmpty()) {
          next = strict ? next.at(afterRefs(), List.of()) : next.at(afterLog(), List.of());
        }
        yield new Step(name, "GET tree", with(world, next), null);
      }
      case LIST_LOG -> {
        List<String> entries = world.log().stream().map(e -> e.ref() + "=" + e.root()).sorted().toList();
        Gc next = withRoots(gc, Set.of());
        yield new Step(name, "LIST ref-log", with(world, entries.isEmpty() ? startWalk(next, GcPhase.WALK_LOG)
            : next.at(GcPhase.GET_LOG, entries)), null);
      }
      case GET_LOG -> {
        String entry = gc.todo().get(0);
        Set<String> roots = new TreeSet<>(gc.roots());
        roots.add(entry.substring(entry.indexOf('=') + 1));
        Gc next = withRoots(gc, roots).withTodo(gc.todo().subList(1, gc.todo().size()));
        if (next.todo().isEmpty()) {
          next = startWalk(next, GcPhase.WALK_LOG);
        }
        yield new Step(name, "GET ref-log", with(world, next), null);
      }
      case LOOKUP_TREES -> {
        Set<String> candidates = deletable(world, gc, true);
        Gc next = new Gc(gc.id(), GcPhase.LOOKUP_BLOBS, List.of(), gc.marked(), gc.walked(), gc.young(), gc.roots(),
            candidates, gc.blobs(), gc.deleted(), gc.aborted());
        yield new Step(name, "LOOKUP tree", with(world, next), null);
      }
      case LOOKUP_BLOBS -> {
        Set<String> candidates = deletable(world, gc, false);
        Gc next = new Gc(gc.id(), GcPhase.READ_TREES, List.of(), gc.marked(), gc.walked(), gc.young(), gc.roots(),
            gc.trees(), candidates, gc.deleted(), gc.aborted());
        next = next.withTodo(gc.trees().stream().sorted().toList());
        yield new Step(name, "LOOKUP blob", with(world, next.todo().isEmpty() ? afterReads(next) : next), null);
      }
      case READ_TREES -> {
        Gc next = gc.withTodo(gc.todo().subList(1, gc.todo().size()));
        yield new Step(name, "GET tree", with(world, next.todo().isEmpty() ? afterReads(next) : next), null);
      }
      // The generation changes before the first delete, so no client's index outlives a gc killed midway.
      case FIRST_GENERATION -> new Step(name, "PUT gc-generation", with(new World(world.present(), world.refs(),
          world.log(), world.leaseJson(), world.leaseTrees(), world.markers(), world.generation() + 1, world.pushes(),
          world.gcs()), afterDelete(gc.at(GcPhase.DELETE_TREES, parentsFirst ? parentsFirst(gc.trees())
          : parentsFirst(gc.trees()).reversed()))), null);
      case DELETE_TREES, DELETE_BLOBS -> {
        String object = gc.todo().get(0);
        String violation = protectedObjects(world).contains(object)
            ? name + " deleted " + object + ", which a ref, a ref log entry or a push past the fence needs"
            : namer(world.withDeleted(object), object)
                .map(tree -> name + " deleted " + object + " while " + tree + ", which names it, is present: a kill"
                    + " here leaves a manifest without its subtree").orElse(null);
        Gc next = new Gc(gc.id(), gc.phase(), gc.todo().subList(1, gc.todo().size()), gc.marked(), gc.walked(),
            gc.young(), gc.roots(), gc.trees(), gc.blobs(), true, gc.aborted());
        yield new Step(name, "DELETE " + (isTree(object) ? "tree" : "blob"), with(world.withDeleted(object),
            afterDelete(next)), violation);
      }
      case PUT_GENERATION -> new Step(name, "PUT gc-generation", with(new World(world.present(), world.refs(),
          world.log(), world.leaseJson(), world.leaseTrees(), world.markers(), world.generation() + 1, world.pushes(),
          world.gcs()), gc.at(GcPhase.LIST_MARKERS, List.of())), null);
      // Expired markers of killed gcs are deleted here; markers never expire in the model, so it only reads.
      case LIST_MARKERS -> new Step(name, "LIST gc-running", with(world, gc.at(GcPhase.DELETE_MARKER, List.of())),
          null);
      case DELETE_MARKER -> {
        Set<Integer> markers = new HashSet<>(world.markers());
        markers.remove(gc.id());
        World after = new World(world.present(), world.refs(), world.log(), world.leaseJson(), world.leaseTrees(),
            Set.copyOf(markers), world.generation(), world.pushes(), world.gcs());
        yield new Step(name, "DELETE gc-running", with(after, gc.at(GcPhase.DONE, List.of())), null);
      }
      case DONE -> null;
    };
  }

  private GcPhase firstRead() {
    return order == GcOrder.LEASES_THEN_REFS ? GcPhase.LIST_LEASES : GcPhase.LIST_REFS;
  }

  private GcPhase afterLeases() {
    return order == GcOrder.LEASES_THEN_REFS ? GcPhase.LIST_REFS : GcPhase.LOOKUP_TREES;
  }

  private GcPhase afterRefs() {
    return GcPhase.LIST_LOG;
  }

  private GcPhase afterLog() {
    return order == GcOrder.LEASES_THEN_REFS ? GcPhase.LOOKUP_TREES : GcPhase.LIST_LEASES;
  }

  private static List<String> interleave(List<String> ids) {
    List<String> work = new ArrayList<>();
    ids.forEach(id -> {
      work.add("json:" + id);
      work.add("trees:" + id);
    });
    return work;
  }

  private Gc startWalk(Gc gc, GcPhase phase) {
    List<String> roots = gc.roots().stream().filter(r -> !gc.walked().contains(r)).sorted().toList();
    if (roots.isEmpty()) {
      return gc.at(phase == GcPhase.WALK_REFS ? afterRefs() : afterLog(), List.of());
    }
    return gc.at(phase, roots);
  }

  /** After reading the unreachable manifests: a new generation first if anything is to be deleted. */
  private static Gc afterReads(Gc gc) {
    if (gc.trees().isEmpty() && gc.blobs().isEmpty()) {
      return gc.at(GcPhase.LIST_MARKERS, List.of());
    }
    return gc.at(GcPhase.FIRST_GENERATION, List.of());
  }

  /** Trees in the order gc deletes them: every tree before the trees it names. */
  static List<String> parentsFirst(Set<String> trees) {
    return trees.stream().sorted((a, b) -> height(a) != height(b) ? height(b) - height(a) : a.compareTo(b)).toList();
  }

  private static int height(String tree) {
    return 1 + CHILDREN.getOrDefault(tree, List.of()).stream().filter(GcProtocolModel::isTree)
        .mapToInt(GcProtocolModel::height).max().orElse(0);
  }

  private static Gc afterDelete(Gc gc) {
    if (!gc.todo().isEmpty()) {
      return gc;
    }
    if (gc.phase() == GcPhase.DELETE_TREES && !gc.blobs().isEmpty()) {
      return gc.at(GcPhase.DELETE_BLOBS, gc.blobs().stream().sorted().toList());
    }
    return gc.at(gc.deleted() ? GcPhase.PUT_GENERATION : GcPhase.LIST_MARKERS, List.of());
  }

  private static Set<String> deletable(World world, Gc gc, boolean trees) {
    Set<String> found = new TreeSet<>();
    for (String object : world.present()) {
      if (isTree(object) == trees && !gc.marked().contains(object) && !gc.young().contains(object)) {
        found.add(object);
      }
    }
    return Set.copyOf(found);
  }

  private static Gc withMarked(Gc gc, Set<String> marked) {
    return new Gc(gc.id(), gc.phase(), gc.todo(), Set.copyOf(marked), gc.walked(), gc.young(), gc.roots(), gc.trees(),
        gc.blobs(), gc.deleted(), gc.aborted());
  }

  private static Gc withRoots(Gc gc, Set<String> roots) {
    return new Gc(gc.id(), gc.phase(), gc.todo(), gc.marked(), gc.walked(), gc.young(), Set.copyOf(roots), gc.trees(),
        gc.blobs(), gc.deleted(), gc.aborted());
  }

  // ---- worlds ----

  private static World with(World world, Push push) {
    List<Push> pushes = new ArrayList<>(world.pushes());
    pushes.set(push.id(), push);
    return new World(world.present(), world.refs(), world.log(), world.leaseJson(), world.leaseTrees(),
        world.markers(), world.generation(), List.copyOf(pushes), world.gcs());
  }

  private static World with(World world, Gc gc) {
    List<Gc> gcs = new ArrayList<>(world.gcs());
    gcs.set(gc.id(), gc);
    return new World(world.present(), world.refs(), world.log(), world.leaseJson(), world.leaseTrees(),
        world.markers(), world.generation(), world.pushes(), List.copyOf(gcs));
  }
}
