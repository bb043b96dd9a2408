package dev.quarry.bench;

import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.ObjectUpload;
import dev.quarry.core.store.S3Settings;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The sort benchmark's baseline, run as a process of its own as quarry's commands are: GETs every object under a
 * prefix and streams it into an upload under another, {@code parallel} at a time, through the same store client
 * (settings from the same environment, signing, retries) the sort uses. Usage: ClientCopy BUCKET FROM TO PARALLEL
 */
public final class ClientCopy {
  private ClientCopy() {}

  public static void main(String[] args) throws Exception {
    String bucket = args[0];
    String from = args[1];
    String to = args[2];
    int parallel = Integer.parseInt(args[3]);
    try (ObjectStores stores = new ObjectStores(S3Settings.fromEnvironment().withRequestsInFlight(32))) {
      ObjectStore store = stores.locate("s3://" + bucket + "/").store();
      List<String> keys = store.listAll(from).map(ObjectInfo::key).toList();
      try (ExecutorService pool = Executors.newFixedThreadPool(parallel)) {
        List<Future<?>> copies = new ArrayList<>();
        for (String key : keys) {
          copies.add(pool.submit(() -> {
            try (InputStream in = store.get(key);
                ObjectUpload upload = store.upload(to + key.substring(from.length()))) {
              in.transferTo(upload.stream());
              upload.commit();
            }
            return null;
          }));
        }
        for (Future<?> copy : copies) {
          copy.get();
        }
      }
    }
  }
}
