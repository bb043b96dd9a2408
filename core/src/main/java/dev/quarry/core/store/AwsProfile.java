package dev.quarry.core.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.profiles.Profile;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.profiles.ProfileProperty;

/**
 * The profile of the AWS shared files, found as the AWS CLI and SDKs find it: {@code AWS_PROFILE} (else
 * {@code default}) in {@code AWS_CONFIG_FILE} (else {@code ~/.aws/config}) and {@code AWS_SHARED_CREDENTIALS_FILE}
 * (else {@code ~/.aws/credentials}). The SDK's own reader parses the files; only where they are is decided here, from
 * the given environment, so that tests need not change this process's.
 */
final class AwsProfile {
  static final String DEFAULT = "default";

  private final String name;
  private final List<Path> files;
  private final ProfileFile file;

  private AwsProfile(String name, List<Path> files, ProfileFile file) {
    this.name = name;
    this.files = files;
    this.file = file;
  }

  /** @param environment the variables; {@code HOME} locates the default files */
  static AwsProfile from(Map<String, String> environment) {
    String name = variable(environment, "AWS_PROFILE");
    Path config = file(environment, "AWS_CONFIG_FILE", ".aws/config");
    Path credentials = file(environment, "AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
    List<Path> files = new ArrayList<>();
    ProfileFile.Aggregator aggregator = ProfileFile.aggregator();
    for (Path path : new Path[] {credentials, config}) {
      if (path != null && Files.isRegularFile(path)) {
        files.add(path);
        try {
          aggregator.addFile(ProfileFile.builder().content(path).type(path == config
              ? ProfileFile.Type.CONFIGURATION : ProfileFile.Type.CREDENTIALS).build());
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("Invalid AWS " + (path == config ? "config" : "credentials")
              + " file " + path + ": " + e.getMessage(), e);
        }
      }
    }
    return new AwsProfile(name == null ? DEFAULT : name, List.copyOf(files), aggregator.build());
  }

  String name() {
    return name;
  }

  /** The files that exist, credentials first: where the profile was looked for. */
  List<Path> files() {
    return files;
  }

  /** The files to name in a message: those that exist, else where they would be. */
  String describeFiles() {
    return files.isEmpty() ? "~/.aws/credentials and ~/.aws/config" : String.join(" and ",
        files.stream().map(Path::toString).toList());
  }

  boolean exists() {
    return profile().isPresent();
  }

  Optional<String> region() {
    return profile().flatMap(profile -> profile.property(ProfileProperty.REGION)).filter(value -> !value.isBlank());
  }

  /**
   * The S3 endpoint the profile configures: {@code s3.endpoint_url} of its {@code services} section first, then its
   * own {@code endpoint_url}; empty when it sets {@code ignore_configured_endpoint_urls}.
   */
  Optional<String> s3Endpoint() {
    Optional<Profile> profile = profile();
    if (profile.isEmpty() || ignoresConfiguredEndpoints()) {
      return Optional.empty();
    }
    Optional<String> service = profile.get().property("services")
        .flatMap(services -> file.getSection("services", services))
        .flatMap(services -> services.property("s3." + ProfileProperty.ENDPOINT_URL));
    return service.or(() -> profile.get().property(ProfileProperty.ENDPOINT_URL)).filter(value -> !value.isBlank());
  }

  boolean ignoresConfiguredEndpoints() {
    return profile().flatMap(profile -> profile.booleanProperty(ProfileProperty.IGNORE_CONFIGURED_ENDPOINT_URLS))
        .orElse(false);
  }

  private Optional<Profile> profile() {
    return file.profile(name);
  }

  private static Path file(Map<String, String> environment, String variable, String underHome) {
    String path = variable(environment, variable);
    String home = variable(environment, "HOME");
    if (path != null) {
      return home != null && path.startsWith("~/") ? Path.of(home, path.substring(2)) : Path.of(path);
    }
    return home == null ? null : Path.of(home, underHome);
  }

  private static String variable(Map<String, String> environment, String name) {
    String value = environment.get(name);
    return value == null || value.isBlank() ? null : value.trim();
  }
}
