package dev.quarry.core.sync.remote;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.ListPage;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.Digest;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PresenceCheckTest {
  @TempDir Path root;

  @Test
  void oneListingPageEstimatesTheSpaceWithinAFewPercent() {
    Random random = new Random(1);
    List<String> hexes = new ArrayList<>();
    for (int i = 0; i < 200_000; i++) {
      hexes.add(randomDigest(random, 1).hex());
    }
    hexes.sort(null);
    List<ObjectInfo> firstPage = hexes.subList(0, 1000).stream()
        .map(hex -> new ObjectInfo("cas/blobs/" + hex.substring(0, 2) + "/" + hex, 1, "e", Instant.EPOCH)).toList();
    double estimate = PresenceCheck.estimateSize(new ListPage(firstPage, "more"));
    assertThat(estimate).isBetween(190_000.0, 210_000.0);
  }

  @Test
  void listingPagesFollowTheDensityOfUnknownKeys() {
    Random random = new Random(2);
    List<Digest> few = randomDigests(random, 10);
    List<Digest> many = randomDigests(random, 50_000);
    assertThat(PresenceCheck.pagesToCover(few, 1_000_000)).isEqualTo(10);
    assertThat(PresenceCheck.pagesToCover(many, 1_000_000)).isBetween(900L, 1001L);
  }

  @Test
  void headAndListStrategiesFindExactlyThePresentObjectsWithTheRightSize() throws Exception {
    try (FileStore store = new FileStore(root)) {
      Random random = new Random(3);
      Set<Digest> present = new HashSet<>();
      for (int i = 0; i < 3000; i++) {
        Digest digest = randomDigest(random, 4);
        store.put(CasLayout.keyIn("cas/blobs/", digest), new byte[4]);
        present.add(digest);
      }
      Digest wrongSize = randomDigest(random, 4);
      store.put(CasLayout.keyIn("cas/blobs/", wrongSize), new byte[5]);
      List<Digest> presentList = new ArrayList<>(present);
      Set<Digest> sparse = new HashSet<>(presentList.subList(0, 2));
      sparse.add(randomDigest(random, 4));
      sparse.add(wrongSize);
      Set<Digest> dense = new HashSet<>(presentList.subList(0, 2500));
      dense.addAll(randomDigests(random, 500));
      dense.add(wrongSize);

      PresenceCheck check = new PresenceCheck(store, 8);
      long before = store.requests().total();
      PresenceCheck.Outcome few = check.check("cas/blobs/", sparse);
      assertThat(store.requests().total() - before).as(few.strategy().reason()).isLessThanOrEqualTo(sparse.size() + 1);
      assertThat(few.present()).containsExactlyInAnyOrderElementsOf(presentList.subList(0, 2));

      long listsBefore = store.requests().list();
      PresenceCheck.Outcome lots = check.check("cas/blobs/", dense);
      assertThat(lots.strategy().name()).isEqualTo("list");
      assertThat(lots.present()).containsExactlyInAnyOrderElementsOf(presentList.subList(0, 2500));
      assertThat(store.requests().list() - listsBefore).isLessThan(20);
    }
  }

  @Test
  void aWriterSkipsLookupsWhenTheFirstPageFindsAlmostNothingPresent() throws Exception {
    try (FileStore store = new FileStore(root)) {
      Random random = new Random(4);
      for (int i = 0; i < 3000; i++) {
        store.put(CasLayout.keyIn("cas/blobs/", randomDigest(random, 4)), new byte[4]);
      }
      Set<Digest> fresh = new HashSet<>(randomDigests(random, 2000));
      long before = store.requests().total();
      PresenceCheck.Outcome upload = new PresenceCheck(store, 8).check("cas/blobs/", fresh, true);
      assertThat(upload.strategy().name()).isEqualTo("assume-missing");
      assertThat(upload.strategy().reason()).contains("found 0 present");
      assertThat(upload.present()).isEmpty();
      assertThat(store.requests().total() - before).as("the one listing page").isEqualTo(1);

      PresenceCheck.Outcome exact = new PresenceCheck(store, 8).check("cas/blobs/", fresh, false);
      assertThat(exact.strategy().name()).as("status never assumes").isEqualTo("list");
    }
  }

  @Test
  void aWriterOfFewNewBlobsInABigSpaceHeadsASampleInsteadOfListingOrHeadingThemAll() throws Exception {
    try (FileStore store = new FileStore(root)) {
      Random random = new Random(5);
      List<Digest> old = randomDigests(random, 5000);
      for (Digest digest : old) {
        store.put(CasLayout.keyIn("cas/blobs/", digest), new byte[4]);
      }
      // 1% new files in a big remote: the first listing page settles almost none of them.
      Set<Digest> fresh = new HashSet<>(randomDigests(random, 100));
      long before = store.requests().total();
      long headsBefore = store.requests().head();

      PresenceCheck.Outcome upload = new PresenceCheck(store, 8).check("cas/blobs/", fresh, true);

      assertThat(upload.strategy().name()).as(upload.strategy().reason()).isEqualTo("assume-missing");
      assertThat(upload.strategy().reason()).contains("found 0 present");
      assertThat(upload.present()).isEmpty();
      assertThat(store.requests().head() - headsBefore).as("a sample of HEADs").isLessThanOrEqualTo(
          PresenceCheck.MIN_SAMPLE);
      assertThat(store.requests().total() - before).as("one listing page and the sample")
          .isLessThanOrEqualTo(1 + PresenceCheck.MIN_SAMPLE);

      // The same digests, mostly present (another clone pushed them): the sample finds them, and the lookup is exact.
      List<Digest> spread = new ArrayList<>();
      for (int i = 0; i < old.size(); i += 50) {
        spread.add(old.get(i));
      }
      Set<Digest> mostlyOld = new HashSet<>(spread);
      mostlyOld.addAll(randomDigests(random, 5));
      PresenceCheck.Outcome again = new PresenceCheck(store, 8).check("cas/blobs/", mostlyOld, true);
      assertThat(again.strategy().name()).isNotEqualTo("assume-missing");
      assertThat(again.present()).containsExactlyInAnyOrderElementsOf(spread);
    }
  }

  private static List<Digest> randomDigests(Random random, int count) {
    List<Digest> digests = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      digests.add(randomDigest(random, 4));
    }
    digests.sort(null);
    return digests;
  }

  private static Digest randomDigest(Random random, long size) {
    ByteBuffer bytes = ByteBuffer.allocate(8);
    bytes.putLong(random.nextLong());
    return Digest.of(bytes.array()).size() == 8 ? new Digest(Digest.of(bytes.array()).hex(), size) : null;
  }
}
