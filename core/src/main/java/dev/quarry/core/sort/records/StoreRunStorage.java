package dev.quarry.core.sort.records;

import dev.quarry.core.fs.WorkFolder;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectUpload;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Runs as objects in a store: each is uploaded while written and becomes visible when committed, and read a
 * window at a time.
 */
public final class StoreRunStorage implements RunStorage {
  private final ObjectStore store;

  public StoreRunStorage(ObjectStore store) {
    this.store = store;
  }

  /**
   * Where a sort process keeps the runs no other process reads (its sort's spills, its merges' passes): its work
   * folder {@code work}, unless the scratch is local (a disk already, and the folder a local run's user chose). In
   * a scratch across the network each would cost the store its bytes twice and a request per window read.
   */
  public static RunStorage ownRuns(ObjectStore scratch, Path work) {
    return scratch.isLocal() ? new StoreRunStorage(scratch) : onOwnDisk(work.resolve("runs"), "sorted record entries");
  }

  /**
   * Runs of {@code what} in {@code folder} of a process's own disk, never synced (they die with the process), whose
   * write failures (a full disk) say what to do.
   */
  public static RunStorage onOwnDisk(Path folder, String what) {
    return new OnOwnDisk(FileStore.unsynced(folder), what);
  }

  /** Runs in a process's work folder, whose write failures (a full disk) say what to do. */
  private static final class OnOwnDisk implements RunStorage {
    private final StoreRunStorage runs;
    private final String what;

    OnOwnDisk(FileStore store, String what) {
      this.runs = new StoreRunStorage(store);
      this.what = what;
    }

    @Override
    public InputStream open(String name) throws IOException {
      return runs.open(name);
    }

    @Override
    public List<String> list(String prefix) throws IOException {
      return runs.list(prefix);
    }

    @Override
    public void delete(String name) throws IOException {
      runs.delete(name);
    }

    @Override
    public RunOutput create(String name) throws IOException {
      RunOutput output;
      try {
        output = runs.create(name);
      } catch (IOException e) {
        throw cannotWrite(e);
      }
      OutputStream stream = WorkFolder.keeping(output.stream(), what);
      return new RunOutput() {
        @Override
        public OutputStream stream() {
          return stream;
        }

        @Override
        public void commit() throws IOException {
          try {
            output.commit();
          } catch (IOException e) {
            throw cannotWrite(e);
          }
        }

        @Override
        public void close() throws IOException {
          output.close();
        }
      };
    }

    private IOException cannotWrite(IOException e) {
      return WorkFolder.cannotKeep(what, e);
    }
  }

  @Override
  public RunOutput create(String name) throws IOException {
    ObjectUpload upload = store.upload(name);
    return new RunOutput() {
      @Override
      public OutputStream stream() {
        return upload.stream();
      }

      @Override
      public void commit() throws IOException {
        upload.commit();
      }

      @Override
      public void close() throws IOException {
        upload.close();
      }
    };
  }

  /**
   * Read in windows ({@link WindowedRead}), so that an open run holds no connection of the store's pool; the first
   * window tells the run's size (one request, where a HEAD came first: one in each run a merge opened).
   */
  @Override
  public InputStream open(String name) throws IOException {
    return new WindowedRead(store, name, store.getStart(name, WindowedRead.WINDOW_BYTES));
  }

  @Override
  public List<String> list(String prefix) throws IOException {
    try (var objects = store.listAll(prefix)) {
      return objects.map(ObjectInfo::key).sorted().toList();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  @Override
  public void delete(String name) throws IOException {
    store.delete(name);
  }

  @Override
  public long writeBufferBytes(long size) {
    return store.uploadBufferBytes(size);
  }
}
