package dev.quarry.agent;

import dev.quarry.agent.metrics.AgentServer;
import dev.quarry.agent.run.NodeAgent;
import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import dev.quarry.core.cache.agent.CacheAgent;
import dev.quarry.core.cache.agent.NodeRoots;
import dev.quarry.core.cache.agent.OwnedPaths;
import dev.quarry.core.fs.RootedPaths;
import dev.quarry.core.store.ObjectStores;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The node agent's command line: {@code run} is what the DaemonSet starts; {@code cleanup} resets a node. */
@Command(name = "quarry-agent", mixinStandardHelpOptions = true,
    description = "Mounts a NodeCache's dataset images on this node and keeps the hottest on local disk.",
    subcommands = {AgentCommand.Run.class, AgentCommand.Cleanup.class})
public final class AgentCommand {
  public static void main(String[] args) {
    System.exit(new CommandLine(new AgentCommand()).execute(args));
  }

  /** Runs the agent until SIGTERM; its mounts stay when it stops, and the next agent adopts them. */
  @Command(name = "run", mixinStandardHelpOptions = true,
      description = "Runs the agent for one NodeCache on this node until stopped.")
  static final class Run implements Callable<Integer> {
    @Option(names = "--node-cache", required = true, description = "Name of the NodeCache to serve.")
    String nodeCache;

    @Option(names = "--node", required = true, defaultValue = "${env:NODE_NAME}",
        description = "Name of this node (the DaemonSet passes spec.nodeName). Default: $NODE_NAME.")
    String node;

    @Option(names = "--namespace", defaultValue = "${env:POD_NAMESPACE:-default}",
        description = "Namespace of the copy-slot Leases. Default: $POD_NAMESPACE.")
    String namespace;

    @Option(names = "--metrics-port", defaultValue = "9400",
        description = "Port of /metrics, /healthz and /readyz. Default: ${DEFAULT-VALUE}.")
    int metricsPort;

    @Override
    public Integer call() throws Exception {
      HostPathRoots roots;
      EndpointAllowlist endpoints;
      try {
        roots = HostPathRoots.fromEnvironment(System.getenv());
        endpoints = EndpointAllowlist.fromEnvironment(System.getenv());
      } catch (IllegalArgumentException e) {
        // A configuration mistake: one line that names it, not a stack trace.
        System.err.println("quarry-agent: " + e.getMessage());
        return 2;
      }
      // Counted down once the agent stopped and its resources are closed. The shutdown hook waits for this, not for
      // the main thread: main goes on to System.exit, which blocks while the hook runs, so joining main would always
      // wait the hook's full timeout (every agent pod took 20 s to stop).
      CountDownLatch closed = new CountDownLatch(1);
      try (KubernetesClient client = new KubernetesClientBuilder().build();
          NodeAgent agent = new NodeAgent(client, nodeCache, node, namespace, roots, endpoints,
              NodeCacheSecrets.fromEnvironment(System.getenv()), ObjectStores::new,
              Clock.systemUTC());
          AgentServer server = new AgentServer(metricsPort, agent.metrics()::scrape, agent::live, agent::ready)) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          agent.close();
          try {
            closed.await(20, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }));
        agent.run();
      } finally {
        closed.countDown();
      }
      return 0;
    }
  }

  /**
   * Removes what the agents of NodeCaches made on this node (their mounts, copies and folders, as their records in the
   * cache folders name them): for uninstalling or resetting a node. Nothing else is touched.
   */
  @Command(name = "cleanup", mixinStandardHelpOptions = true,
      description = "Unmounts every image the agents of NodeCaches mounted and deletes their copies, as their records"
          + " in the cache folders under the cache roots name them; nothing else is touched. Files still open keep"
          + " reading until closed.")
  static final class Cleanup implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--cache-roots", split = ",", defaultValue = "${env:QUARRY_NODECACHE_CACHE_ROOTS:-/var/lib/quarry}",
        description = "The chart's nodeCache.cacheRoots, separated by commas: every folder under them that holds"
            + " records of NodeCaches (their spec.cache.directory) is cleaned. Default: ${DEFAULT-VALUE}.")
    List<String> cacheRoots;

    @Option(names = "--cache-dir", description = "Only the records in this folder (a NodeCache's"
        + " spec.cache.directory, under a cache root). Default: every such folder under the cache roots.")
    Path cacheDirectory;

    @Option(names = "--node-cache", description = "Only this NodeCache's mounts and copies. Default: every"
        + " NodeCache's.")
    String nodeCache;

    @Option(names = "--mount-roots", split = ",", defaultValue = "${env:QUARRY_NODECACHE_MOUNT_ROOTS:-/mnt/quarry}",
        description = "The chart's nodeCache.mountRoots, separated by commas: recorded mount points are unmounted"
            + " only when reached from one of them without a link. Default: ${DEFAULT-VALUE}.")
    List<String> mountRoots;

    @Override
    public Integer call() throws Exception {
      List<Path> folders;
      NodeRoots roots;
      try {
        HostPathRoots.checked("--mount-roots", mountRoots);
        HostPathRoots.checked("--cache-roots", cacheRoots);
        new HostPathRoots(mountRoots, cacheRoots, List.of()); // none inside another
        if (cacheDirectory != null && (!cacheDirectory.isAbsolute()
            || !HostPathRoots.isUnder(cacheDirectory.toString(), cacheRoots))) {
          throw new IllegalArgumentException("Invalid --cache-dir: " + cacheDirectory + " (must be an absolute path"
              + " under " + String.join(" or ", cacheRoots) + ", the --cache-roots)");
        }
        roots = NodeRoots.of(paths(mountRoots), paths(cacheRoots), List.of());
        folders = cacheDirectory != null ? List.of(cacheDirectory.normalize()) : recordFolders(roots.caches());
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("quarry-agent: " + e.getMessage());
        return 2;
      }
      boolean any = false;
      boolean left = false;
      for (Path folder : folders) {
        for (String owner : nodeCache == null ? OwnedPaths.owners(folder) : List.of(nodeCache)) {
          any = true;
          try {
            CacheAgent.removeOwned(roots, folder, owner);
          } catch (IOException e) {
            // Someone else's layer over one of the owner's: the others are still cleaned; the owner's record stays.
            spec.commandLine().getErr().println("quarry-agent: Cannot remove all mounts of NodeCache " + owner
                + " (records in " + folder + "): " + e.getMessage());
            left = true;
            continue;
          }
          spec.commandLine().getOut().println("Removed the mounts and copies of NodeCache " + owner + " (records in "
              + folder + ")");
        }
      }
      if (!any) {
        spec.commandLine().getOut().println("No NodeCache has mounts or copies recorded under "
            + (cacheDirectory != null ? cacheDirectory : String.join(" or ", cacheRoots)));
      }
      return left ? 1 : 0;
    }

    private static List<Path> paths(List<String> roots) {
      return roots.stream().map(Path::of).toList();
    }

    /** The folders under the cache roots that hold records of NodeCaches, found without following links. */
    private static List<Path> recordFolders(RootedPaths cacheRoots) throws IOException {
      List<Path> folders = new ArrayList<>();
      for (Path root : cacheRoots.roots()) {
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        try (Stream<Path> walk = Files.walk(root)) {
          for (Path folder : (Iterable<Path>) walk.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
              .sorted()::iterator) {
            if (!OwnedPaths.owners(folder).isEmpty()) {
              folders.add(folder);
            }
          }
        }
      }
      return folders;
    }
  }
}
