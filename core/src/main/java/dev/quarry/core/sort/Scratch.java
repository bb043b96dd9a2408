package dev.quarry.core.sort;

import java.util.UUID;

/**
 * The names of every object a shard sort keeps under its scratch prefix. Each phase index writes only under its own
 * names and writes its done marker last, so a rerun of an index can tell finished work from leftovers.
 */
public final class Scratch {
  private final String prefix;

  /** {@code prefix} ends with '/', or is empty. */
  public Scratch(String prefix) {
    this.prefix = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
  }

  public String prefix() {
    return prefix;
  }

  /** Written before anything else: marks the prefix as a sort's scratch, for the sort's own job. */
  public String marker() {
    return prefix + MARKER;
  }

  /** The marker's name under the prefix. */
  public static final String MARKER = ".quarry-scratch.json";

  /**
   * The names, relative to the prefix, of every object the phases write (the marker aside): what clean may delete,
   * and nothing else.
   */
  static final java.util.regex.Pattern WRITTEN = java.util.regex.Pattern.compile(String.join("|",
      "inputs\\.json",
      "inputs/[0-9]{6,}\\.json",
      "extract/[0-9]{5,}/run-[0-9a-f-]{36}-([0-9]{5,}-)?[0-9]{6,}\\.run",
      "extract/[0-9]{5,}/done\\.json",
      "sample/splitters-[0-9]{5,}\\.json",
      "sample/splitters-[0-9]{5,}\\.claim-[1-9][0-9]*\\.json",
      "packs/[0-9]{8,}\\.tar",
      "packs/extract-[0-9]{5,}-[0-9a-f-]{36}\\.pack",
      "partition/[0-9]{5,}/sort/run-[0-9a-f-]{36}-[0-9]{6,}\\.run",
      "partition/[0-9]{5,}/ordered-[0-9a-f-]{36}\\.run",
      // A content or none step's list per partition as the previous release named it: a newer clean must still
      // delete what a job of that release left, before the marker that lets it clean at all.
      "partition/[0-9]{5,}/ordered-[0-9a-f-]{36}-[0-9]{5,}\\.run",
      "partition/[0-9]{5,}/from-[0-9]{5,}-[0-9a-f-]{36}\\.run",
      "partition/[0-9]{5,}/last-[0-9a-f-]{36}\\.run",
      "partition/[0-9]{5,}/done\\.json",
      "plan/plan\\.json",
      "plan/shards-[0-9]{5,}-[0-9]{6,}\\.json",
      "plan/segments-[0-9]{5,}\\.json",
      "create/[0-9]{8,}\\.json",
      "create/pieces/[0-9]{8,}/[0-9]{5,}\\.(tar|run)",
      "results/(extract|partition|plan|create|commit)-[0-9]{5,}\\.json"));

  /**
   * The summary of the input shard list the extract workers agreed on (its pages, {@link #inputsPage}, are written
   * before it): written by extract index 0.
   */
  public String inputs() {
    return prefix + "inputs.json";
  }

  /** Page {@code page} of the input shard list ({@code StoredInputs}). */
  public String inputsPage(int page) {
    return String.format("%sinputs/%06d.json", prefix, page);
  }

  /**
   * The splitters of {@code partitions} partitions, drawn from the key sample by extract index 0 and used by every
   * index ({@code SharedSplitters}).
   */
  public String splitters(int partitions) {
    return String.format("%ssample/splitters-%05d.json", prefix, partitions);
  }

  /**
   * The claim of round {@code round} (from 1) of drawing the splitters of {@code partitions} partitions, written if
   * absent by the extract index that draws them when index 0's do not come ({@code SharedSplitters}).
   */
  public String splittersClaim(int partitions, int round) {
    return String.format("%s%d.json", splittersClaims(partitions), round);
  }

  /** What the names of the claims {@link #splittersClaim} of {@code partitions} partitions start with. */
  public String splittersClaims(int partitions) {
    return String.format("%ssample/splitters-%05d.claim-", prefix, partitions);
  }

  /** Whether {@code name} is one of the ordered lists {@link #partitionOrdered} names for partition {@code index}. */
  public boolean isPartitionOrdered(int index, String name) {
    return isUnder(name, String.format("partition/%05d/ordered-", index) + "[0-9a-f-]{36}\\.run");
  }

  /** Whether {@code name} is one of the packs {@link #partitionPack} names for extract worker {@code index}. */
  public boolean isPartitionPack(int index, String name) {
    return isUnder(name, String.format("packs/extract-%05d-", index) + "[0-9a-f-]{36}\\.pack");
  }

  private boolean isUnder(String name, String relative) {
    return name != null && name.startsWith(prefix)
        && java.util.regex.Pattern.matches(relative, name.substring(prefix.length()));
  }

  /**
   * Run {@code number} of partition {@code partition} (of {@code partitions}; the partition is in the name when there
   * is more than one) written by one attempt of extract worker {@code index}: a partition's runs are numbered from 0
   * on their own, so its done marker, which counts them, names them. Named for the attempt, so that two attempts of
   * an index running at once (a retried pod and its predecessor) never delete or overwrite the runs the other's done
   * marker names. A killed attempt's runs stay until the job's scratch goes, and no marker names them.
   */
  public String extractRun(int index, UUID attempt, int partition, int partitions, int number) {
    return String.format("%sextract/%05d/run-%s-%s%06d.run", prefix, index, attempt,
        partitions > 1 ? String.format("%05d-", partition) : "", number);
  }

