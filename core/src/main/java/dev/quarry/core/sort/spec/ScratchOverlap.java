package dev.quarry.core.sort.spec;

import dev.quarry.core.fs.RealPaths;
import dev.quarry.core.store.ObjectUrl;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The rule that keeps a job's scratch apart from its data: {@code sort clean} deletes under the scratch prefix, so a
 * scratch equal to, above or below an input location or the output location is refused in every phase (the spec
 * checks it when it is read). One exception: a scratch in a {@value #RESERVED} folder may be below an input
 * template's or the output's folder (the default scratch is in the output bucket's {@value #RESERVED}), since no
 * template names anything in it; never below an input prefix, whose listing would read it as input. Local paths are
 * compared with their symlinks resolved, so that a link cannot hide an overlap.
 */
final class ScratchOverlap {
  /** The folder reserved for scratch data. */
  static final String RESERVED = ".quarry-scratch/";

  private ScratchOverlap() {}

  static void check(SortSpec.Input input, SortSpec.Output output, String prefix) {
    String scratch = prefix.endsWith("/") ? prefix : prefix + "/";
    ObjectUrl at = real(ObjectUrl.parse(scratch));
    if (input.template() != null) {
      checkFolder(scratch, at, OutputLocation.folder(BraceTemplate.parse(input.template(), false)), "input location",
          true);
    } else if (input.prefix() != null) {
      checkFolder(scratch, at, input.prefix(), "input location", false);
    } else {
      for (String object : input.objects()) {
        ObjectUrl shard = real(ObjectUrl.parse(object));
        if (shard.storeId().equals(at.storeId()) && shard.key().startsWith(at.key())) {
          throw overlap(scratch, "input shard", object);
        }
      }
    }
    checkFolder(scratch, at, OutputLocation.of(output.template()).url(), "output location", true);
  }

  private static void checkFolder(String scratch, ObjectUrl at, String folder, String what, boolean reservedAllowed) {
    ObjectUrl location = real(ObjectUrl.parse(folder));
    if (!location.storeId().equals(at.storeId())) {
      return;
    }
    boolean above = location.key().startsWith(at.key());
    boolean below = at.key().startsWith(location.key())
        && !(reservedAllowed && at.key().substring(location.key().length()).startsWith(RESERVED));
    if (above || below) {
      throw overlap(scratch, what, folder);
    }
  }

  /**
   * A local path with the symlinks of its deepest existing ancestor resolved (a scratch path through a link to the
   * output folder is that folder); an S3 URL as it is.
   */
  static ObjectUrl real(ObjectUrl url) {
    if (!url.isFile()) {
      return url;
    }
    try {
      Path resolved = RealPaths.ofDeepestExisting(Path.of("/" + url.key()));
      String key = resolved.toString().substring(1);
      return new ObjectUrl(url.storeId(), null, url.key().endsWith("/") && !key.isEmpty() ? key + "/" : key);
    } catch (IOException e) {
      return url; // unreadable: compared as written
    }
  }

  private static IllegalArgumentException overlap(String scratch, String what, String location) {
    return new IllegalArgumentException("Invalid scratch: " + scratch + " (must not overlap the " + what + " "
        + location + ": sort clean deletes scratch; choose a folder of its own, such as a " + RESERVED + "<job>/"
        + " folder next to the output)");
  }
}
