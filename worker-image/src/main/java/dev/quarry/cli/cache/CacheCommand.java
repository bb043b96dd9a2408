package dev.quarry.cli.cache;

import java.util.List;
import picocli.CommandLine.Command;

/** {@code quarry cache}: the tools around NodeCache images. */
@Command(
    name = "cache",
    mixinStandardHelpOptions = true,
    description = "Builds dataset images for a NodeCache and shows the decisions its agents would make.")
public final class CacheCommand {
  /** Its subcommands, in the order help lists them (QuarryCommand builds the tree from them). */
  public static final List<Class<?>> SUBCOMMANDS = List.of(CacheBuildCommand.class, CachePlanCommand.class);
}
