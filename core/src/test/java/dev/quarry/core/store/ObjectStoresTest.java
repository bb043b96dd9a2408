package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ObjectStoresTest {
  /** Nothing listens there: opening an S3 store sends no request, and these tests send none. */
  private final ObjectStores stores = new ObjectStores(S3Settings.defaults()
      .withEndpoint(URI.create("http://127.0.0.1:9")).withCredentials("id", "secret"));

  @AfterEach
  void closeStores() {
    stores.close();
  }

  /**
   * A local sort's scratch: a folder of its own whose writes are not fsynced (it is removed when the run ends), whole
   * or absent to readers all the same, its requests counted with the others'.
   */
  @Test
  void anUnsyncedFolderIsAStoreOfItsOwnWhoseRequestsCount(@TempDir Path folder) throws IOException {
    Location scratch = stores.locateUnsynced(folder.resolve("scratch"));

    assertThat(scratch.key()).isEmpty();
    assertThat(((FileStore) scratch.store()).synced()).isFalse();
    assertThat(((FileStore) stores.locate(folder + "/x").store()).synced()).isTrue();
    assertThat(stores.locateUnsynced(folder.resolve("scratch")).store()).isSameAs(scratch.store());
    scratch.store().put("a/b.json", new byte[] {1, 2});
    try (ObjectUpload upload = scratch.store().upload("c.bin")) {
      upload.stream().write(3);
      upload.commit();
    }
    assertThat(folder.resolve("scratch/a/b.json")).hasBinaryContent(new byte[] {1, 2});
    assertThat(folder.resolve("scratch/c.bin")).hasBinaryContent(new byte[] {3});
    assertThat(stores.requests().put()).isEqualTo(2);
  }

  @Test
  void anS3UrlIsABucketAndAKey() {
    Location location = stores.locate("s3://my-bucket/datasets/train/shard-000.tar");

    assertThat(location.store()).isInstanceOf(S3Store.class);
    assertThat(((S3Store) location.store()).bucket()).isEqualTo("my-bucket");
    assertThat(location.key()).isEqualTo("datasets/train/shard-000.tar");
    assertThat(location.url()).isEqualTo("s3://my-bucket/datasets/train/shard-000.tar");
  }

  @ParameterizedTest
  @CsvSource({"s3://my-bucket,''", "s3://my-bucket/,''", "s3://my-bucket/datasets/train-,datasets/train-",
      "s3://my-bucket/datasets/,datasets/"})
  void anS3UrlMayNameAPrefix(String url, String key) {
    assertThat(stores.locate(url).key()).isEqualTo(key);
  }

  @Test
  void oneStorePerBucket() {
    ObjectStore first = stores.locate("s3://bucket-one/a").store();

    assertThat(stores.locate("s3://bucket-one/b").store()).isSameAs(first);
    assertThat(stores.locate("s3://bucket-two/a").store()).isNotSameAs(first);
  }

  @Test
  void aFileUrlAndThePlainPathAreTheSameStoreAndKey() {
    Location url = stores.locate("file:///data/ds/train-0.tar");
    Location path = stores.locate("/data/ds/train-0.tar");

    assertThat(url.store()).isInstanceOf(FileStore.class).isSameAs(path.store());
    assertThat(((FileStore) url.store()).root()).isEqualTo(Path.of("/"));
    assertThat(url.key()).isEqualTo("data/ds/train-0.tar").isEqualTo(path.key());
    assertThat(url.url()).isEqualTo("file:///data/ds/train-0.tar").isEqualTo(path.url());
  }

  @Test
  void aRelativePathIsResolvedAgainstTheWorkingDirectoryAndNormalized() {
    Path working = Path.of("").toAbsolutePath();

    assertThat(stores.locate("shards/x.tar").key()).isEqualTo(working.resolve("shards/x.tar").toString().substring(1));
    assertThat(stores.locate("./a/../b").key()).isEqualTo(working.resolve("b").toString().substring(1));
  }

  @ParameterizedTest
  @CsvSource({"/data/ds/,data/ds/", "file:///data/ds/,data/ds/", "/,''", "file:///,''"})
  void aTrailingSlashMarksAPrefixAndIsKept(String url, String key) {
    assertThat(stores.locate(url).key()).isEqualTo(key);
  }

  @Test
  void localPathsWorkEndToEnd(@TempDir Path directory) throws IOException {
    Location location = stores.locate(directory.resolve("out/object").toString());

    location.store().put(location.key(), new byte[] {1, 2, 3});

    assertThat(directory.resolve("out/object")).hasBinaryContent(new byte[] {1, 2, 3});
    assertThat(stores.locate("file://" + directory + "/out/object").store().head(location.key())).isPresent();
    assertThat(stores.requests().put()).isEqualTo(1);
    assertThat(stores.requests().head()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "http://host/key", "s3:/bucket/key", "S3://bucket/key", "file://host/data",
      "file:relative", "gs://bucket/key"})
  void otherUrlsAreRefused(String url) {
    assertThatThrownBy(() -> stores.locate(url)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid object URL: " + url + " (must be s3://bucket/key, file:///path or a local path)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "ab", "Upper-Case", "under_score", "-starts-with-hyphen", "ends-with-hyphen-",
      "two..dots", "192.168.1.10", "xn--punycode", "name-s3alias",
      "a-name-that-is-far-too-long-for-any-bucket-because-it-has-64-chars"})
  void bucketNamesFollowTheS3Rules(String bucket) {
    assertThatThrownBy(() -> stores.locate("s3://" + bucket + "/key")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid bucket name: " + bucket + " (must be 3 to 63 lowercase letters, digits, dots and"
            + " hyphens, start and end with a letter or digit, and not look like an IP address)");
  }

  @ParameterizedTest
  @CsvSource({"s3://bucket/a/../b,a/../b", "s3://bucket//a,/a", "s3://bucket/..,..", "file:///data/../etc,data/../etc",
      "file:////data,/data"})
  void keysWithDotDotOrALeadingSlashAreRefused(String url, String key) {
    assertThatThrownBy(() -> stores.locate(url)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid object key: " + key
            + " (must be '/'-separated and not empty, without a leading '/' or a '..' component)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"file:///data//x", "file:///data/./x", "file:///./data"})
  void fileUrlsMustNameOnePath(String url) {
    assertThatThrownBy(() -> stores.locate(url)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid object key: " + url.substring("file:///".length())
            + " (a local path must not have empty or '.' components or NUL characters)");
  }

  @Test
  void requestsAreSummedOverEveryStore(@TempDir Path directory) throws IOException {
    Location one = stores.locate(directory + "/one");
    one.store().put(one.key(), new byte[1]);
    stores.locate("s3://some-bucket/key");

    RequestCounts sum = stores.requests();

    assertThat(sum.put()).isEqualTo(1);
    assertThat(sum.total()).isEqualTo(1);
    assertThatThrownBy(() -> sum.count(RequestKind.GET)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void nothingOpensAfterClose() {
    stores.locate("s3://open-bucket/key");
    stores.close();

    assertThatThrownBy(() -> stores.locate("s3://open-bucket/key")).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot open the store of s3://open-bucket/key: the object stores are closed");
    assertThat(stores.requests().total()).isZero();
  }
}
