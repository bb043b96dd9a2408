package dev.quarry.core.sync.cas;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.quarry.core.json.Json;
import java.io.IOException;
import java.time.Instant;

/**
 * A renewed claim on the remote: a push's lease ({@code leases/<id>.json}, format {@value #LEASE}) or a running gc
 * ({@code gc/running/<id>.json}, format {@value #GC}). Valid until {@code expiresAt}; its owner rewrites it with a
 * later expiry while it works.
 *
 * @param root the version a lease protects (its trees and blobs are listed in {@code leases/<id>.trees.gz})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"format", "id", "root", "startedAt", "expiresAt"})
public record Marker(String format, String id, String root, String startedAt, String expiresAt) {
  public static final String LEASE = "quarry-lease/1";
  public static final String GC = "quarry-gc/1";

  /** The object at a marker's key is not a marker Quarry wrote: its content is never quoted, it may be anything. */
  public static final class InvalidMarkerException extends IOException {
    public InvalidMarkerException(String message) {
      super(message);
    }
  }

  /** {@code json}: the object's bytes, read bounded. Checks every field the protocol relies on. */
  public static Marker parse(String key, byte[] json) throws InvalidMarkerException {
    Marker marker;
    try {
      marker = Json.read(json, Marker.class);
    } catch (IOException e) {
      throw new InvalidMarkerException("Cannot read " + key + ": not a Quarry lease or gc marker (not JSON of that"
          + " form)");
    }
    if (marker == null || (!LEASE.equals(marker.format()) && !GC.equals(marker.format()))) {
      throw new InvalidMarkerException("Cannot read " + key + ": unknown format (must be " + LEASE + " or " + GC
          + ")");
    }
    if (marker.id() == null || !isTime(marker.startedAt()) || !isTime(marker.expiresAt())) {
      throw new InvalidMarkerException("Cannot read " + key + ": its id, startedAt or expiresAt is missing or not"
          + " a time (must be RFC 3339)");
    }
    return marker;
  }

  private static boolean isTime(String text) {
    try {
      return text != null && Instant.parse(text) != null;
    } catch (java.time.format.DateTimeParseException e) {
      return false;
    }
  }

  public Marker expiringAt(Instant expiry) {
    return new Marker(format, id, root, startedAt, expiry.toString());
  }

  public boolean isExpired(Instant now) {
    return !Instant.parse(expiresAt).isAfter(now);
  }

  public byte[] toJson() {
    return Json.bytes(this);
  }
}
