package dev.quarry.core.sort.input;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.sort.spec.BraceTemplate;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectUrl;
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

  /**
   * Whether a shard read back from scratch is the one {@code input} gives at its place: the template's or the list's
   * name at its index, or an object under the prefix, in the format the spec or the name says. Everything in scratch
   * is checked where it is read: a forged page of the input list could otherwise have create copy the bytes of any
   * object it can read into an output shard. The template is parsed once, here.
   */
  public static java.util.function.Predicate<InputShard> givenBy(SortSpec.Input input) {
    BraceTemplate template = input.template() != null ? BraceTemplate.parse(input.template(), false) : null;
    ObjectUrl prefix = input.prefix() != null ? ObjectUrl.parse(input.prefix()) : null;
    return shard -> {
      String url = shard.url();
      boolean named;
      if (template != null) {
        named = shard.index() < template.size() && template.name(shard.index()).equals(url);
      } else if (input.objects() != null) {
        named = shard.index() < input.objects().size() && input.objects().get(shard.index()).equals(url);
      } else {
        named = under(prefix, url);
      }
      return named && shard.format() == formatOf(url, input.shardFormat());
    };
  }

  private static boolean under(ObjectUrl prefix, String url) {
    try {
      ObjectUrl object = ObjectUrl.parse(url);
      return object.storeId().equals(prefix.storeId()) && object.key().startsWith(prefix.key());
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The format {@link #resolve} gives a shard of {@code url}: the declared one, else its name's; null for none. */
  private static ShardFormat formatOf(String url, ShardFormat declared) {
    try {
      return declared != null ? declared : ShardFormat.ofName(url);
    } catch (IllegalArgumentException notAShard) {
      return null;
    }
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