  /** Written last by extract worker {@code index}: its counts, and how many runs of each partition it wrote. */
  public String extractDone(int index) {
    return String.format("%sextract/%05d/done.json", prefix, index);
  }

  /** The raw tar bytes of input shard {@code shard} when it is not a plain tar (decompressed or re-encoded). */
  public String pack(int shard) {
    return String.format("%spacks/%08d.tar", prefix, shard);
  }

  /**
   * The records' bytes of one attempt of extract worker {@code index}, partition after partition, when records spread
   * over partitions: named for the attempt, as its runs are.
   */
  public String partitionPack(int index, UUID attempt) {
    return String.format("%spacks/extract-%05d-%s.pack", prefix, index, attempt);
  }

  /**
   * Spill runs of one attempt of partition {@code partition}'s external sort (two attempts may run at once, as
   * above).
   */
  public String partitionSortPrefix(int partition, UUID attempt) {
    return String.format("%spartition/%05d/sort/run-%s-", prefix, partition, attempt);
  }

  /**
   * Every kept record entry of partition {@code partition}, in the job's order: one run per attempt, named for it and
   * never overwritten, so that a create worker reads the very list the plan was made from while a step of the
   * partition runs again (over another extract attempt, whose list differs). Its done marker and the plan name it.
   */
  public String partitionOrdered(int partition, UUID attempt) {
    return String.format("%spartition/%05d/ordered-%s.run", prefix, partition, attempt);
  }

  /**
   * The kept records of partition {@code partition} that the content or none step of key-hash range {@code step},
   * whose {@link #partitionOrdered} is {@code ordered}, wrote, in the job's order: written only when it holds some,
   * and kept under the partition it is of, so that the create worker of the partition finds the non-empty ones with
   * one listing ({@link #partitionListsOf}) instead of opening one per step.
   */
  public String partitionListOf(int partition, int step, String ordered) {
    return String.format("%spartition/%05d/from-%05d-%s.run", prefix, partition, step, attemptOf(ordered));
  }

  /** What the names of every step's {@link #partitionListOf} partition {@code partition} start with. */
  public String partitionListsOf(int partition) {
    return String.format("%spartition/%05d/from-", prefix, partition);
  }

  /**
   * The last kept entry of each partition a content or none step, whose {@link #partitionOrdered} is {@code
   * ordered}, wrote a list of, in partition order: one small run per step the plan merges, instead of P entries in
   * every step's done marker.
   */
  public String partitionLastOf(String ordered) {
    return ordered.substring(0, ordered.lastIndexOf("/ordered-")) + "/last-" + attemptOf(ordered) + ".run";
  }

  /** The attempt an ordered list's name ends with ({@link #partitionOrdered}). */
  private static String attemptOf(String ordered) {
    return ordered.substring(ordered.length() - ".run".length() - 36, ordered.length() - ".run".length());
  }

  /** Written last by the step of partition {@code partition}: its counts. */
  public String partitionDone(int partition) {
    return String.format("%spartition/%05d/done.json", prefix, partition);
  }

  /** Written last by the plan phase: the output shards, their names and sizes. */
  public String planDone() {
    return prefix + "plan/plan.json";
  }

  /** Page {@code page} of the output shards whose first record is in partition {@code partition} (PlanShards). */
  public String planShards(int partition, int page) {
    return String.format("%splan/shards-%05d-%06d.json", prefix, partition, page);
  }

  /**
   * Where partition {@code partition} lies in each extract worker's pack (PackSegments): written by the plan, from
   * the packs' segment tables it checks, for the partition's create workers.
   */
  public String planSegments(int partition) {
    return String.format("%splan/segments-%05d.json", prefix, partition);
  }

  /**
   * What of output shard {@code shard} partition {@code partition} holds, raw, when the shard goes on across
   * partitions: the create worker of each partition writes its piece, the last to write joins them (CreatePhase).
   */
  public String createPiece(long shard, int partition) {
    return String.format("%s%05d.tar", createPieces(shard), partition);
  }

  /** The entries of {@link #createPiece}'s records, written after it: the piece is whole once they are there. */
  public String createPieceEntries(long shard, int partition) {
    return String.format("%s%05d.run", createPieces(shard), partition);
  }

  /** What the pieces of output shard {@code shard} start with. */
  public String createPieces(long shard) {
    return String.format("%screate/pieces/%08d/", prefix, shard);
  }

  /** Written when output shard {@code shard} is committed: its size, records and checksum. */
  public String created(long shard) {
    return String.format("%screate/%08d.json", prefix, shard);
  }

  /** The JSON result of one phase index, for the operator's progress reporting; written when the index succeeded. */
  public String result(String phase, int index) {
    return resultPrefix(phase) + String.format("%05d.json", index);
  }

  /** What every result of {@code phase} starts with. */
  public String resultPrefix(String phase) {
    return String.format("%sresults/%s-", prefix, phase);
  }
}
