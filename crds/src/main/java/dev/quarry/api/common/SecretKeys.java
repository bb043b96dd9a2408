package dev.quarry.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** Where object store credentials are read from: a Secret in the resource's namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SecretKeys(
    @JsonPropertyDescription("Name of the Secret, in the same namespace as the resource (for the cluster-scoped"
            + " NodeCache: in the operator's namespace).")
        @Required
        @Pattern(Patterns.DNS_SUBDOMAIN)
        String name,
    @JsonPropertyDescription("Key in the Secret holding the access key id.")
        @Default("AWS_ACCESS_KEY_ID")
        String accessKeyIdKey,
    @JsonPropertyDescription("Key in the Secret holding the secret access key.")
        @Default("AWS_SECRET_ACCESS_KEY")
        String secretAccessKeyKey) {}
