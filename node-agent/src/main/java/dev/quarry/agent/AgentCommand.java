package dev.quarry.agent;

import dev.quarry.agent.metrics.AgentServer;
import dev.quarry.agent.run.NodeAgent;
import dev.quarry.core.cache.agent.CacheAgent;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

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
      // Counted down once the agent stopped and its resources are closed. The shutdown hook waits for this, not for
      // the main thread: main goes on to System.exit, which blocks while the hook runs, so joining main would always
      // wait the hook's full timeout (every agent pod took 20 s to stop).
      CountDownLatch closed = new CountDownLatch(1);
      try (KubernetesClient client = new KubernetesClientBuilder().build();
          NodeAgent agent = new NodeAgent(client, nodeCache, node, namespace, Clock.systemUTC());
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

  /** Removes every mount under the mount root and every cached copy: for uninstalling or resetting a node. */
  @Command(name = "cleanup", mixinStandardHelpOptions = true,
      description = "Unmounts every image under the mount root and deletes every cached copy. Files still open keep"
          + " reading until closed.")
  static final class Cleanup implements Callable<Integer> {
    @Option(names = "--mount-root", defaultValue = "/mnt/quarry", description = "Default: ${DEFAULT-VALUE}.")
    Path mountRoot;

    @Option(names = "--cache-dir", defaultValue = "/var/lib/quarry/cache", description = "Default: ${DEFAULT-VALUE}.")
    Path cacheDirectory;

    @Override
    public Integer call() throws Exception {
      CacheAgent.removeEverything(mountRoot, cacheDirectory);
      System.out.println("Removed every mount under " + mountRoot + " and every copy in " + cacheDirectory);
      return 0;
    }
  }
}
