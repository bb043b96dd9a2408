package dev.quarry.core.cache.plan;

/** Whether one image should have a local copy, and why, in words for the per-node status. */
public record ImageChoice(String name, boolean local, String reason) {}
