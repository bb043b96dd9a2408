package dev.quarry.core.cache.copy;

/**
 * Written next to a finished copy ({@code <name>.json}): the source it came from and the SHA-256 of its bytes. A
 * copy without its record is not trusted.
 */
public record CopyRecord(String format, SourceIdentity source, String sha256) {
  public static final String FORMAT = "quarry-cache-copy/1";
}
