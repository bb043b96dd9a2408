package dev.quarry.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;
import java.util.Optional;

/** Where object store credentials are read from: a Secret in the resource's namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.accessKeyIdKey) || self.accessKeyIdKey in ['AWS_ACCESS_KEY_ID', 'access-key-id',"
    + " 'accessKeyId', 'access_key_id', 'accesskey']", fieldPath = ".accessKeyIdKey",
    message = "accessKeyIdKey must be one of AWS_ACCESS_KEY_ID, access-key-id, accessKeyId, access_key_id, accesskey")
@ValidationRule(value = "!has(self.secretAccessKeyKey) || self.secretAccessKeyKey in ['AWS_SECRET_ACCESS_KEY',"
    + " 'secret-access-key', 'secretAccessKey', 'secret_access_key', 'secretkey']", fieldPath = ".secretAccessKeyKey",
    message = "secretAccessKeyKey must be one of AWS_SECRET_ACCESS_KEY, secret-access-key, secretAccessKey,"
        + " secret_access_key, secretkey")
public record SecretKeys(
    @JsonPropertyDescription("Name of the Secret, in the same namespace as the resource (for the cluster-scoped"
            + " NodeCache: in the operator's namespace).")
        @Required
        @Pattern(Patterns.DNS_SUBDOMAIN)
        String name,
    @JsonPropertyDescription("Key in the Secret holding the access key id: one of AWS_ACCESS_KEY_ID, access-key-id,"
            + " accessKeyId, access_key_id, accesskey. Other keys are refused, so that no other value of a Secret"
            + " (a token, a password) is ever sent to an object store.")
        @Default("AWS_ACCESS_KEY_ID")
        String accessKeyIdKey,
    @JsonPropertyDescription("Key in the Secret holding the secret access key: one of AWS_SECRET_ACCESS_KEY,"
            + " secret-access-key, secretAccessKey, secret_access_key, secretkey.")
        @Default("AWS_SECRET_ACCESS_KEY")
        String secretAccessKeyKey) {
  /** The key names {@code accessKeyIdKey} may take, as the schema's rule lists them. */
  public static final List<String> ACCESS_KEY_ID_KEYS = List.of("AWS_ACCESS_KEY_ID", "access-key-id", "accessKeyId",
      "access_key_id", "accesskey");
  /** The key names {@code secretAccessKeyKey} may take, as the schema's rule lists them. */
  public static final List<String> SECRET_ACCESS_KEY_KEYS = List.of("AWS_SECRET_ACCESS_KEY", "secret-access-key",
      "secretAccessKey", "secret_access_key", "secretkey");

  /** Why these keys must not be read (the schema refuses them; a CRD of an older release did not), or empty. */
  public Optional<String> refusal() {
    if (accessKeyIdKey != null && !ACCESS_KEY_ID_KEYS.contains(accessKeyIdKey)) {
      return Optional.of("Invalid spec.store.credentialsSecret.accessKeyIdKey: " + accessKeyIdKey + " (must be one of "
          + String.join(", ", ACCESS_KEY_ID_KEYS) + ")");
    }
    if (secretAccessKeyKey != null && !SECRET_ACCESS_KEY_KEYS.contains(secretAccessKeyKey)) {
      return Optional.of("Invalid spec.store.credentialsSecret.secretAccessKeyKey: " + secretAccessKeyKey
          + " (must be one of " + String.join(", ", SECRET_ACCESS_KEY_KEYS) + ")");
    }
    return Optional.empty();
  }
}
