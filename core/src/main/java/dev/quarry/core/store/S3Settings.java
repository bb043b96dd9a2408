package dev.quarry.core.store;

import dev.quarry.core.text.Printable;
import dev.quarry.core.units.Durations;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashMap;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * How to reach an S3-compatible store; mirrors the custom resources' {@code store} field.
 *
 * @param endpoint the server, for example {@code http://minio:9000}; null: AWS's endpoint for the region
 * @param region the signing region
 * @param pathStyle whether the bucket goes in the path ({@code host/bucket/key}) rather than the host name; MinIO and
 *     Ceph need it unless set up for virtual hosts
 * @param accessKeyId static credentials; null (with {@code secretAccessKey} null) for the default credential chain
 *     (environment, profile, web identity, instance role) or for unsigned requests, as {@code ambientCredentials}
 *     says
 * @param secretAccessKey the secret of {@code accessKeyId}; never printed
 * @param ambientCredentials without static credentials: true to use whatever the default credential chain finds on
 *     this machine (a person's profile, a pod's or node's cloud identity), false to send requests unsigned
 *     (anonymous), so that a worker reaches only what its own resource's Secret or public access allows
 * @param requestsInFlight the size of the connection pool, so the most requests one store runs at once
 * @param partSizeBytes the size of each part of a multipart upload, at least 5 MiB (S3's minimum)
 * @param maxAttempts attempts per request, the first included
 * @param requestDeadline the longest a request may go without an answer from the server, its retries included: then
 *     it fails, naming the endpoint. Each attempt waits at most a third of it for the next byte.
 * @param profile the AWS profile whose credentials sign requests when there are no static ones, alone (the AWS CLI's
 *     --profile); null for the default credential chain (which reads AWS_PROFILE)
 */
public record S3Settings(URI endpoint, String region, boolean pathStyle, String accessKeyId, String secretAccessKey,
    boolean ambientCredentials, int requestsInFlight, int partSizeBytes, int maxAttempts, Duration requestDeadline,
    String profile) {
  public static final String DEFAULT_REGION = "us-east-1";
  public static final int DEFAULT_REQUESTS_IN_FLIGHT = 64;
  public static final int DEFAULT_PART_SIZE_BYTES = 8 << 20;
  public static final int MIN_PART_SIZE_BYTES = 5 << 20;
  public static final int DEFAULT_MAX_ATTEMPTS = 8;
  public static final Duration DEFAULT_REQUEST_DEADLINE = Duration.ofSeconds(30);
  public static final Duration MIN_REQUEST_DEADLINE = Duration.ofSeconds(3);
  /**
   * The variable that decides {@link #ambientCredentials()}: true (the default, as a person runs {@code quarry}) or
   * false (what the operator sets on workers and agents unless the cluster admin allows ambient credentials).
   */
  public static final String AMBIENT_CREDENTIALS_VARIABLE = "QUARRY_S3_AMBIENT_CREDENTIALS";

  /** Settings without a profile of their own: the default credential chain, which reads AWS_PROFILE. */
  public S3Settings(URI endpoint, String region, boolean pathStyle, String accessKeyId, String secretAccessKey,
      boolean ambientCredentials, int requestsInFlight, int partSizeBytes, int maxAttempts, Duration requestDeadline) {
    this(endpoint, region, pathStyle, accessKeyId, secretAccessKey, ambientCredentials, requestsInFlight,
        partSizeBytes, maxAttempts, requestDeadline, null);
  }

  public S3Settings {
    if (endpoint != null && (endpoint.getHost() == null
        || !("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme())))) {
      throw new IllegalArgumentException("Invalid S3 endpoint: " + endpoint
          + " (must be an http:// or https:// URL with a host)");
    }
    if (region == null || region.isBlank()) {
      throw new IllegalArgumentException("Invalid S3 region: " + region + " (must not be empty, for example "
          + DEFAULT_REGION + ")");
    }
    if ((accessKeyId == null) != (secretAccessKey == null)) {
      throw new IllegalArgumentException("Invalid S3 credentials: " + (accessKeyId == null ? "a secret access key"
          + " without an access key id" : "access key id " + accessKeyId + " without a secret access key")
          + " (must give both, or neither for the default credential chain)");
    }
    if (requestsInFlight < 1) {
      throw new IllegalArgumentException("Invalid S3 requests in flight: " + requestsInFlight
          + " (must be at least 1)");
    }
    if (partSizeBytes < MIN_PART_SIZE_BYTES) {
      throw new IllegalArgumentException("Invalid S3 part size: " + partSizeBytes + " bytes (must be at least "
          + MIN_PART_SIZE_BYTES + " bytes, 5 MiB)");
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("Invalid S3 max attempts: " + maxAttempts + " (must be at least 1)");
    }
    if (requestDeadline == null || requestDeadline.compareTo(MIN_REQUEST_DEADLINE) < 0) {
      throw new IllegalArgumentException("Invalid S3 request deadline: " + requestDeadline + " (must be at least "
          + MIN_REQUEST_DEADLINE.toSeconds() + "s)");
    }
    if (profile != null && profile.isBlank()) {
      throw new IllegalArgumentException("Invalid AWS profile: '" + Printable.of(profile) + "' (must not be empty)");
    }
  }

  /** How long one attempt waits for a connection or the next byte: a third of the deadline, at most a minute. */
  public Duration attemptTimeout() {
    Duration third = requestDeadline.dividedBy(3);
    return third.compareTo(Duration.ofMinutes(1)) > 0 ? Duration.ofMinutes(1) : third;
  }

  /** The server requests go to, for messages: the endpoint, or AWS's for the region. */
  public URI endpointOrDefault() {
    return endpoint != null ? endpoint : URI.create("https://s3." + region + ".amazonaws.com");
  }

  /** AWS in us-east-1 through the default credential chain, path-style, with the default limits. */
  public static S3Settings defaults() {
    return new S3Settings(null, DEFAULT_REGION, true, null, null, true, DEFAULT_REQUESTS_IN_FLIGHT,
        DEFAULT_PART_SIZE_BYTES, DEFAULT_MAX_ATTEMPTS, DEFAULT_REQUEST_DEADLINE);
  }

  /**
   * The defaults, changed by the environment, each setting from the first source that gives it:
   * <ul>
   *   <li>endpoint: QUARRY_S3_ENDPOINT, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, then the AWS profile's
   *       {@code services} section ({@code s3 = endpoint_url = ...}) and its {@code endpoint_url}; all but
   *       QUARRY_S3_ENDPOINT are skipped when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS or the profile's
   *       {@code ignore_configured_endpoint_urls} is true, as AWS documents</li>
   *   <li>region: AWS_REGION, AWS_DEFAULT_REGION, then the profile's {@code region}</li>
   *   <li>QUARRY_S3_PATH_STYLE (true or false), QUARRY_S3_REQUESTS_IN_FLIGHT and QUARRY_S3_REQUEST_DEADLINE (a
   *       duration such as 30s or 2m)</li>
   *   <li>AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY as static credentials; with AWS_SESSION_TOKEN too, or
   *       without them, the SDK's default chain finds the credentials (the same variables, the profile's keys,
   *       web identity, container and instance roles), unless QUARRY_S3_AMBIENT_CREDENTIALS is false: then
   *       requests without static credentials go unsigned and the chain is never asked</li>
   * </ul>
   * The profile is AWS_PROFILE (else {@code default}) in AWS_CONFIG_FILE (else {@code ~/.aws/config}) and
   * AWS_SHARED_CREDENTIALS_FILE (else {@code ~/.aws/credentials}). Empty variables count as unset.
   */
  public static S3Settings fromEnvironment() {
    return fromEnvironment(environment());
  }

  /**
   * {@link #fromEnvironment()} for a remote that names its AWS profile: the profile takes AWS_PROFILE's place, for the
   * endpoint and region it sets and for the credentials, which then come from the profile alone and not from
   * AWS_ACCESS_KEY_ID (as the AWS CLI's --profile does). QUARRY_S3_ENDPOINT and the AWS_ENDPOINT_URL variables still
   * come first. Refuses a profile the shared files do not have.
   */
  public static S3Settings forProfile(String profile) {
    return forProfile(environment(), profile);
  }

  static S3Settings forProfile(Map<String, String> environment, String profile) {
    Map<String, String> withProfile = withProfile(environment, profile);
    AwsProfile found = AwsProfile.from(withProfile);
    if (!found.exists()) {
      throw new IllegalArgumentException("Invalid AWS profile: " + Printable.of(profile) + " (must be a profile in "
          + found.describeFiles() + ")");
    }
    return fromEnvironment(withProfile).withProfile(profile);
  }

  /** {@code environment} as the AWS tools see it when told to use {@code profile}: no static keys, that profile. */
  static Map<String, String> withProfile(Map<String, String> environment, String profile) {
    Map<String, String> changed = new HashMap<>(environment);
    changed.put("AWS_PROFILE", profile);
    changed.remove("AWS_ACCESS_KEY_ID");
    changed.remove("AWS_SECRET_ACCESS_KEY");
    changed.remove("AWS_SESSION_TOKEN");
    return changed;
  }

  /** This process's variables, with HOME from the JVM when unset, as the SDK finds the profile files. */
  static Map<String, String> environment() {
    Map<String, String> environment = new HashMap<>(System.getenv());
    if (variable(environment, "HOME") == null) {
      environment.put("HOME", System.getProperty("user.home"));
    }
    return environment;
  }

  static S3Settings fromEnvironment(Map<String, String> environment) {
    S3Settings settings = defaults();
    AwsProfile profile = AwsProfile.from(environment);
    URI endpoint = endpoint(environment, profile);
    if (endpoint != null) {
      settings = settings.withEndpoint(endpoint);
    }
    String region = firstOf(variable(environment, "AWS_REGION"), variable(environment, "AWS_DEFAULT_REGION"),
        profile.region().orElse(null));
    if (region != null) {
      settings = settings.withRegion(region);
    }
    String pathStyle = variable(environment, "QUARRY_S3_PATH_STYLE");
    if (pathStyle != null) {
      settings = settings.withPathStyle(booleanFrom("QUARRY_S3_PATH_STYLE", pathStyle));
    }
    String accessKeyId = variable(environment, "AWS_ACCESS_KEY_ID");
    String secretAccessKey = variable(environment, "AWS_SECRET_ACCESS_KEY");
    boolean sessionCredentials = accessKeyId != null && secretAccessKey != null
        && variable(environment, "AWS_SESSION_TOKEN") != null;
    if ((accessKeyId != null || secretAccessKey != null) && !sessionCredentials) {
      settings = settings.withCredentials(accessKeyId, secretAccessKey);
    }
    String ambient = variable(environment, AMBIENT_CREDENTIALS_VARIABLE);
    if (ambient != null) {
      settings = settings.withAmbientCredentials(booleanFrom(AMBIENT_CREDENTIALS_VARIABLE, ambient));
    }
    String requestsInFlight = variable(environment, "QUARRY_S3_REQUESTS_IN_FLIGHT");
    if (requestsInFlight != null) {
      settings = settings.withRequestsInFlight(positiveFrom("QUARRY_S3_REQUESTS_IN_FLIGHT", requestsInFlight));
    }
    String deadline = variable(environment, "QUARRY_S3_REQUEST_DEADLINE");
    if (deadline != null) {
      settings = settings.withRequestDeadline(deadlineFrom(deadline));
    }
    return settings;
  }

  private static URI endpoint(Map<String, String> environment, AwsProfile profile) {
    String quarry = variable(environment, "QUARRY_S3_ENDPOINT");
    if (quarry != null) {
      return endpointFrom("QUARRY_S3_ENDPOINT", quarry);
    }
    String ignore = variable(environment, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
    if (ignore != null ? booleanFrom("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", ignore)
        : profile.ignoresConfiguredEndpoints()) {
      return null;
    }
    for (String name : new String[] {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"}) {
      String value = variable(environment, name);
      if (value != null) {
        return endpointFrom(name, value);
      }
    }
    return profile.s3Endpoint().map(value -> endpointFrom("endpoint_url of AWS profile " + profile.name() + " in "
        + profile.describeFiles(), value)).orElse(null);
  }

  private static String firstOf(String... values) {
    for (String value : values) {
      if (value != null) {
        return value;
      }
    }
    return null;
  }

  private static Duration deadlineFrom(String text) {
    Duration deadline;
    try {
      deadline = Durations.parse(text);
    } catch (IllegalArgumentException e) {
      deadline = Duration.ZERO;
    }
    if (deadline.compareTo(MIN_REQUEST_DEADLINE) < 0) {
      throw new IllegalArgumentException("Invalid QUARRY_S3_REQUEST_DEADLINE: " + text + " (must be a duration of at"
          + " least " + MIN_REQUEST_DEADLINE.toSeconds() + "s, such as 30s or 2m)");
    }
    return deadline;
  }

  private static String variable(Map<String, String> environment, String name) {
    String value = environment.get(name);
    return value == null || value.isBlank() ? null : value.trim();
  }

  /** An http:// or https:// URL with a host, or a message that names {@code source}, such as a variable. */
  public static URI endpointFrom(String source, String text) {
    try {
      URI uri = new URI(text);
      if (uri.getHost() != null && ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
        return uri;
      }
    } catch (URISyntaxException e) {
      // The same message as for another scheme.
    }
    throw new IllegalArgumentException("Invalid " + source + ": " + text
        + " (must be an http:// or https:// URL with a host)");
  }

  private static boolean booleanFrom(String name, String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("Invalid " + name + ": " + text + " (must be true or false)");
    };
  }

  private static int positiveFrom(String name, String text) {
    try {
      int value = Integer.parseInt(text);
      if (value >= 1) {
        return value;
      }
    } catch (NumberFormatException notANumber) {
      // Same message as for zero.
    }
    throw new IllegalArgumentException("Invalid " + name + ": " + text + " (must be a whole number of at least 1)");
  }

  public S3Settings withEndpoint(URI endpoint) {
    return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, ambientCredentials,
        requestsInFlight, partSizeBytes, maxAttempts, requestDeadline, profile);
  }

  public S3Settings withRegion(String region) {
    return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, ambientCredentials,
        requestsInFlight, partSizeBytes, maxAttempts, requestDeadline, profile);
  }

  public S3Settings withPathStyle(boolean pathStyle) {
    return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, ambientCredentials,
        requestsInFlight, partSizeBytes, maxAttempts, requestDeadline, profile);
  }

  /** Static credentials; both null for the default credential chain or unsigned requests. */
  public S3Settings withCredentials(String accessKeyId, String secretAccessKey) {
    return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, ambientCredentials,
        requestsInFlight, partSizeBytes, maxAttempts, requestDeadline, profile);
  }

  /** Without static credentials: the default chain (true) or unsigned requests (false). */
  public S3Settings withAmbientCredentials(boolean ambientCredentials) {
    return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, ambientCredentials,
        requestsInFlight, partSizeBytes, maxAttempts, requestDeadline, profile);
  }

  public S3Settings withRequestsInFlight(int requestsInFlight) {
    return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, ambientCredentials,
        requestsInFlight, partSizeBytes, maxAttempts, requestDeadline, profile);
  }

  public S3Settings withPartSizeBytes(int partSizeBytes) {
    return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, ambientCredentials,
        requestsInFlight, partSizeBytes, maxAttempts, requestDeadline, profile);
  }

  public S3Settings withMaxAttempts(int maxAttempts) {
    return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, ambientCredentials,
        requestsInFlight, partSizeBytes, maxAttempts, requestDeadline, profile);
  }

  public S3Settings withRequestDeadline(Duration requestDeadline) {
    return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, ambientCredentials,
        requestsInFlight, partSizeBytes, maxAttempts, requestDeadline, profile);
  }

  /** The credentials of this AWS profile alone; null for the default chain. */
  public S3Settings withProfile(String profile) {
    return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, ambientCredentials,
        requestsInFlight, partSizeBytes, maxAttempts, requestDeadline, profile);
  }

  /** Everything but the secret, which logs and error messages must never show. */
  @Override
  public String toString() {
    return "S3Settings[endpoint=" + endpoint + ", region=" + region + ", pathStyle=" + pathStyle + ", accessKeyId="
        + accessKeyId + ", secretAccessKey=" + (secretAccessKey == null ? null : "****") + ", ambientCredentials="
        + ambientCredentials + ", requestsInFlight="
        + requestsInFlight + ", partSizeBytes=" + partSizeBytes + ", maxAttempts=" + maxAttempts
        + ", requestDeadline=" + requestDeadline + ", profile=" + profile + "]";
  }
}
