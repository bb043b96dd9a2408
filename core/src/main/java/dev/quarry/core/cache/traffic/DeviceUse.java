package dev.quarry.core.cache.traffic;

/**
 * A loop device serving one layer of one image. The backing file is part of the identity: a device freed and
 * attached again to another file starts a new count.
 */
public record DeviceUse(String device, String backingFile, String image, Layer layer) {}
