package dev.quarry.cli.cache;

import picocli.CommandLine.Command;

/** {@code quarry cache}: the tools around NodeCache images. */
@Command(
    name = "cache",
    mixinStandardHelpOptions = true,
    description = "Builds dataset images for a NodeCache and shows the decisions its agents would make.",
    subcommands = {CacheBuildCommand.class, CachePlanCommand.class})
public final class CacheCommand {}
