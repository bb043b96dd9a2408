package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The remote's promise, checked object by object: every manifest present has its whole subtree present. */
final class RemoteInvariant {
  private RemoteInvariant() {}

  /** The problems found: objects referenced by a present manifest, or by a ref, that are missing. */
  static List<String> violations(CasRemote remote) throws IOException {
    var store = remote.store();
    CasLayout layout = remote.layout();
    List<String> problems = new ArrayList<>();
    for (ObjectInfo tree : store.listAll(layout.space(CasLayout.TREES)).toList()) {
      TreeObject object = TreeObject.decode(store.getBytes(tree.key()));
      for (Digest named : object.trees()) {
        if (store.head(layout.treeKey(named)).isEmpty()) {
          problems.add(tree.key() + " names missing manifest " + named);
        }
      }
      for (Digest blob : object.blobs()) {
        if (!blob.isEmpty() && store.head(layout.blobKey(blob)).isEmpty()) {
          problems.add(tree.key() + " names missing blob " + blob);
        }
      }
    }
    for (ObjectInfo ref : store.listAll(layout.refsPrefix()).toList()) {
      String name = ref.key().substring(layout.refsPrefix().length());
      Digest root = remote.readRef(name).orElseThrow().rootDigest();
      if (store.head(layout.treeKey(root)).isEmpty()) {
        problems.add("ref " + name + " names missing root " + root);
      }
    }
    return problems;
  }

  static void assertHolds(CasRemote remote) throws IOException {
    assertThat(violations(remote)).isEmpty();
  }
}
