package dev.quarry.cli;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The S3 endpoint of the startup training: a loopback HTTP server where every object is missing (404 NoSuchKey to
 * every request), which is what an S3 remote nothing was pushed to answers a status. The training's status against it
 * puts the S3 client, its signing, its HTTP client and its error handling in the startup cache, which S3 commands
 * would otherwise load and link at every start; no server is needed where the jar or the image is built.
 */
final class MissingObjectsEndpoint implements AutoCloseable {
  private static final byte[] NO_SUCH_KEY = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NoSuchKey</Code>"
      + "<Message>The specified key does not exist.</Message></Error>").getBytes(StandardCharsets.UTF_8);

  private final ServerSocket socket;
  private final Thread acceptor;

  private MissingObjectsEndpoint(ServerSocket socket) {
    this.socket = socket;
    this.acceptor = Thread.ofVirtual().name("training-s3").start(this::accept);
  }

  static MissingObjectsEndpoint start() throws IOException {
    return new MissingObjectsEndpoint(new ServerSocket(0, 16, InetAddress.getLoopbackAddress()));
  }

  URI url() {
    return URI.create("http://" + socket.getInetAddress().getHostAddress() + ":" + socket.getLocalPort());
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket connection = socket.accept();
        Thread.ofVirtual().start(() -> serve(connection));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  /** Answers each request of a kept-alive connection until the client closes it. */
  private static void serve(Socket connection) {
    try (connection; InputStream in = new BufferedInputStream(connection.getInputStream());
        OutputStream out = connection.getOutputStream()) {
      for (String request = line(in); request != null && !request.isEmpty(); request = line(in)) {
        long length = 0;
        for (String header = line(in); header != null && !header.isEmpty(); header = line(in)) {
          if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
            length = Long.parseLong(header.substring("content-length:".length()).trim());
          }
        }
        in.skipNBytes(length);
        out.write(("HTTP/1.1 404 Not Found\r\nContent-Type: application/xml\r\nContent-Length: " + NO_SUCH_KEY.length
            + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        if (!request.startsWith("HEAD ")) {
          out.write(NO_SUCH_KEY);
        }
        out.flush();
      }
    } catch (IOException e) {
      // the client went away: nothing to answer
    }
  }

  /** A line without its CRLF; null at the end of the stream. */
  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        return line.size() == 0 ? null : line.toString(StandardCharsets.US_ASCII);
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  @Override
  public void close() throws IOException {
    socket.close();
    try {
      acceptor.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
