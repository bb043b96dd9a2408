package dev.quarry.operator.jobs;

import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.SecretKeys;
import dev.quarry.api.common.WorkerPlacement;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * The pod every worker Job runs: the worker image with the {@code quarry} command, the object store connection as
 * environment variables (credentials from the resource's Secret, those of the pod or node only where the admin
 * allows), no API access, non-root, a read-only root filesystem with a
 * writable /tmp. The command writes its JSON result to the termination message file, which is how results reach the
 * operator; a failed container's last log lines take its place, so a failure carries the worker's own message.
 */
public final class WorkerPods {
  public static final String CONTAINER = "worker";
  public static final String RESULT_FILE = "/dev/termination-log";
  private final WorkerSettings settings;

  public WorkerPods(WorkerSettings settings) {
    this.settings = settings;
  }

  /**
   * A pod spec (restartPolicy Never) running {@code args} with {@code store}'s connection, secured as the admin's
   * defaults say and placed as they say unless the resource's {@code placement} (or null) replaces a field of theirs;
   * {@code resources} (the resource's own, or null) replace the default resources.
   */
  public PodSpecBuilder spec(ObjectStore store, List<String> args, ResourceRequirements resources,
      WorkerPlacement placement, List<VolumeMount> mounts) {
    WorkerPodDefaults pod = settings.pod().forResource(resources, placement);
    List<VolumeMount> allMounts = new ArrayList<>(mounts);
    allMounts.add(new VolumeMountBuilder().withName("tmp").withMountPath("/tmp").build());
    Container container = new ContainerBuilder()
        .withName(CONTAINER)
        .withImage(settings.image())
        .withImagePullPolicy(settings.pullPolicy())
        .withArgs(args)
        .withEnv(environment(store, settings.ambientCredentials()))
        .withResources(pod.resources())
        .withVolumeMounts(allMounts)
        .withTerminationMessagePath(RESULT_FILE)
        .withTerminationMessagePolicy("FallbackToLogsOnError")
        .withSecurityContext(pod.securityContext())
        .build();
    return new PodSpecBuilder()
        .withRestartPolicy("Never")
        .withServiceAccountName(settings.serviceAccount())
        .withAutomountServiceAccountToken(false)
        .withSecurityContext(pod.podSecurityContext())
        .withNodeSelector(pod.nodeSelector().isEmpty() ? null : pod.nodeSelector())
        .withTolerations(pod.tolerations().isEmpty() ? null : pod.tolerations())
        .withAffinity(pod.affinity())
        .withPriorityClassName(pod.priorityClassName())
        .withImagePullSecrets(pod.imagePullSecrets().isEmpty() ? null : pod.imagePullSecrets())
        .withContainers(container)
        .addToVolumes(new VolumeBuilder().withName("tmp").withNewEmptyDir().endEmptyDir().build());
  }

  /** The variables {@code quarry} reads its S3 connection from (core's S3Settings.fromEnvironment). */
  static List<EnvVar> environment(ObjectStore store, boolean ambientCredentials) {
    List<EnvVar> env = new ArrayList<>(ambientCredentials(ambientCredentials));
    if (store == null) {
      return env;
    }
    if (store.endpoint() != null) {
      env.add(new EnvVar("QUARRY_S3_ENDPOINT", store.endpoint(), null));
    }
    env.add(new EnvVar("AWS_REGION", store.region() == null ? "us-east-1" : store.region(), null));
    env.add(new EnvVar("QUARRY_S3_PATH_STYLE", String.valueOf(!Boolean.FALSE.equals(store.pathStyle())), null));
    env.addAll(credentials(store.credentialsSecret()));
    return env;
  }

  /**
   * Whether {@code quarry} or the agent may use, without its resource's Secret, the credentials its pod or node
   * gives (QUARRY_S3_AMBIENT_CREDENTIALS, core's S3Settings): when not, its requests go unsigned, and the SDK does not
   * even ask the instance metadata endpoint (AWS_EC2_METADATA_DISABLED).
   */
  public static List<EnvVar> ambientCredentials(boolean allowed) {
    EnvVar ambient = new EnvVar("QUARRY_S3_AMBIENT_CREDENTIALS", String.valueOf(allowed), null);
    return allowed ? List.of(ambient) : List.of(ambient, new EnvVar("AWS_EC2_METADATA_DISABLED", "true", null));
  }

  /** AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY from the Secret, or nothing without one. */
  public static List<EnvVar> credentials(SecretKeys secret) {
    if (secret == null) {
      return List.of();
    }
    return List.of(
        secretVariable("AWS_ACCESS_KEY_ID", secret.name(),
            secret.accessKeyIdKey() == null ? "AWS_ACCESS_KEY_ID" : secret.accessKeyIdKey()),
        secretVariable("AWS_SECRET_ACCESS_KEY", secret.name(),
            secret.secretAccessKeyKey() == null ? "AWS_SECRET_ACCESS_KEY" : secret.secretAccessKeyKey()));
  }

  private static EnvVar secretVariable(String name, String secret, String key) {
    return new EnvVarBuilder().withName(name).withNewValueFrom().withNewSecretKeyRef(key, secret, false)
        .endValueFrom().build();
  }
}
