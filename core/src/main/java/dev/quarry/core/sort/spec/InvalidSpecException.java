package dev.quarry.core.sort.spec;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * A job spec that is refused. The message names spec fields by their path in the spec ({@code output.shardSize});
 * {@link #message(Function)} names them otherwise, so that a command line names the options its user typed.
 */
public final class InvalidSpecException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** A field of the spec, by its path: {@code output.shardSize}. */
  public record Field(String path) {}

  private final String format;
  private final transient Object[] args;

  /**
   * @param format the message, with a {@code %s} for each argument
   * @param args {@link Field}s, named by the caller of {@link #message(Function)}, and values, printed as they are
   */
  public InvalidSpecException(String format, Object... args) {
    super(render(format, args, Field::path));
    this.format = format;
    this.args = args.clone();
  }

  public static Field field(String path) {
    return new Field(path);
  }

  /** The message, each field named by {@code name} given its path. */
  public String message(Function<String, String> name) {
    return render(format, args, field -> name.apply(field.path()));
  }

  /** The paths of the fields the message names. */
  public List<String> fields() {
    return Arrays.stream(args).filter(Field.class::isInstance).map(arg -> ((Field) arg).path()).toList();
  }

  private static String render(String format, Object[] args, Function<Field, String> name) {
    Object[] rendered = Arrays.stream(args)
        .map(arg -> arg instanceof Field field ? name.apply(field) : String.valueOf(arg))
        .toArray();
    return String.format(format, rendered);
  }
}
