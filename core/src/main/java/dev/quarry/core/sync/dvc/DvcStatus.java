package dev.quarry.core.sync.dvc;

import dev.quarry.core.concurrent.Futures;
import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.sync.Amount;
import dev.quarry.core.sync.PathList;
import dev.quarry.core.sync.RunClock;
import dev.quarry.core.sync.StatusChanges;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.local.FileIdentity;
import dev.quarry.core.sync.local.LocalDirectory;
import dev.quarry.core.sync.local.LocalTree;
import dev.quarry.core.sync.remote.Strategy;
import dev.quarry.core.units.Counted;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code quarry sync status --dvc}: the folder against the version a {@code .dvc} file names on its DVC 3 remote, in
 * {@code sync status}'s terms: the paths added, modified (another MD5, or a link where the version has a file) and
 * deleted since that version, and the files whose content the DVC remote lacks. The folder is scanned as status
 * scans it ({@code .quarryignore} applied), leaving out what DVC leaves out when it hashes the folder
 * ({@link DvcIgnore}), and each file's MD5 comes from {@link LocalMd5s}. The remote is asked
 * (by HEAD) only about the contents on changed paths: those of added and modified files (does it lack them?) and
 * those the version has at modified and deleted paths (their sizes, what a pull would read). A file the version
 * holds unchanged is taken to be on the remote, as {@code dvc status} without {@code --cloud} does; a pull checks
 * every object it reads. Reads only.
 */
public final class DvcStatus {
  private DvcStatus() {}

  private record LocalFile(String path, Path file) {}

  public static SyncResult run(SyncSession session, DvcRemote dvc) throws IOException {
    RunClock clock = new RunClock(session.remote().store());
    session.ignoreAlso(DvcIgnore.of(session.folder()));
    CompletableFuture<List<DirListing.Entry>> listing = Futures.async(dvc::files); // read while the folder is scanned
    LocalTree tree = session.scan("compare");
    List<DirListing.Entry> entries = Futures.join(listing);
    List<LocalFile> files = new ArrayList<>();
    Set<String> links = new HashSet<>();
    walk(tree.top(), "", files, links);

    LocalMd5s md5s = new LocalMd5s(session.state(), session.folder());
    Map<String, String> localMd5 = new ConcurrentHashMap<>();
    Map<String, Long> localSize = new ConcurrentHashMap<>();
    InFlight.all(files, Runtime.getRuntime().availableProcessors(), file -> {
      FileIdentity identity = FileIdentity.of(file.file());
      if (!identity.isRegularFile()) {
        throw new IOException("Cannot compare " + file.file() + ": it stopped being a file while status ran");
      }
      LocalMd5s.Hashes hashes = md5s.of(file.file(), identity);
      if (hashes == null) {
        throw new IOException("Cannot compare " + file.file() + ": it changed while status read it");
      }
      localMd5.put(file.path(), hashes.md5());
      localSize.put(file.path(), identity.size());
    });
    md5s.save();

    Map<String, String> version = new HashMap<>();
    entries.forEach(entry -> version.put(entry.relpath(), entry.md5()));
    List<String> added = new ArrayList<>();
    List<String> modified = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    for (Map.Entry<String, String> local : localMd5.entrySet()) {
      String listed = version.get(local.getKey());
      if (listed == null) {
        added.add(local.getKey());
      } else if (!listed.equals(local.getValue())) {
        modified.add(local.getKey());
      }
    }
    for (String link : links) {
      (version.containsKey(link) ? modified : added).add(link);
    }
    for (String path : version.keySet()) {
      if (!localMd5.containsKey(path) && !links.contains(path)) {
        deleted.add(path);
      }
    }

    Set<String> toLookUp = new HashSet<>();
    added.stream().filter(localMd5::containsKey).forEach(path -> toLookUp.add(localMd5.get(path)));
    modified.stream().filter(localMd5::containsKey).forEach(path -> toLookUp.add(localMd5.get(path)));
    modified.forEach(path -> toLookUp.add(version.get(path)));
    deleted.forEach(path -> toLookUp.add(version.get(path)));
    Map<String, Optional<Long>> onRemote = new ConcurrentHashMap<>();
    InFlight.all(toLookUp, session.remote().inFlight(), md5 -> onRemote.put(md5, dvc.sizeIfPresent(md5)));

    List<String> notOnRemote = new ArrayList<>();
    Set<String> missingMd5s = new HashSet<>();
    long missingBytes = 0;
    for (String path : concat(added, modified)) {
      String md5 = localMd5.get(path);
      if (md5 != null && onRemote.get(md5).isEmpty()) {
        notOnRemote.add(path);
        if (missingMd5s.add(md5)) {
          missingBytes += localSize.get(path);
        }
      }
    }
    long missingLocalBytes = 0;
    for (String path : concat(modified, deleted)) {
      missingLocalBytes += onRemote.get(version.get(path)).orElse(0L);
    }
    Amount missingLocal = new Amount(modified.size() + deleted.size(), missingLocalBytes);
    Amount missingRemote = new Amount(missingMd5s.size(), missingBytes);
    StatusChanges changes = new StatusChanges(PathList.of(added), PathList.of(modified), PathList.of(deleted),
        PathList.of(notOnRemote));
    session.log("status: the DVC remote lacks %s (%s); %s has %s (%s) not in the folder, %d MD5s hashed",
        Counted.of(missingRemote.objects(), "object"), Counted.of(missingRemote.bytes(), "byte"),
        dvc.source().hash(), Counted.of(missingLocal.objects(), "file"), Counted.of(missingLocal.bytes(), "byte"),
        md5s.hashed());
    return new SyncResult("status", dvc.url(), dvc.source().hash().toString(), tree.root().text(), tree.files(),
        tree.bytes(), tree.hashedFiles(), missingLocal, missingRemote, null, null, null, clock.requests(),
        new Strategy("head", toLookUp.size() + " contents on changed paths to look up"), List.of(), 0, List.of(),
        tree.warnings(), clock.startTime(), clock.now(), clock.elapsedSeconds(), changes);
  }

  /** The files (with their local paths) and links of a scanned folder, by '/'-separated path from its top. */
  private static void walk(LocalDirectory folder, String prefix, List<LocalFile> files, Set<String> links) {
    for (TreeEntry entry : folder.manifest().entries()) {
      String path = prefix + entry.name();
      if (entry.isDirectory()) {
        walk(folder.subdirectories().get(entry.name()), path + "/", files, links);
      } else if (entry.isFile()) {
        if (entry.name().equals(DvcIgnore.FILE_NAME)) {
          throw new IllegalArgumentException("Cannot compare " + folder.path().resolve(entry.name()) + " with a DVC"
              + " version: DVC refuses a " + DvcIgnore.FILE_NAME + " inside a folder it tracks (move its rules to a "
              + DvcIgnore.FILE_NAME + " above the folder)");
        }
        files.add(new LocalFile(path, folder.path().resolve(entry.name())));
      } else {
        links.add(path);
      }
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
