package dev.quarry.core.sort.plan;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.policy.Policy;
import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.commit.OutputNames;
import dev.quarry.core.sort.spec.BraceTemplate;
import dev.quarry.core.sort.spec.OutputLocation;
import dev.quarry.core.sync.cas.Digest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A compiled key map: lines of {@code <pattern><separator><output template>}. A record goes to the template of the
 * first line whose pattern matches its whole key; lines naming the same template share its shards. Blank lines and
 * lines starting with '#' are skipped.
 */
public final class Keymap {
  /** Problem kinds counted under the keymap policies. */
  public static final String MALFORMED_LINE = "keymapMalformedLine";
  public static final String MISSING_KEY = "keymapMissingKey";

  private final List<Pattern> patterns = new ArrayList<>();
  private final List<Integer> targets = new ArrayList<>();
  private final List<BraceTemplate> templates = new ArrayList<>();
  private final String sha256;
  /** The format of the first accepted line whose template's names end in one, and that line. */
  private ShardFormat namedFormat;
  private int namedFormatLine;

  private Keymap(String text) {
    this.sha256 = HexFormat.of().formatHex(Digest.sha256().digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** The job's key map, inline or read from its object, parsed as {@link #parse} does. */
  static Keymap of(dev.quarry.core.sort.spec.SortSpec spec, dev.quarry.core.store.ObjectStores stores,
      Problems problems) throws IOException {
    dev.quarry.core.sort.spec.SortSpec.Keymap source = spec.order().keymap();
    String text = source.inline();
    if (text == null) {
      dev.quarry.core.store.Location location = stores.locate(source.object());
      text = new String(location.store().getBytes(location.key()), StandardCharsets.UTF_8);
    }
    return parse(text, source.separator(), spec.outputLocation(), spec.output().shardFormat(),
        spec.policies().keymapMalformedLine(), problems);
  }

  /**
   * Parses the lines; malformed lines are handled by {@code malformedLine}. Each line's template is resolved in
   * {@code location} (a relative one is in it) and must stay in it. Messages name a line by its number and say what
   * is wrong, never quoting it: a key map may come from an object, whose content never goes into messages or a job's
   * status.
   */
  public static Keymap parse(String text, String separator, OutputLocation location, ShardFormat declared,
      Policy malformedLine, Problems problems) throws IOException {
    Keymap keymap = new Keymap(text);
    Map<String, Integer> templateIndex = new LinkedHashMap<>();
    Map<String, Integer> manifestLine = new HashMap<>(); // two templates of one manifest would commit each other
    String[] lines = text.split("\r?\n");
    for (int number = 1; number <= lines.length; number++) {
      String line = lines[number - 1];
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int at = line.indexOf(separator);
      String problem = null;
      Pattern pattern = null;
      BraceTemplate template = null;
      if (at <= 0) {
        problem = "it has no pattern before the separator";
      } else {
        try {
          pattern = Pattern.compile(line.substring(0, at));
          template = BraceTemplate.parse(location.resolve(line.substring(at + separator.length()).strip()), true);
          location.confine(template.name(0));
          if (template.suffix().contains("/")) {
            problem = "its template has its range in a folder name (must be in the file name)";
          } else if (!templateIndex.containsKey(template.toString())) {
            String manifest = OutputNames.of(template).manifest();
            Integer other = manifestLine.putIfAbsent(manifest, number);
            if (other != null) {
              problem = "its template would share the manifest " + manifest + " with line " + other + "'s (give"
                  + " each template its own name before the range)";
            }
          }
          if (problem == null) {
            problem = keymap.formatProblem(template, declared, number);
          }
        } catch (PatternSyntaxException e) {
          problem = "its pattern is not a regular expression (" + e.getDescription() + ")";
        } catch (BraceTemplate.InvalidTemplate e) {
          problem = "its template is invalid (" + e.reason() + ")";
        } catch (IllegalArgumentException e) {
          problem = template != null && OutputLocation.inReservedFolder(template.name(0))
              ? "its template names shards in a " + OutputLocation.RESERVED_FOLDER + " folder, which is reserved for"
                  + " sort scratch"
              : "its template names shards outside the output location " + location.url();
        }
      }
      if (problem != null) {
        String message = "key map line " + number + ": " + problem;
        problems.report(malformedLine, MALFORMED_LINE, message + "; skipped it", () -> new IllegalArgumentException(
            "Invalid " + message + " (policy keymapMalformedLine is abort; fix the line, or set the policy to warn"
                + " or ignore to skip it)"));
        continue;
      }
      Integer index = templateIndex.computeIfAbsent(template.toString(), t -> templateIndex.size());
      if (index == keymap.templates.size()) {
        keymap.templates.add(template);
      }
      keymap.patterns.add(pattern);
      keymap.targets.add(index);
    }
    if (keymap.templates.isEmpty()) {
      throw new IllegalArgumentException("Invalid key map: it has no usable line (each line is"
          + " <pattern><separator><output template>)");
    }
    return keymap;
  }

  /**
   * Why the template of line {@code number} cannot be written in the job's one format, or null: the format its names
   * end in, if any, must be {@code declared} (output.format), or without one the format of the first line whose
   * names end in one, which becomes the key map's ({@link #format}).
   */
  private String formatProblem(BraceTemplate template, ShardFormat declared, int number) {
    ShardFormat named = ShardFormat.named(template.suffix()).orElse(null);
    ShardFormat job = declared != null ? declared : namedFormat;
    if (named == null || named == job) {
      return null;
    }
    if (job == null) {
      namedFormat = named;
      namedFormatLine = number;
      return null;
    }
    return declared != null
        ? "its template names " + named.extension() + " shards, where output.format is " + declared.extension()
            + " (name them ." + declared.extension() + ")"
        : "its template names " + named.extension() + " shards, where line " + namedFormatLine + "'s names "
            + job.extension() + " (a job writes one format: name them alike, or set output.format)";
  }

  /** The format the templates' names end in, null when none ends in one (the job's is then declared or the input's). */
  public ShardFormat format() {
    return namedFormat;
  }

  /** The template index of {@code key}, or -1 when no pattern matches it. */
  public int match(String key) {
    for (int i = 0; i < patterns.size(); i++) {
      if (patterns.get(i).matcher(key).matches()) {
        return targets.get(i);
      }
    }
    return -1;
  }

  public List<BraceTemplate> templates() {
    return List.copyOf(templates);
  }

  /**
   * The SHA-256 (hex) of the key map's text: the phases that read the key map object each read it themselves, so
   * they compare this to tell whether they read the same one.
   */
  public String sha256() {
    return sha256;
  }
}
