package dev.quarry.api.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.generator.annotation.ValidationRule;
import org.junit.jupiter.api.Test;

class SecretKeysTest {
  @Test
  void theSchemasRulesListTheSameKeyNamesAsTheOperatorsCheck() {
    ValidationRule[] rules = SecretKeys.class.getAnnotationsByType(ValidationRule.class);
    assertThat(rules).hasSize(2);
    for (String key : SecretKeys.ACCESS_KEY_ID_KEYS) {
      assertThat(rules[0].value()).contains("'" + key + "'");
    }
    for (String key : SecretKeys.SECRET_ACCESS_KEY_KEYS) {
      assertThat(rules[1].value()).contains("'" + key + "'");
    }
    assertThat(rules[0].message()).endsWith(String.join(", ", SecretKeys.ACCESS_KEY_ID_KEYS));
    assertThat(rules[1].message()).endsWith(String.join(", ", SecretKeys.SECRET_ACCESS_KEY_KEYS));
  }

  @Test
  void aKeyNameOutsideTheListsIsRefusedNamingTheField() {
    assertThat(new SecretKeys("s3", "AWS_ACCESS_KEY_ID", "secretkey").refusal()).isEmpty();
    assertThat(new SecretKeys("s3", null, null).refusal()).isEmpty();
    assertThat(new SecretKeys("registry", null, ".dockerconfigjson").refusal()).contains(
        "Invalid spec.store.credentialsSecret.secretAccessKeyKey: .dockerconfigjson (must be one of"
            + " AWS_SECRET_ACCESS_KEY, secret-access-key, secretAccessKey, secret_access_key, secretkey)");
  }
}
