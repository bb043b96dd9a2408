package dev.quarry.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.store.ListPage;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.testkit.ServerProcess;
import dev.quarry.testkit.TestTools;
import dev.quarry.testkit.Toxiproxy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;

/**
 * DatasetSync against rclone, in the same run, on a local MinIO behind a toxiproxy that delays every response: a
 * dataset of FILES files of about 10 KiB pushed into a content-addressed prefix that already holds UNRELATED other
 * blobs; status after one changed file; push of 1% new files; full pull into an empty folder. rclone does the same
 * with a plain copy under another prefix of the same bucket. Wall time of each process, and requests by kind: quarry's
 * own counts, checked against what MinIO counted (its v3 API metrics), which are also rclone's counts. DVC 3 does
 * the same on its own copy of the dataset (a DVC project; its times include the {@code dvc add} it needs before a
 * status or a push), on the same MinIO behind the same proxy, under another prefix.
 *
 * <p>MinIO runs on a data folder under CACHEDIR that keeps the unrelated objects between runs (filling a million
 * takes minutes); everything a run writes is deleted again when it ends, and at the start of the next run if it did
 * not end. Usage: SyncBench QUARRY_LAUNCHER WORKDIR CACHEDIR FILES UNRELATED LATENCY_MS
 */
public final class SyncBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CAS = "cas/";
  private static final String RCLONE = "rclone/";
  private static final String DVC = "dvc/";
  private static final String WARM_UP = "warm-up/";
  private static final int FILES_PER_FOLDER = 1000;
  private static final Duration COMMAND_TIMEOUT = Duration.ofHours(2);
  private static final List<String> SCENARIOS = List.of("full push", "status after 1 change", "push of 1% new files",
      "full pull (empty folder)");
  /** Issue 21's goals on the 100k bench: how many times DVC's wall time each of quarry's rows must beat. */
  private static final List<Double> DVC_GOALS = List.of(2.5, 15.0, 5.0, 3.5);

  public static void main(String[] args) throws Exception {
    Path launcher = Path.of(args[0]);
    Path work = Files.createDirectories(Path.of(args[1]));
    Path cache = Files.createDirectories(Path.of(args[2]));
    int files = Integer.parseInt(args[3]);
    int unrelated = Integer.parseInt(args[4]);
    int latencyMs = Integer.parseInt(args[5]);
    if (files < 100 || unrelated < 0 || latencyMs < 0) {
      throw new IllegalArgumentException("Invalid arguments: files must be at least 100, unrelated objects and latency"
          + " at least 0");
    }
    boolean correct;
    try (CachedMinio minio = CachedMinio.start(cache.resolve("minio"), work);
        Toxiproxy toxiproxy = Toxiproxy.start()) {
      String bucket = minio.prepare(unrelated);
      Toxiproxy.Proxy proxy = toxiproxy.proxy("s3", minio.endpoint());
      if (latencyMs > 0) {
        proxy.latency(Duration.ofMillis(latencyMs));
      }
      Dataset dataset = new Dataset(work.resolve("data"), files);
      minio.journal(bucket, dataset.blobKeys(CAS));
      try {
        dataset.write();
        System.out.printf(Locale.ROOT, "dataset: %d files in %d folders, %.1f MiB; remote %s holds %d unrelated"
                + " blobs; %d ms latency per response (toxiproxy, both tools); %d cores%n%n", files,
            dataset.folders, dataset.bytes / 1048576.0, "s3://" + bucket + "/" + CAS, unrelated, latencyMs,
            Runtime.getRuntime().availableProcessors());
        correct = new Run(new Quarry(launcher, work, minio, proxy.endpoint(), bucket),
            new Rclone(work, minio, proxy.endpoint(), bucket),
            new Dvc(TestTools.dvc(), work, minio, proxy.endpoint(), bucket), dataset, work, unrelated).all();
      } finally {
        minio.clean(bucket);
      }
    }
    if (!correct) {
      System.exit(1);
    }
  }

  /** The four scenarios, each by quarry then by rclone, and the report. */
  private static final class Run {
    final Quarry quarry;
    final Rclone rclone;
    final Dvc dvc;
    final Dataset dataset;
    final Path work;
    final int unrelated;
    final List<Measure> quarryRows = new ArrayList<>();
    final List<Measure> rcloneRows = new ArrayList<>();
    final List<Measure> dvcRows = new ArrayList<>();
    final List<String> problems = new ArrayList<>();

    Run(Quarry quarry, Rclone rclone, Dvc dvc, Dataset dataset, Path work, int unrelated) {
      this.quarry = quarry;
      this.rclone = rclone;
      this.dvc = dvc;
      this.dataset = dataset;
      this.work = work;
      this.unrelated = unrelated;
    }

    /** Runs and reports every scenario; false when a tool gave a wrong result. */
    boolean all() throws Exception {
      Path data = dataset.root;
      Path pushState = work.resolve("state-push");
      progress("warm-up (untimed)");
      quarry.warmUp();
      progress("full push");
      quarryRows.add(quarry.sync("push", data, pushState));
      rcloneRows.add(rclone.run("copy", data.toString(), rclone.remote()));
      expectTransferred(rcloneRows.getLast(), dataset.files, "rclone full push");
      dvc.mirror(data);
      dvcRows.add(dvc.addThen("push"));

      String changed = dataset.changeOneFile();
      progress("status after changing " + changed);
      Measure status = quarry.sync("status", data, pushState);
      quarryRows.add(status);
      if (status.json.path("missingRemote").path("objects").asLong() < 1
          || status.json.path("missingLocal").path("objects").asLong() < 1) {
        problems.add("quarry status after changing " + changed + " reports missingRemote "
            + status.json.path("missingRemote") + " and missingLocal " + status.json.path("missingLocal")
            + " (expected at least 1 each); command: " + status.command);
      }
      Measure check = rclone.run("check", data.toString(), rclone.remote());
      rcloneRows.add(check);
      if (!check.rcloneLog.contains("1 differences found")) {
        problems.add("rclone check after changing " + changed + " did not report 1 difference: " + lastLines(
            check.rcloneLog, 5));
      }
      dvc.mirror(data);
      Measure dvcStatus = dvc.addThen("status", "--cloud");
      dvcRows.add(dvcStatus);
      if (dvcStatus.rcloneLog.contains("in sync")) {
        problems.add("dvc status --cloud after changing " + changed + " found nothing to push: "
            + lastLines(dvcStatus.rcloneLog, 5));
      }

      int added = dataset.addOnePercent();
      progress("push after adding " + added + " files");
      quarryRows.add(quarry.sync("push", data, pushState));
      rcloneRows.add(rclone.run("copy", data.toString(), rclone.remote()));
      expectTransferred(rcloneRows.getLast(), added + 1, "rclone copy after adding 1%");
      dvc.mirror(data);
      dvcRows.add(dvc.addThen("push"));

      progress("full pull");
      Path quarryPulled = work.resolve("pulled-quarry");
      quarryRows.add(quarry.sync("pull", quarryPulled, work.resolve("state-pull")));
      verify(quarryPulled, "quarry pull", quarryRows.getLast().command);
      Path rclonePulled = work.resolve("pulled-rclone");
      rcloneRows.add(rclone.run("copy", rclone.remote(), rclonePulled.toString()));
      verify(rclonePulled, "rclone pull", rcloneRows.getLast().command);
      dvcRows.add(dvc.pullCold());
      verify(dvc.data, "dvc pull", dvcRows.getLast().command);

      report();
      return problems.isEmpty();
    }

    private void expectTransferred(Measure measure, long expected, String what) {
      Matcher files = Pattern.compile("Transferred:\\s+(\\d+) / (\\d+), 100%").matcher(measure.rcloneLog);
      long transferred = -1;
      while (files.find()) {
        transferred = Long.parseLong(files.group(1));
      }
      if (transferred != expected) {
        problems.add(what + " transferred " + transferred + " files, expected " + expected + ": "
            + lastLines(measure.rcloneLog, 8));
      }
    }

    private void verify(Path pulled, String what, String command) throws IOException {
      String difference = Dataset.difference(dataset.root, pulled);
      if (difference != null) {
        problems.add(what + " wrote a folder that differs from the source: " + difference + "; command: " + command);
      }
    }

    private void report() {
      System.out.println();
      System.out.printf(Locale.ROOT, "%-26s %9s %-30s %9s %-30s %8s %9s %-30s %8s%n", "scenario", "quarry s",
          "quarry HEAD/LIST/GET/PUT/DEL", "rclone s", "rclone HEAD/LIST/GET/PUT/DEL", "rclone/q", "dvc s",
          "dvc HEAD/LIST/GET/PUT/DEL", "dvc/q");
      for (int i = 0; i < SCENARIOS.size(); i++) {
        Measure q = quarryRows.get(i);
        Measure r = rcloneRows.get(i);
        Measure d = dvcRows.get(i);
        System.out.printf(Locale.ROOT, "%-26s %9.2f %-30s %9.2f %-30s %7.2fx %9.2f %-30s %7.2fx%n", SCENARIOS.get(i),
            q.wallSeconds, q.own.text(), r.wallSeconds, counted(r), r.wallSeconds / q.wallSeconds, d.wallSeconds,
            counted(d), d.wallSeconds / q.wallSeconds);
      }
      System.out.println();
      System.out.println("quarry: wall time of the whole process (JVM start included); its own elapsed time, lookup"
          + " and counts per scenario:");
      for (int i = 0; i < SCENARIOS.size(); i++) {
        Measure q = quarryRows.get(i);
        JsonNode json = q.json;
        System.out.printf(Locale.ROOT, "  %-24s %6.2f s in the engine; hashed %d files; missing on the remote %s;"
                + " transferred %s; lookup %s%n", SCENARIOS.get(i), json.path("elapsedSeconds").asDouble(),
            json.path("hashedFiles").asLong(), amount(json.path("missingRemote")), amount(json.path("transferred")),
            lookups(json, q.progress));
        if (!q.own.sameAs(q.counted)) {
          System.out.printf(Locale.ROOT, "  %-24s MinIO counted %s (HEAD/LIST/GET/PUT/DEL%s), quarry reported %s%n", "",
              q.counted.text(), q.counted.others() > 0 ? " + other " + q.counted.other : "",
              q.own.text());
        }
      }
      System.out.println();
      System.out.println("What each side had to check:");
      System.out.printf(Locale.ROOT, "  quarry: one content-addressed prefix s3://.../%s holding %d unrelated blobs"
          + " (1-16 bytes, random names) besides the dataset's; state (hash cache, remote index) in a folder of its"
          + " own, warm from the first push to the 1%% push, empty for the pull.%n", CAS, unrelated);
      System.out.printf(Locale.ROOT, "  rclone: a plain copy under s3://.../%s holding only the dataset (%d, then %d"
              + " objects); no state between runs. Flags: %s.%n", RCLONE, dataset.files, dataset.files + dataset.added,
          String.join(" ", Rclone.FLAGS));
      System.out.println("  full push: quarry hashes every file and finds which blobs the crowded prefix lacks;"
          + " rclone lists its empty prefix and uploads everything (and HEADs each upload, its integrity check).");
      System.out.println("  status: quarry stats every file (hash cache warm) and compares with ref latest; rclone"
          + " check lists its whole prefix and MD5-hashes every local file.");
      System.out.println("  1% push: quarry as status, then uploads; rclone copy lists its prefix, compares size and"
          + " MD5 (--checksum: hashes every local file, no HEAD per object) and uploads.");
      System.out.println("  full pull: quarry reads ref and manifests and GETs every blob, cold (no state); rclone"
          + " lists and GETs every object. Both pulled folders were compared byte for byte with the source.");
      System.out.printf(Locale.ROOT, "  dvc: DVC 3 (%s) on its own copy of the dataset in a DVC project, remote"
              + " s3://.../%s, --jobs %d; status and push rows include the dvc add that must come first (it hashes"
              + " what changed and fills DVC's cache); status is dvc status --cloud; the pull row is dvc pull into an"
              + " empty cache and workspace, compared byte for byte with the source.%n", dvc.version, DVC, Dvc.JOBS);
      System.out.println("  requests: quarry's columns are its own counts (MinIO's agree unless a line above says"
          + " otherwise); rclone's are MinIO's (+N: other requests such as HeadBucket).");
      System.out.println();
      Measure status = quarryRows.get(1);
      long statusRequests = status.own.total();
      System.out.println("Goals (from the issue):");
      goal(String.format(Locale.ROOT, "status after one change in at most 50 requests (%d)", statusRequests),
          statusRequests <= 50);
      goal(String.format(Locale.ROOT, "status after one change in at most 2 s (%.2f s wall, %.2f s in the engine)",
          status.wallSeconds, status.json.path("elapsedSeconds").asDouble()), status.wallSeconds <= 2);
      for (int i = 0; i < SCENARIOS.size(); i++) {
        double q = quarryRows.get(i).wallSeconds;
        double d = dvcRows.get(i).wallSeconds;
        double r = rcloneRows.get(i).wallSeconds;
        goal(String.format(Locale.ROOT, "%s at least %.1fx as fast as DVC (%.2f s vs %.2f s: %.2fx)", SCENARIOS.get(i),
            DVC_GOALS.get(i), q, d, d / q), d / q >= DVC_GOALS.get(i));
        goal(String.format(Locale.ROOT, "%s at least as fast as rclone (%.2f s vs %.2f s)", SCENARIOS.get(i), q, r),
            q <= r);
      }
      if (!problems.isEmpty()) {
        System.out.println();
        System.out.println("PROBLEMS:");
        problems.forEach(problem -> System.out.println("  " + problem));
      }
    }

    private static String counted(Measure measure) {
      return measure.counted.text() + (measure.counted.others() > 0 ? " +" + measure.counted.others() : "");
    }

    private static void goal(String text, boolean met) {
      System.out.printf(Locale.ROOT, "  %-8s %s%n", met ? "met" : "NOT MET", text);
    }

    private static String amount(JsonNode amount) {
      return amount.isMissingNode() ? "-" : amount.path("objects").asLong() + " objects";
    }

    /** How the run found what the remote holds: per key space when it looked up several, else its one strategy. */
    private static String lookups(JsonNode json, String progress) {
      List<String> lookups = new ArrayList<>();
      // push leaves its lookups out of the JSON result; its progress says how it looked up
      Matcher lookedUp = Pattern.compile("looked up by (\\S+)").matcher(progress);
      if (lookedUp.find() && json.path("lookups").isEmpty() && json.path("strategy").isMissingNode()) {
        return lookedUp.group(1) + " (from the progress; not in the JSON result)";
      }
      for (JsonNode lookup : json.path("lookups")) {
        lookups.add(lookup.path("space").asText() + " " + strategy(lookup.path("strategy")));
      }
      if (lookups.isEmpty() && !json.path("strategy").isMissingNode()) {
        lookups.add(strategy(json.path("strategy")));
      }
      return lookups.isEmpty() ? "-" : String.join("; ", lookups);
    }

    private static String strategy(JsonNode strategy) {
      return strategy.path("name").asText() + " (" + strategy.path("reason").asText() + ")";
    }

    private static void progress(String what) {
      System.err.println("bench: " + what);
    }
  }

  /** Requests by kind; {@code other}: requests of any other S3 API by name, such as HeadBucket. */
  private record Requests(long head, long list, long get, long put, long delete, Map<String, Long> other) {
    static Requests of(JsonNode requests) {
      return new Requests(requests.path("head").asLong(), requests.path("list").asLong(), requests.path("get").asLong(),
          requests.path("put").asLong(), requests.path("delete").asLong(), Map.of());
    }

    Requests minus(Requests before) {
      Map<String, Long> others = new TreeMap<>(other);
      before.other.forEach((name, count) -> others.merge(name, -count, Long::sum));
      others.values().removeIf(count -> count == 0);
      return new Requests(head - before.head, list - before.list, get - before.get, put - before.put,
          delete - before.delete, others);
    }

    Requests plus(Requests more) {
      Map<String, Long> others = new TreeMap<>(other);
      more.other.forEach((name, count) -> others.merge(name, count, Long::sum));
      return new Requests(head + more.head, list + more.list, get + more.get, put + more.put, delete + more.delete,
          others);
    }

    String text() {
      return head + "/" + list + "/" + get + "/" + put + "/" + delete;
    }

    long others() {
      return other.values().stream().mapToLong(Long::longValue).sum();
    }

    long total() {
      return head + list + get + put + delete + others();
    }

    boolean sameAs(Requests counted) {
      return text().equals(counted.text()) && counted.others() == 0;
    }
  }

  /** One command: its wall time, its result, what MinIO counted while it ran. */
  private record Measure(String command, double wallSeconds, JsonNode json, Requests own, Requests counted,
      String rcloneLog, String progress) {}

  /** Runs {@code quarry sync} as a user would, through the proxy. */
  private static final class Quarry {
    final Path launcher;
    final Path work;
    final CachedMinio minio;
    final Map<String, String> environment;
    final String remote;
    int runs;

    Quarry(Path launcher, Path work, CachedMinio minio, URI proxy, String bucket) {
      this.launcher = launcher;
      this.work = work;
      this.minio = minio;
      this.environment = Map.of("QUARRY_S3_ENDPOINT", proxy.toString(), "AWS_REGION", CachedMinio.REGION,
          "QUARRY_S3_PATH_STYLE", "true", "AWS_ACCESS_KEY_ID", CachedMinio.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY",
          CachedMinio.SECRET_KEY, "LANG", "C.UTF-8", "LC_ALL", "C.UTF-8");
      this.remote = "s3://" + bucket + "/" + CAS.substring(0, CAS.length() - 1);
    }

    /**
     * Runs push, status and pull once each on a one-file folder under another prefix, untimed, so that the measured
     * runs find the page cache and MinIO warm.
     */
    void warmUp() throws Exception {
      Path folder = work.resolve("warm-up/data");
      Files.createDirectories(folder);
      Files.writeString(folder.resolve("file"), "warm-up");
      String warmRemote = remote.substring(0, remote.length() - CAS.length() + 1)
          + WARM_UP.substring(0, WARM_UP.length() - 1);
      Path state = work.resolve("warm-up/state");
      run(List.of("sync", "push", folder.toString(), "--remote", warmRemote, "--state-dir", state.toString(),
          "--json"));
      run(List.of("sync", "status", folder.toString(), "--remote", warmRemote, "--state-dir", state.toString(),
          "--json"));
      run(List.of("sync", "pull", work.resolve("warm-up/pulled").toString(), "--remote", warmRemote, "--state-dir",
          work.resolve("warm-up/pull-state").toString(), "--json"));
    }

    Measure sync(String command, Path folder, Path state) throws Exception {
      return run(List.of("sync", command, folder.toString(), "--remote", remote, "--state-dir", state.toString(),
          "--json"));
    }

    private Measure run(List<String> quarryArgs) throws Exception {
      // The launcher, as users run it: it chooses the JVM options (startup cache, exit wait) for sync commands.
      List<String> args = new ArrayList<>();
      args.add(launcher.toString());
      args.addAll(quarryArgs);
      int run = runs++;
      Path out = work.resolve("quarry-" + run + ".json");
      Path err = work.resolve("quarry-" + run + ".err");
      ProcessBuilder builder = new ProcessBuilder(args).redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().remove("AWS_CA_BUNDLE");
      builder.environment().putAll(environment);
      String shown = reproducible(environment, args);
      Timed timed = timed(minio, builder, shown);
      int exit = timed.exit();
      double wall = timed.wall();
      Requests counted = timed.counted();
      if (exit != 0) {
        throw new IllegalStateException("quarry failed with exit code " + exit + ": " + shown + "\n"
            + lastLines(Files.readString(err), 30));
      }
      JsonNode json = JSON.readTree(Files.readString(out, StandardCharsets.UTF_8));
      return new Measure(shown, wall, json, Requests.of(json.path("requests")), counted, "", Files.readString(err));
    }
  }

  /** Runs rclone through the proxy, configured only by environment variables. */
  private static final class Rclone {
    static final List<String> FLAGS = List.of("--transfers", "64", "--checkers", "64", "--checksum", "-v");
    final Path work;
    final CachedMinio minio;
    final Map<String, String> environment;
    final String bucket;
    int runs;

    Rclone(Path work, CachedMinio minio, URI proxy, String bucket) {
      this.work = work;
      this.minio = minio;
      this.bucket = bucket;
      this.environment = Map.of("RCLONE_CONFIG_BENCH_TYPE", "s3", "RCLONE_CONFIG_BENCH_PROVIDER", "Minio",
          "RCLONE_CONFIG_BENCH_ENDPOINT", proxy.toString(), "RCLONE_CONFIG_BENCH_ACCESS_KEY_ID", CachedMinio.ACCESS_KEY,
          "RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY", CachedMinio.SECRET_KEY, "RCLONE_CONFIG_BENCH_REGION",
          CachedMinio.REGION, "RCLONE_CONFIG", work.resolve("no-rclone.conf").toString());
    }

    String remote() {
      return "bench:" + bucket + "/" + RCLONE.substring(0, RCLONE.length() - 1);
    }

    Measure run(String command, String from, String to) throws Exception {
      List<String> args = new ArrayList<>(List.of("rclone", command, from, to));
      // check compares size and MD5 on its own; --checksum applies to copy
      args.addAll(command.equals("check") ? List.of("--checkers", "64", "-v") : FLAGS);
      Path log = work.resolve("rclone-" + runs++ + ".log");
      ProcessBuilder builder = new ProcessBuilder(args).redirectErrorStream(true).redirectOutput(log.toFile());
      // This machine's AWS_CA_BUNDLE makes rclone's S3 client fail on plain http.
      builder.environment().remove("AWS_CA_BUNDLE");
      builder.environment().putAll(environment);
      String shown = reproducible(environment, args);
      Timed timed = timed(minio, builder, shown);
      int exit = timed.exit();
      double wall = timed.wall();
      Requests counted = timed.counted();
      String output = Files.readString(log);
      // check exits 1 when it found differences, which is what the status scenario expects
      if (exit != 0 && !(command.equals("check") && exit == 1)) {
        throw new IllegalStateException("rclone failed with exit code " + exit + ": " + shown + "\n"
            + lastLines(output, 30));
      }
      return new Measure(shown, wall, JSON.createObjectNode(), counted, counted, output, "");
    }
  }

  /**
   * Runs DVC 3 (the venv e2e/tools/install-dvc-env.sh makes) through the proxy, in a DVC project of its own whose
   * data folder mirrors the dataset; configured by its project config and environment variables.
   */
  private static final class Dvc {
    static final int JOBS = 64;
    final Path command;
    final Path project;
    final Path data;
    final CachedMinio minio;
    final Map<String, String> environment;
    final String version;
    final Map<String, String> mirrored = new HashMap<>();
    int runs;

    Dvc(Path command, Path work, CachedMinio minio, URI proxy, String bucket) throws Exception {
      this.command = command;
      this.project = Files.createDirectories(work.resolve("dvc-project"));
      this.data = project.resolve("data");
      this.minio = minio;
      this.environment = Map.of("AWS_ACCESS_KEY_ID", CachedMinio.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY",
          CachedMinio.SECRET_KEY, "AWS_DEFAULT_REGION", CachedMinio.REGION, "DVC_NO_ANALYTICS", "1",
          "AWS_CONFIG_FILE", work.resolve("no-aws-config").toString(), "AWS_SHARED_CREDENTIALS_FILE",
          work.resolve("no-aws-credentials").toString());
      untimed("init", "--no-scm", "-q");
      untimed("remote", "add", "-d", "bench", "s3://" + bucket + "/" + DVC.substring(0, DVC.length() - 1));
      untimed("remote", "modify", "bench", "endpointurl", proxy.toString());
      // DVC keeps an index of what each remote URL holds in its site cache: one of its own per run, so that no run
      // trusts what an earlier one pushed under the same URL.
      untimed("config", "core.site_cache_dir", work.resolve("dvc-site-cache").toString());
      this.version = untimed("--version").trim();
    }

    /**
     * Brings DVC's copy up to date with the source, untimed: the source files new or changed (size, mtime) since the
     * last mirror. DVC's own copies are never compared: dvc add rewrites them (its checkout), which is DVC's work.
     */
    void mirror(Path source) throws IOException {
      try (Stream<Path> walk = Files.walk(source)) {
        for (Path file : walk.filter(Files::isRegularFile).toList()) {
          String relative = source.relativize(file).toString();
          String seen = Files.size(file) + "@" + Files.getLastModifiedTime(file).toMillis();
          if (!seen.equals(mirrored.put(relative, seen))) {
            Path copy = data.resolve(relative);
            Files.createDirectories(copy.getParent());
            Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
    }

    /** {@code dvc add data}, then the command: one row, their times and requests added up. */
    Measure addThen(String... args) throws Exception {
      Measure add = run(List.of("add", "-q", "data"));
      List<String> then = new ArrayList<>(List.of(args));
      if (args[0].equals("push") || args[0].equals("status")) {
        then.addAll(List.of("--jobs", String.valueOf(JOBS)));
      }
      Measure next = run(then);
      return new Measure(add.command + " && " + next.command, add.wallSeconds + next.wallSeconds,
          JSON.createObjectNode(), add.counted.plus(next.counted), add.counted.plus(next.counted),
          add.rcloneLog + next.rcloneLog, "");
    }

    /** {@code dvc pull} into an empty cache and an empty data folder (both removed untimed first). */
    Measure pullCold() throws Exception {
      for (Path folder : List.of(project.resolve(".dvc/cache"), data)) {
        if (Files.exists(folder)) {
          try (Stream<Path> walk = Files.walk(folder)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
              Files.delete(path);
            }
          }
        }
      }
      return run(List.of("pull", "--jobs", String.valueOf(JOBS)));
    }

    private String untimed(String... args) throws Exception {
      return run(List.of(args)).rcloneLog;
    }

    private Measure run(List<String> dvcArgs) throws Exception {
      List<String> args = new ArrayList<>(List.of(command.toString()));
      args.addAll(dvcArgs);
      Path log = project.getParent().resolve("dvc-" + runs++ + ".log");
      ProcessBuilder builder = new ProcessBuilder(args).directory(project.toFile()).redirectErrorStream(true)
          .redirectOutput(log.toFile());
      builder.environment().remove("AWS_CA_BUNDLE");
      builder.environment().putAll(environment);
      String shown = reproducible(environment, args);
      Timed timed = timed(minio, builder, shown);
      String output = Files.readString(log);
      if (timed.exit() != 0) {
        throw new IllegalStateException("dvc failed with exit code " + timed.exit() + ": " + shown + "\n"
            + lastLines(output, 30));
      }
      return new Measure(shown, timed.wall(), JSON.createObjectNode(), timed.counted(), timed.counted(), output,
          "");
    }
  }

  /** A process's exit code, wall time, and the requests MinIO counted while it ran. */
  private record Timed(int exit, double wall, Requests counted) {}

  private static Timed timed(CachedMinio minio, ProcessBuilder builder, String shown) throws Exception {
    Requests before = minio.requests();
    long start = System.nanoTime();
    int exit = waitFor(builder.start(), shown);
    double wall = (System.nanoTime() - start) / 1e9;
    return new Timed(exit, wall, minio.requests().minus(before));
  }

  private static int waitFor(Process process, String command) throws InterruptedException {
    if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      throw new IllegalStateException("Timed out after " + COMMAND_TIMEOUT + ": " + command);
    }
    return process.exitValue();
  }

  private static String reproducible(Map<String, String> environment, List<String> args) {
    StringBuilder text = new StringBuilder();
    new TreeMap<>(environment).forEach((k, v) -> text.append(k).append('=').append(v).append(' '));
    return text.append(String.join(" ", args)).toString();
  }

  private static String lastLines(String text, int count) {
    List<String> lines = text.lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
  }

  /**
   * The generated dataset: {@code files} files of 9 to 11 KiB of seeded random bytes, 1000 per folder. Knows in
   * advance every content it will ever hold (the one change, the 1% added), so a run can record every key it may write
   * before writing any.
   */
  private static final class Dataset {
    final Path root;
    final int files;
    final int folders;
    final int added;
    long bytes;

    Dataset(Path root, int files) {
      this.root = root;
      this.files = files;
      this.folders = (files + FILES_PER_FOLDER - 1) / FILES_PER_FOLDER;
      this.added = files / 100;
    }

    Path path(int index) {
      if (index < files) {
        return root.resolve(String.format(Locale.ROOT, "d%03d/f%04d.bin", index / FILES_PER_FOLDER,
            index % FILES_PER_FOLDER));
      }
      int extra = index - files; // spread over every folder: each folder's manifest changes
      return root.resolve(String.format(Locale.ROOT, "d%03d/new-%04d.bin", extra % folders, extra / folders));
    }

    static byte[] content(int index) {
      SplittableRandom random = new SplittableRandom(0x5eed_2026L * 1_000_003L + index);
      byte[] data = new byte[9 * 1024 + random.nextInt(2 * 1024 + 1)];
      random.nextBytes(data);
      return data;
    }

    int changedIndex() {
      return files / 2;
    }

    byte[] changedContent() {
      byte[] data = content(changedIndex());
      for (int i = 0; i < 16; i++) {
        data[data.length / 2 + i] ^= (byte) 0xA5; // same size: rclone must compare checksums, not sizes
      }
      return data;
    }

    Set<String> blobKeys(String cas) {
      Set<String> keys = new LinkedHashSet<>();
      for (int i = 0; i < files + added; i++) {
        keys.add(blobKey(cas, content(i)));
      }
      keys.add(blobKey(cas, changedContent()));
      return keys;
    }

    private static String blobKey(String cas, byte[] data) {
      String hex = Digest.of(data).hex();
      return cas + "blobs/" + hex.substring(0, 2) + "/" + hex;
    }

    void write() throws IOException {
      for (int i = 0; i < files; i++) {
        bytes += writeFile(i, content(i));
      }
    }

    private long writeFile(int index, byte[] data) throws IOException {
      Path path = path(index);
      Files.createDirectories(path.getParent());
      Files.write(path, data);
      return data.length;
    }

    /** Rewrites 16 bytes in the middle of one file; returns its path. */
    String changeOneFile() throws IOException {
      Files.write(path(changedIndex()), changedContent());
      return root.relativize(path(changedIndex())).toString();
    }

    int addOnePercent() throws IOException {
      for (int i = files; i < files + added; i++) {
        writeFile(i, content(i));
      }
      return added;
    }

    /** The first difference between two folders' files (paths and bytes), or null when they are equal. */
    static String difference(Path expected, Path actual) throws IOException {
      List<Path> want = relativeFiles(expected);
      List<Path> got = relativeFiles(actual);
      if (!want.equals(got)) {
        Set<Path> missing = new LinkedHashSet<>(want);
        got.forEach(missing::remove);
        Set<Path> extra = new LinkedHashSet<>(got);
        want.forEach(extra::remove);
        return want.size() + " files expected, " + got.size() + " found; missing " + first(missing) + ", extra "
            + first(extra);
      }
      for (Path path : want) {
        if (Files.mismatch(expected.resolve(path), actual.resolve(path)) != -1) {
          return "contents differ: " + path;
        }
      }
      return null;
    }

    private static String first(Set<Path> paths) {
      return paths.stream().limit(5).map(Path::toString).toList() + (paths.size() > 5 ? " and more" : "");
    }

    private static List<Path> relativeFiles(Path dir) throws IOException {
      if (!Files.isDirectory(dir)) {
        return List.of();
      }
      try (Stream<Path> paths = Files.walk(dir)) {
        return paths.filter(Files::isRegularFile).map(dir::relativize).sorted().toList();
      }
    }
  }

  /**
   * A MinIO server on a data folder kept between runs, with fixed credentials (it only listens on loopback), its
   * data scanner off so that it does not compete with the measured commands, and its metrics readable without a
   * token. One bucket per number of unrelated objects, filled once: a marker file says a bucket is complete. A journal
   * beside the data folder lists the keys a run may write, so that the next run can delete them if this one died.
   */
  private static final class CachedMinio implements AutoCloseable {
    static final String REGION = "us-east-1";
    static final String ACCESS_KEY = "quarry-bench";
    static final String SECRET_KEY = "quarry-bench-secret";
    static final int FILL_IN_FLIGHT = 128;
    static final int FILL_CHUNK = 20_000;
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final Pattern REQUESTS = Pattern.compile(
        "^minio_api_requests_total\\{[^}]*name=\"([A-Za-z0-9]+)\"[^}]*type=\"s3\"[^}]*}\\s+(\\S+)", Pattern.MULTILINE);

    final Path dir;
    final ServerProcess process;
    final int port;
    final S3Client s3;
    final ObjectStores stores;

    private CachedMinio(Path dir, ServerProcess process, int port) {
      this.dir = dir;
      this.process = process;
      this.port = port;
      this.s3 = S3Client.builder().endpointOverride(endpoint()).region(Region.of(REGION)).forcePathStyle(true)
          .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
          .build();
      this.stores = new ObjectStores(S3Settings.defaults().withEndpoint(endpoint()).withPathStyle(true)
          .withRegion(REGION).withCredentials(ACCESS_KEY, SECRET_KEY).withRequestsInFlight(FILL_IN_FLIGHT));
    }

    static CachedMinio start(Path dir, Path work) throws IOException, InterruptedException {
      Files.createDirectories(dir.resolve("data"));
      int port = TestTools.freeLoopbackPort();
      ServerProcess process = ServerProcess.start("minio", List.of(TestTools.binary("minio").toString(), "server",
              "--address", "127.0.0.1:" + port, "--console-address", "127.0.0.1:" + TestTools.freeLoopbackPort(),
              "--quiet", dir.resolve("data").toString()),
          Map.of("MINIO_ROOT_USER", ACCESS_KEY, "MINIO_ROOT_PASSWORD", SECRET_KEY, "MINIO_BROWSER", "off",
              "MINIO_UPDATE", "off", "MINIO_PROMETHEUS_AUTH_TYPE", "public", "_MINIO_SCANNER", "off"),
          work.resolve("minio.log"), URI.create("http://127.0.0.1:" + port + "/minio/health/live"),
          Duration.ofSeconds(120));
      return new CachedMinio(dir, process, port);
    }

    URI endpoint() {
      return URI.create("http://127.0.0.1:" + port);
    }

    /** The bucket holding {@code unrelated} blobs under {@link #CAS}, filled if needed, without a past run's keys. */
    String prepare(int unrelated) throws Exception {
      String bucket = "sync-bench-" + unrelated;
      if (s3.listBuckets().buckets().stream().noneMatch(b -> b.name().equals(bucket))) {
        s3.createBucket(b -> b.bucket(bucket));
      }
      clean(bucket);
      Path filled = dir.resolve(bucket + ".filled");
      if (!Files.exists(filled)) {
        fill(bucket, unrelated);
        Files.writeString(filled, unrelated + "\n");
      }
      return bucket;
    }

    /** PUTs the unrelated blobs straight to MinIO, many in flight: random names, 1 to 16 random bytes each. */
    private void fill(String bucket, int unrelated) throws Exception {
      System.err.printf(Locale.ROOT, "bench: filling s3://%s/%s with %d unrelated blobs (kept in %s for later"
          + " runs)%n", bucket, CAS, unrelated, dir);
      ObjectStore store = stores.locate("s3://" + bucket + "/").store();
      SplittableRandom random = new SplittableRandom(0xB10B5L);
      long start = System.nanoTime();
      for (int done = 0; done < unrelated; done += FILL_CHUNK) {
        List<Map.Entry<String, byte[]>> chunk = new ArrayList<>();
        for (int i = done; i < Math.min(unrelated, done + FILL_CHUNK); i++) {
          String hex = String.format(Locale.ROOT, "%016x%016x%016x%016x", random.nextLong(), random.nextLong(),
              random.nextLong(), random.nextLong());
          byte[] body = new byte[1 + random.nextInt(16)];
          random.nextBytes(body);
          chunk.add(Map.entry(CAS + "blobs/" + hex.substring(0, 2) + "/" + hex, body));
        }
        InFlight.all(chunk, FILL_IN_FLIGHT, entry -> store.put(entry.getKey(), entry.getValue()));
        int total = Math.min(unrelated, done + FILL_CHUNK);
        System.err.printf(Locale.ROOT, "bench: filled %d of %d, %.0f per second%n", total, unrelated,
            total / ((System.nanoTime() - start) / 1e9));
      }
    }

    private Path journal(String bucket) {
      return dir.resolve(bucket + ".written");
    }

    /** Records the keys a run may write beyond the prefixes {@link #clean} empties, before it writes any. */
    void journal(String bucket, Set<String> keys) throws IOException {
      Files.write(journal(bucket), keys);
    }

    /** Deletes what runs write: every key of the journal, and everything outside {@code cas/blobs/}. */
    void clean(String bucket) throws IOException {
      List<String> keys = new ArrayList<>();
      if (Files.exists(journal(bucket))) {
        keys.addAll(Files.readAllLines(journal(bucket)));
      }
      ObjectStore store = stores.locate("s3://" + bucket + "/").store();
      for (String prefix : List.of(CAS + "trees/", CAS + "refs/", CAS + "leases/", CAS + "gc/", RCLONE, DVC,
          WARM_UP)) {
        store.listAll(prefix).map(ObjectInfo::key).forEach(keys::add);
      }
      // Anything else a later version writes beside blobs/ (keys after "cas/blobs/..." sort after "cas/blobs0").
      String after = CAS + "blobs0";
      while (after != null) {
        ListPage page = store.list(CAS, after, 1000);
        page.objects().stream().map(ObjectInfo::key).forEach(keys::add);
        after = page.nextStartAfter();
      }
      for (int i = 0; i < keys.size(); i += 1000) {
        List<ObjectIdentifier> batch = keys.subList(i, Math.min(keys.size(), i + 1000)).stream()
            .map(key -> ObjectIdentifier.builder().key(key).build()).toList();
        s3.deleteObjects(d -> d.bucket(bucket).delete(x -> x.objects(batch).quiet(true)));
      }
      Files.deleteIfExists(journal(bucket));
    }

    /** S3 requests MinIO has served since it started, by kind, from its (uncached) v3 API metrics. */
    Requests requests() throws IOException, InterruptedException {
      HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(endpoint().resolve(
          "/minio/metrics/v3/api/requests")).build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IOException("Cannot read MinIO's request metrics: HTTP " + response.statusCode());
      }
      long head = 0;
      long list = 0;
      long get = 0;
      long put = 0;
      long delete = 0;
      Map<String, Long> other = new TreeMap<>();
      Matcher line = REQUESTS.matcher(response.body());
      while (line.find()) {
        long count = Math.round(Double.parseDouble(line.group(2)));
        switch (line.group(1)) {
          case "HeadObject" -> head += count;
          case "ListObjectsV2", "ListObjectsV1", "ListObjectVersions" -> list += count;
          case "GetObject" -> get += count;
          case "PutObject", "CopyObject", "NewMultipartUpload", "PutObjectPart", "CompleteMultipartUpload" ->
              put += count;
          case "DeleteObject", "DeleteMultipleObjects", "AbortMultipartUpload" -> delete += count;
          default -> other.merge(line.group(1), count, Long::sum);
        }
      }
      return new Requests(head, list, get, put, delete, other);
    }

    @Override
    public void close() throws IOException {
      try (ObjectStores s = stores; S3Client c = s3) {
        process.close();
      }
    }
  }
}
