package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** Which credentials a store's requests carry, as the settings decide. */
class S3ClientsTest {
  @Test
  void staticCredentialsAreUsedWhateverTheAmbientSetting() {
    for (boolean ambient : new boolean[] {true, false}) {
      S3Settings settings = S3Settings.defaults().withCredentials("id", "secret").withAmbientCredentials(ambient);
      assertThat(S3Clients.credentials(settings)).isInstanceOf(StaticCredentialsProvider.class);
      assertThat(S3Clients.credentials(settings).resolveCredentials().accessKeyId()).isEqualTo("id");
    }
  }

  @Test
  void withoutStaticCredentialsAPersonGetsTheDefaultChain() {
    assertThat(S3Clients.credentials(S3Settings.fromEnvironment(Map.of())))
        .isInstanceOf(DefaultChainCredentials.class);
  }

  /**
   * A worker whose resource names no Secret, where the admin does not allow ambient credentials: unsigned requests,
   * whatever the chain would find (session variables, a profile, web identity, the instance role).
   */
  @Test
  void withoutStaticCredentialsOrAmbientOnesRequestsAreAnonymous() {
    S3Settings settings = S3Settings.fromEnvironment(Map.of("QUARRY_S3_AMBIENT_CREDENTIALS", "false",
        "AWS_ACCESS_KEY_ID", "id", "AWS_SECRET_ACCESS_KEY", "secret", "AWS_SESSION_TOKEN", "token",
        "AWS_PROFILE", "lab"));
    assertThat(S3Clients.credentials(settings)).isInstanceOf(AnonymousCredentialsProvider.class);
    assertThat(S3Clients.credentials(settings).resolveCredentials().accessKeyId()).isNull();
  }
}
