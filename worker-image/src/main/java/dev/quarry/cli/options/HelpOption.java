package dev.quarry.cli.options;

import picocli.CommandLine.Option;

/**
 * {@code -h}/{@code --help} alone, for a command that has an option named like the other standard one,
 * {@code --version}: picocli drops both standard options of such a command, and {@code --help} would fail.
 */
public final class HelpOption {
  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
  boolean help;
}
