package dev.quarry.core.sync.pull;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The part of a version a pull writes: its folders, files and links by relative path. Built by fetching manifests
 * top-down, only those of folders the include patterns can reach.
 */
record Selection(List<Folder> folders, List<File> files, List<Link> links, long manifestsRead) {
  record Folder(String path, int mode) {}

  record File(String path, int mode, Digest digest) {}

  record Link(String path, String target) {}

  private record Pending(String path, Manifest manifest) {}

  static Selection of(CasRemote remote, Manifest root, IncludeFilter filter) throws IOException {
    List<Folder> folders = new ArrayList<>();
    List<File> files = new ArrayList<>();
    List<Link> links = new ArrayList<>();
    long read = 1;
    List<Pending> level = List.of(new Pending("", root));
    while (!level.isEmpty()) {
      List<Map.Entry<String, TreeEntry>> subfolders = new ArrayList<>();
      for (Pending pending : level) {
        for (TreeEntry entry : pending.manifest().entries()) {
          String path = pending.path().isEmpty() ? entry.name() : pending.path() + "/" + entry.name();
          switch (entry.type()) {
            case FILE -> {
              if (filter.matches(path)) {
                files.add(new File(path, entry.mode(), entry.digest()));
              }
            }
            case SYMLINK -> {
              if (filter.matches(path)) {
                links.add(new Link(path, entry.target()));
              }
            }
            case DIRECTORY -> {
              if (filter.mayContain(path)) {
                subfolders.add(Map.entry(path, entry));
              }
            }
          }
        }
      }
      Map<Digest, Manifest> fetched =
          remote.fetchManifests(subfolders.stream().map(subfolder -> subfolder.getValue().digest()).toList());
      read += fetched.size();
      List<Pending> next = new ArrayList<>();
      for (Map.Entry<String, TreeEntry> subfolder : subfolders) {
        next.add(new Pending(subfolder.getKey(), fetched.get(subfolder.getValue().digest())));
        if (filter.matches(subfolder.getKey())) {
          folders.add(new Folder(subfolder.getKey(), subfolder.getValue().mode()));
        }
      }
      level = next;
    }
    return new Selection(folders, files, links, read);
  }

  long bytes() {
    return files.stream().mapToLong(file -> file.digest().size()).sum();
  }
}
