package dev.quarry.core.sync;

import dev.quarry.core.concurrent.Futures;
import dev.quarry.core.sync.local.LocalTree;
import dev.quarry.core.units.Counted;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code quarry sync status}: what the remote lacks of the folder, and what the folder lacks of the ref's version,
 * in counts and bytes and by path ({@link StatusChanges}), with the requests it took. Reads only: never writes to the
 * remote.
 */
public final class StatusCheck {
  private StatusCheck() {}

  public static SyncResult run(SyncSession session, String refName) throws IOException {
    RunClock clock = new RunClock(session.remote().store());
    // Status only reads, so it may read the remote's generation and ref while the folder is scanned (a push must
    // not: it reads them only after its lease and the gc fence).
    CompletableFuture<RemoteComparison.RemoteHead> head =
        Futures.async(() -> RemoteComparison.RemoteHead.readAhead(session.remote(), refName));
    LocalTree tree = session.scan("compare");
    RemoteComparison.RemoteHead remote = Futures.join(head);
    RemoteComparison comparison = RemoteComparison.of(session, tree, remote, false);
    Amount missingRemote = comparison.missingRemote();
    Amount missingLocal = comparison.missingLocal();
    StatusChanges changes = StatusChanges.of(tree, comparison);
    session.log("status: the remote lacks %s (%s); ref %s %s", Counted.of(missingRemote.objects(), "object"),
        Counted.of(missingRemote.bytes(), "byte"), refName, comparison.ref().isEmpty() ? "does not exist"
            : "has " + Counted.of(missingLocal.objects(), "file") + " (" + Counted.of(missingLocal.bytes(), "byte")
                + ") not in the folder");
    return new SyncResult("status", session.remote().url(), refName, tree.root().text(), tree.files(), tree.bytes(),
        tree.hashedFiles(), missingLocal, missingRemote, null, null, null, clock.requests(),
        comparison.missing().mainStrategy(), comparison.missing().lookups(), 0, List.of(), tree.warnings(),
        clock.startTime(), clock.now(), clock.elapsedSeconds(), changes);
  }
}
