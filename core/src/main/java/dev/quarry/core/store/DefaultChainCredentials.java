package dev.quarry.core.store;

import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * The SDK's default credential chain (environment, profile, web identity, container and instance roles), or a named
 * profile's credentials alone, whose failure says in one line where credentials were looked for and what to set,
 * instead of the chain's report of every provider. Still an SdkClientException, so that the store's messages put the
 * action and URL before it.
 */
final class DefaultChainCredentials implements AwsCredentialsProvider, SdkAutoCloseable {
  private final AwsCredentialsProvider chain;
  private final Map<String, String> environment;

  /** {@code profile}: the AWS profile to use alone, or null for the default chain. */
  DefaultChainCredentials(Map<String, String> environment, String profile) {
    this.chain = profile == null ? DefaultCredentialsProvider.builder().build()
        : ProfileCredentialsProvider.builder().profileName(profile).build();
    this.environment = profile == null ? environment : S3Settings.withProfile(environment, profile);
  }

  @Override
  public AwsCredentials resolveCredentials() {
    try {
      return chain.resolveCredentials();
    } catch (SdkClientException e) {
      throw SdkClientException.builder().message(missing(AwsProfile.from(environment))).cause(e).build();
    }
  }

  /** What was looked for and what to set. */
  static String missing(AwsProfile profile) {
    String where = profile.exists()
        ? "profile " + profile.name() + " of " + profile.describeFiles() + " has none Quarry can use (it needs"
            + " aws_access_key_id and aws_secret_access_key, or web identity)"
        : !profile.name().equals(AwsProfile.DEFAULT)
            ? "profile " + profile.name() + " (AWS_PROFILE) is not in " + profile.describeFiles()
            : "none in the environment or in " + profile.describeFiles();
    return "no S3 credentials: " + where + "; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE to a"
        + " profile with aws_access_key_id and aws_secret_access_key in ~/.aws/credentials"
        + " (AWS_SHARED_CREDENTIALS_FILE moves that file)";
  }

  @Override
  public void close() {
    if (chain instanceof SdkAutoCloseable closeable) {
      closeable.close();
    }
  }
}
