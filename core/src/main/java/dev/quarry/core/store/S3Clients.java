package dev.quarry.core.store;

import java.time.Duration;
import java.util.Comparator;
import java.util.ServiceLoader;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpConfigurationOption;
import software.amazon.awssdk.http.SdkHttpService;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.utils.AttributeMap;

/**
 * Builds the clients of one store: the pooled Apache HTTP client, the credentials, and the SDK client with standard
 * retries, every attempt counted.
 */
final class S3Clients {
  /**
   * How long a request may wait for a pooled connection. Long on purpose: many virtual threads sharing
   * requestsInFlight connections is how a store limits its concurrency, so waiting is normal backpressure.
   */
  static final Duration CONNECTION_ACQUIRE_TIMEOUT = Duration.ofMinutes(10);
  static final Duration BASE_DELAY = Duration.ofMillis(100);
  static final Duration THROTTLED_BASE_DELAY = Duration.ofSeconds(1);
  static final Duration MAX_DELAY = Duration.ofSeconds(20);
  /** Exponential backoff with full jitter, for the SDK's retries, ours and resumed reads alike. */
  static final BackoffStrategy BACKOFF = BackoffStrategy.exponentialDelay(BASE_DELAY, MAX_DELAY);
  static final BackoffStrategy THROTTLED_BACKOFF = BackoffStrategy.exponentialDelay(THROTTLED_BASE_DELAY, MAX_DELAY);

  private S3Clients() {}

  /**
   * The pooled HTTP client of one store, shared by its SDK client and its {@link S3ObjectRequests}, so that
   * {@link S3Settings#requestsInFlight()} bounds them together. The caller closes it after the SDK client.
   */
  static SdkHttpClient httpClient(S3Settings settings) {
    return new PooledHttpClientBuilder(settings.requestsInFlight(), settings.attemptTimeout())
        .buildWithDefaults(AttributeMap.empty());
  }

  /**
   * Static credentials; else, when ambient credentials are allowed, the SDK's default chain (environment, profile,
   * web identity, container and instance roles) or the settings' profile alone, whose failure is one line that says
   * what to set; else none: the requests go unsigned, and the chain is never asked.
   */
  static AwsCredentialsProvider credentials(S3Settings settings) {
    if (settings.accessKeyId() != null) {
      return StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKeyId(),
          settings.secretAccessKey()));
    }
    return settings.ambientCredentials() ? new DefaultChainCredentials(S3Settings.environment(), settings.profile())
        : AnonymousCredentialsProvider.create();
  }

  static S3Client create(S3Settings settings, SdkHttpClient http, AwsCredentialsProvider credentials,
      RequestCounts counts) {
    S3ClientBuilder builder = S3Client.builder()
        .region(Region.of(settings.region()))
        .forcePathStyle(settings.pathStyle())
        .httpClient(http)
        .credentialsProvider(credentials)
        // Checksums only where S3 requires them: the newer default trailers break many S3-compatible servers.
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> o
            .retryStrategy(retryStrategy(settings.maxAttempts()))
            .addExecutionInterceptor(new RequestCountingInterceptor(counts)));
    if (settings.endpoint() != null) {
      builder.endpointOverride(settings.endpoint());
    }
    return builder.build();
  }

  /**
   * The SDK's standard strategy (it retries 500, 502, 503, 504, throttling codes such as SlowDown, and I/O errors
   * such as resets and timeouts) with exponential backoff and full jitter: 100 ms doubling to at most 20 s, 1 s
   * doubling for throttling. Its circuit breaker is off: it fails every request once a few hundred retries happened
   * in a burst, which ends a long transfer over a short outage that the backoff would ride out.
   */
  static RetryStrategy retryStrategy(int maxAttempts) {
    return AwsRetryStrategy.standardRetryStrategy().toBuilder()
        .maxAttempts(maxAttempts)
        .backoffStrategy(BACKOFF)
        .throttlingBackoffStrategy(THROTTLED_BACKOFF)
        .circuitBreakerEnabled(false)
        .build();
  }

  /**
   * Builds the synchronous HTTP client found on the classpath (software.amazon.awssdk:apache5-client, which the S3
   * SDK brings at runtime) with our pool size and timeouts, set through the SDK's generic options so that core
   * compiles without that artifact.
   */
  private static final class PooledHttpClientBuilder implements SdkHttpClient.Builder<PooledHttpClientBuilder> {
    private final AttributeMap options;

    /** {@code attemptTimeout}: the longest wait for a connection, or silence between bytes, before a retry. */
    PooledHttpClientBuilder(int maxConnections, Duration attemptTimeout) {
      this.options = AttributeMap.builder()
          .put(SdkHttpConfigurationOption.MAX_CONNECTIONS, maxConnections)
          .put(SdkHttpConfigurationOption.CONNECTION_TIMEOUT, attemptTimeout)
          .put(SdkHttpConfigurationOption.READ_TIMEOUT, attemptTimeout)
          .put(SdkHttpConfigurationOption.CONNECTION_ACQUIRE_TIMEOUT, CONNECTION_ACQUIRE_TIMEOUT)
          .put(SdkHttpConfigurationOption.TCP_KEEPALIVE, true)
          .build();
    }

    @Override
    public SdkHttpClient buildWithDefaults(AttributeMap serviceDefaults) {
      return httpService().createHttpClientBuilder().buildWithDefaults(options.merge(serviceDefaults));
    }

    /** An Apache client when there is one; the SDK itself would fail on several, we prefer the newest Apache. */
    private static SdkHttpService httpService() {
      return ServiceLoader.load(SdkHttpService.class, S3Clients.class.getClassLoader()).stream()
          .map(ServiceLoader.Provider::get)
          .max(Comparator.comparingInt(S3Clients::preference))
          .orElseThrow(() -> new IllegalStateException("Cannot create an S3 client: no synchronous HTTP client on"
              + " the classpath (add software.amazon.awssdk:apache5-client)"));
    }
  }

  private static int preference(SdkHttpService service) {
    String name = service.getClass().getName();
    return name.contains("apache5") ? 2 : name.contains("apache") ? 1 : 0;
  }
}
