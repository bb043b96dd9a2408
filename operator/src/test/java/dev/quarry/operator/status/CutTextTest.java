package dev.quarry.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.operator.jobs.WorkerJson;
import org.junit.jupiter.api.Test;

class CutTextTest {
  /** A character outside the Basic Multilingual Plane: two UTF-16 chars, which a cut must never separate. */
  private static final String EMOJI = "\uD83D\uDE00";

  @Test
  void aShortTextIsKeptWhole() {
    assertThat(CutText.toLength("short", 10, "...")).isEqualTo("short");
    assertThat(CutText.toLength("exactly10!", 10, "...")).isEqualTo("exactly10!");
  }

  @Test
  void aLongTextEndsWithTheMarkerWithinTheLength() {
    assertThat(CutText.toLength("abcdefghijkl", 10, "...")).isEqualTo("abcdefg...");
  }

  @Test
  void aCutNeverSplitsASurrogatePair() {
    // "abcdef" + emoji: a cut at 7 chars falls between the emoji's two halves.
    String cut = CutText.toLength("abcdef" + EMOJI + "xyz", 10, "...");
    assertThat(cut).isEqualTo("abcdef...");
    assertThat(hasLoneSurrogate(cut)).isFalse();
  }

  @Test
  void workerMessagesAndEventsAreCutOnCharacterBoundaries() {
    String worker = "x".repeat(WorkerJson.MESSAGE_LIMIT - "... (cut)".length() - 1) + EMOJI.repeat(40);
    assertThat(hasLoneSurrogate(WorkerJson.bounded(worker))).isFalse();
    assertThat(WorkerJson.bounded(worker).length()).isLessThanOrEqualTo(WorkerJson.MESSAGE_LIMIT);
    String event = "y".repeat(EventRecorder.MAX_MESSAGE - 4) + EMOJI.repeat(40);
    assertThat(hasLoneSurrogate(EventRecorder.boundedMessage(event))).isFalse();
    assertThat(EventRecorder.boundedMessage(event).length()).isLessThanOrEqualTo(EventRecorder.MAX_MESSAGE);
  }

  private static boolean hasLoneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
          return true;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return true;
      }
    }
    return false;
  }
}
