package dev.quarry.operator.testing;

import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.KubeApi;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The real {@code kubectl wait --for=condition=Ready}, running in the background while the test drives the resource,
 * as a pipeline step (Argo Workflows, Kubeflow) waits for a Quarry resource.
 */
public final class KubectlWait {
  private final CompletableFuture<CommandResult> result;

  private KubectlWait(CompletableFuture<CommandResult> result) {
    this.result = result;
  }

  /** Starts waiting for {@code resource} ({@code ssj/shuffle}) in {@code namespace} (null: cluster-scoped). */
  public static KubectlWait forReady(KubeApi api, String namespace, String resource, int timeoutSeconds) {
    List<String> args = new ArrayList<>(List.of("wait", "--for=condition=Ready", "--timeout=" + timeoutSeconds + "s",
        resource));
    if (namespace != null) {
      args.addAll(List.of("-n", namespace));
    }
    // A thread of its own: kubectl blocks it for up to the timeout, which in the common pool (one thread on two
    // cores) would stall the client's own asynchronous work.
    return new KubectlWait(CompletableFuture.supplyAsync(() -> {
      try {
        return api.kubectl(args.toArray(String[]::new));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CompletionException(e);
      }
    }, task -> Thread.ofPlatform().daemon().name("kubectl-wait").start(task)));
  }

  /** Whether kubectl has returned. */
  public boolean returned() {
    return result.isDone();
  }

  /** What kubectl printed and returned, once it has. */
  public CommandResult result() {
    return result.join();
  }
}
