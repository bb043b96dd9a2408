package dev.quarry.cli.remote;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry remote remove}. */
@Command(
    name = "remove",
    mixinStandardHelpOptions = true,
    description = {"Removes a named remote from a config file (the folder's unless --global or --local), and the"
        + " file's default if it named that remote. The store itself is not touched.", ""},
    footer = {"", "Example:", "  quarry remote remove origin"})
public final class RemoteRemoveCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin ScopeOptions scope;

  @Parameters(index = "0", paramLabel = "NAME", description = "The remote to remove.")
  String name;

  @Override
  public Integer call() throws Exception {
    ConfigFile file = scope.load().file(scope.chosen());
    if (!file.remotes().containsKey(name)) {
      throw new IllegalArgumentException("Unknown remote: " + name + " in " + file.path() + " ("
          + (file.remotes().isEmpty() ? "it has none" : "it has " + String.join(", ", file.remotes().keySet()))
          + "; see quarry remote list)");
    }
    file.withoutRemote(name).write();
    command.commandLine().getOut().println("removed remote " + name + " from " + file.path());
    return 0;
  }
}
