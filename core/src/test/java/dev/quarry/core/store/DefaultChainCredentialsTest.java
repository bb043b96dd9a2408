package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DefaultChainCredentialsTest {
  @TempDir Path temp;

  @Test
  void theMessageSaysWhereCredentialsWereLookedForAndWhatToSet() throws Exception {
    assertThat(DefaultChainCredentials.missing(AwsProfile.from(Map.of("HOME", temp.toString()))))
        .isEqualTo("no S3 credentials: none in the environment or in ~/.aws/credentials and ~/.aws/config; set"
            + " AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE to a profile with aws_access_key_id and"
            + " aws_secret_access_key in ~/.aws/credentials (AWS_SHARED_CREDENTIALS_FILE moves that file)");
    Path credentials = Files.writeString(temp.resolve("credentials"), "[sso]\nsso_session = corp\n");
    assertThat(DefaultChainCredentials.missing(AwsProfile.from(Map.of("AWS_SHARED_CREDENTIALS_FILE",
        credentials.toString(), "AWS_PROFILE", "lab"))))
        .startsWith("no S3 credentials: profile lab (AWS_PROFILE) is not in " + credentials + "; set ");
    assertThat(DefaultChainCredentials.missing(AwsProfile.from(Map.of("AWS_SHARED_CREDENTIALS_FILE",
        credentials.toString(), "AWS_PROFILE", "sso"))))
        .startsWith("no S3 credentials: profile sso of " + credentials + " has none Quarry can use (it needs"
            + " aws_access_key_id and aws_secret_access_key, or web identity); set ");
  }
}
