package dev.quarry.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar's manifest, or "development" when run from classes. */
final class QuarryVersion implements IVersionProvider {
  @Override
  public String[] getVersion() {
    String version = QuarryCommand.class.getPackage().getImplementationVersion();
    return new String[] {"quarry " + (version == null ? "development" : version)};
  }
}
