package dev.quarry.core.sync.push;

import dev.quarry.core.sync.Amount;
import java.io.IOException;
import java.util.List;

/** Some objects could not be uploaded; everything else is on the remote and the next push resumes from there. */
public final class PushFailedException extends IOException {
  private final int failures;
  private final List<String> samples;
  private final Amount uploaded;

  PushFailedException(int failures, List<String> samples, Amount uploaded) {
    super("Cannot push: " + failures + " objects failed after retries, so the ref was not moved (first: "
        + (samples.isEmpty() ? "?" : samples.get(0)) + "); " + uploaded.objects() + " objects were uploaded and"
        + " push again resumes from there");
    this.failures = failures;
    this.samples = List.copyOf(samples);
    this.uploaded = uploaded;
  }

  public int failures() {
    return failures;
  }

  public List<String> samples() {
    return samples;
  }

  public Amount uploaded() {
    return uploaded;
  }
}
