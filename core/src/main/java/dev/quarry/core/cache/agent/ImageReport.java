package dev.quarry.core.cache.agent;

/** One image on this node, for the per-node status. */
public record ImageReport(
    String name, ImageState state, long sizeBytes, long sourceBytes, long localBytes, Integer copyPercent,
    String reason, String message) {}
