package dev.quarry.agent.slots;

import dev.quarry.core.cache.agent.CopySlots;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * Cluster-wide copy slots as Lease objects {@code quarry-copy-<nodecache>-<slot>}: a node copies only while it holds
 * one. Creating a Lease is atomic, so two nodes never hold the same slot; a holder renews its Lease while copying,
 * and a Lease left by a dead node expires and is taken over.
 */
public final class LeaseCopySlots implements CopySlots, AutoCloseable {
  private static final Duration LEASE = Duration.ofSeconds(60);
  private static final String LABEL = "quarry.dev/copy-slot-of";

  private final KubernetesClient client;
  private final String namespace;
  private final String nodeCache;
  private final String holder;
  private final IntSupplier slots;
  private final Clock clock;
  private final ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor(
      Thread.ofVirtual().name("copy-slot-renewer").factory());

  public LeaseCopySlots(KubernetesClient client, String namespace, String nodeCache, String holder, IntSupplier slots,
      Clock clock) {
    this.client = client;
    this.namespace = namespace;
    this.nodeCache = nodeCache;
    this.holder = holder;
    this.slots = slots;
    this.clock = clock;
  }

  @Override
  public Optional<Slot> tryAcquire(String image) {
    for (int slot = 0; slot < slots.getAsInt(); slot++) {
      String name = "quarry-copy-" + nodeCache + "-" + slot;
      if (take(name, image)) {
        ScheduledFuture<?> renewal = renewer.scheduleAtFixedRate(() -> renew(name),
            LEASE.toSeconds() / 3, LEASE.toSeconds() / 3, TimeUnit.SECONDS);
        return Optional.of(() -> {
          renewal.cancel(false);
          release(name);
        });
      }
    }
    return Optional.empty();
  }

  private boolean take(String name, String image) {
    var leases = client.leases().inNamespace(namespace);
    Lease existing = leases.withName(name).get();
    try {
      if (existing == null) {
        leases.resource(lease(name, image, null)).create();
        return true;
      }
      if (holder.equals(existing.getSpec().getHolderIdentity()) || expired(existing)) {
        leases.resource(lease(name, image, existing.getMetadata().getResourceVersion())).update();
        return true;
      }
      return false;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return false; // another node took it first
      }
      throw e;
    }
  }

  private Lease lease(String name, String image, String resourceVersion) {
    Lease lease = new Lease();
    lease.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace)
        .withResourceVersion(resourceVersion)
        .withLabels(Map.of(LABEL, nodeCache))
        .withAnnotations(Map.of("quarry.dev/copying", image))
        .build());
    ZonedDateTime now = ZonedDateTime.now(clock);
    lease.setSpec(new LeaseSpecBuilder().withHolderIdentity(holder).withLeaseDurationSeconds((int) LEASE.toSeconds())
        .withAcquireTime(now).withRenewTime(now).build());
    return lease;
  }

  private boolean expired(Lease lease) {
    ZonedDateTime renewed = lease.getSpec().getRenewTime();
    Integer seconds = lease.getSpec().getLeaseDurationSeconds();
    return renewed == null || seconds == null || renewed.plusSeconds(seconds).isBefore(ZonedDateTime.now(clock));
  }

  /** Get and update (not patch): the agent's Role grants leases get, create, update and delete only. */
  private void renew(String name) {
    try {
      var leases = client.leases().inNamespace(namespace);
      Lease lease = leases.withName(name).get();
      if (lease != null && holder.equals(lease.getSpec().getHolderIdentity())) {
        lease.getSpec().setRenewTime(ZonedDateTime.now(clock));
        leases.resource(lease).update();
      }
    } catch (KubernetesClientException e) {
      // The next renewal tries again; a lease that lapses only lets one more node copy.
    }
  }

  private void release(String name) {
    try {
      Lease lease = client.leases().inNamespace(namespace).withName(name).get();
      if (lease != null && holder.equals(lease.getSpec().getHolderIdentity())) {
        client.leases().inNamespace(namespace).resource(lease).delete();
      }
    } catch (KubernetesClientException e) {
      // It expires on its own.
    }
  }

  @Override
  public void close() {
    renewer.shutdownNow();
  }
}
