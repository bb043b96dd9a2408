package dev.quarry.core.cache.agent;

import java.time.Instant;

/** A change the agent made to its cache: {@code Cache} or {@code Evict}, and why. */
public record Decision(Instant time, String image, String action, String reason) {}
