package dev.quarry.cli.remote;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry remote default}. */
@Command(
    name = "default",
    mixinStandardHelpOptions = true,
    description = {"Sets the default remote in a config file (the folder's unless --global or --local), the one a"
        + " sync command uses without --remote; without NAME, prints the default in effect.", ""},
    footer = {"", "Examples:", "  quarry remote default origin", "  quarry remote default --unset"})
public final class RemoteDefaultCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin ScopeOptions scope;

  @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", description = "A remote of any of the config files.")
  String name;

  @Option(names = "--unset", description = "Remove the default from that config file.")
  boolean unset;

  @Override
  public Integer call() throws Exception {
    RemoteConfig config = scope.load();
    ConfigFile file = config.file(scope.chosen());
    PrintWriter out = command.commandLine().getOut();
    if (unset) {
      if (name != null) {
        throw new IllegalArgumentException("Invalid arguments: NAME and --unset (must give one of them)");
      }
      file.withDefault(null).write();
      out.println("unset the default remote in " + file.path());
    } else if (name == null) {
      String current = config.defaultRemote();
      if (current == null) {
        throw new IllegalArgumentException("Cannot show the default remote: none is set (set one with quarry remote"
            + " default NAME)");
      }
      out.println(current);
    } else {
      config.remote(name); // an unknown name is refused here, listing the known ones
      file.withDefault(name).write();
      out.println("set the default remote to " + name + " in " + file.path());
    }
    return 0;
  }
}
