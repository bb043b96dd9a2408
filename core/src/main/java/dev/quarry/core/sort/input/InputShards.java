package dev.quarry.core.sort.input;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.sort.spec.BraceTemplate;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStores;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The job's input list. A template or an explicit list is known without asking the store (each extract worker asks
 * for its own shards before reading any, and a missing one is handled by the missing-shards policy); a prefix is
 * listed once, and the list is kept in scratch so every phase sees the same one.
 */
public final class InputShards {
  private InputShards() {}

  public static List<InputShard> resolve(SortSpec.Input input, ObjectStores stores) throws IOException {
    List<String> urls;
    if (input.template() != null) {
      urls = BraceTemplate.parse(input.template(), false).expand();
    } else if (input.objects() != null) {
      urls = input.objects();
    } else {
      urls = list(input, stores);
    }
    if (urls.size() > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException("Invalid input: " + urls.size() + " shards (must be under 2^30)");
    }
    List<InputShard> shards = new ArrayList<>(urls.size());
    for (String url : urls) {
      ShardFormat format = input.shardFormat() != null ? input.shardFormat() : ShardFormat.ofName(url);
      shards.add(new InputShard(shards.size(), url, format));
    }
    return shards;
  }

  private static List<String> list(SortSpec.Input input, ObjectStores stores) throws IOException {
    Location location = stores.locate(input.prefix());
    List<String> urls = new ArrayList<>();
    try (var objects = location.store().listAll(location.key())) {
      for (ObjectInfo object : (Iterable<ObjectInfo>) objects::iterator) {
        String url = location.store().url(object.key());
        if (matches(url, input.shardFormat())) {
          urls.add(url);
        }
      }
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
    if (urls.isEmpty()) {
      throw new IllegalArgumentException("Cannot find input shards: nothing under " + input.prefix()
          + " ends in a shard format's extension (.tar, .tar.gz, .tgz, .tar.lz4, .zip, .msgpack)");
    }
    return urls;
  }

  private static boolean matches(String url, ShardFormat declared) {
    try {
      ShardFormat format = ShardFormat.ofName(url);
      return declared == null || declared == format;
    } catch (IllegalArgumentException notAShard) {
      return false;
    }
  }
}
