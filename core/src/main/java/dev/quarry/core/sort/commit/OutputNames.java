package dev.quarry.core.sort.commit;

import dev.quarry.core.sort.spec.BraceTemplate;

/**
 * The objects a job writes next to one output template's shards, for {@code s3://b/out/train-{000000..}.tar}:
 * {@code s3://b/out/train.manifest.json} (the commit point), {@code train.wids.json} (the WebDataset index) and
 * {@code train.pending.json} (an unfinished run's names). {@code folder} is where they and the shards are.
 */
public record OutputNames(String folder, String base, String manifest, String wids, String pending) {
  public static OutputNames of(BraceTemplate template) {
    String base = base(template);
    int slash = template.prefix().lastIndexOf('/');
    String folder = slash < 0 ? "./" : template.prefix().substring(0, slash + 1); // no folder: the working one
    return new OutputNames(folder, base, base + ".manifest.json", base + ".wids.json", base + ".pending.json");
  }

  /** The template's text before its range, without a trailing separator; "shards" when that leaves a folder. */
  static String base(BraceTemplate template) {
    String prefix = template.prefix().replaceAll("[-_.]+$", "");
    return prefix.endsWith("/") || prefix.endsWith("://") || prefix.isEmpty() ? prefix + "shards" : prefix;
  }
}
