package dev.quarry.cli.output;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The process's standard output as bytes, for a command whose result is data (a file's bytes): unlike
 * {@link System#out}, a PrintStream that swallows write errors, every failed write is a {@link WriteFailed}, so a
 * reader that went away (| head) stops the command at once and a full disk is reported. Never closed: the
 * descriptor is the process's.
 */
public final class StandardOutput extends OutputStream {
  /** The exit code of a command whose reader went away: what a shell reports for a writer stopped by SIGPIPE. */
  public static final int BROKEN_PIPE = 128 + 13;

  /** A write to standard output failed; {@link #brokenPipe()} when its reader went away. */
  public static final class WriteFailed extends IOException {
    private final boolean brokenPipe;

    WriteFailed(IOException cause) {
      super("Cannot write to standard output: " + cause.getMessage(), cause);
      this.brokenPipe = "Broken pipe".equals(cause.getMessage());
    }

    public boolean brokenPipe() {
      return brokenPipe;
    }
  }

  private final OutputStream out = new FileOutputStream(FileDescriptor.out);

  @Override
  public void write(int b) throws IOException {
    try {
      out.write(b);
    } catch (IOException e) {
      throw new WriteFailed(e);
    }
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    try {
      out.write(bytes, offset, length);
    } catch (IOException e) {
      throw new WriteFailed(e);
    }
  }
}
