package dev.quarry.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed certificate for 127.0.0.1, made by the JDK's own keytool (no openssl needed), written as a server
 * reads it ({@code certs/public.crt} and {@code certs/private.key}, PEM) and as a JVM trusts it ({@code trust.p12}).
 */
final class SelfSignedCertificate {
  static final String CERTS = "certs";
  static final String TRUST_STORE = "trust.p12";
  private static final char[] PASSWORD = "changeit".toCharArray();

  private final KeyStore trust;

  private SelfSignedCertificate(KeyStore trust) {
    this.trust = trust;
  }

  /** Makes the certificate and its files in {@code folder}. */
  static SelfSignedCertificate create(Path folder) throws IOException, InterruptedException {
    Path serverStore = folder.resolve("server.p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    CommandResult made = CommandResult.run(folder, List.of(keytool, "-genkeypair", "-alias", "server", "-keyalg",
        "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "2",
        "-keystore", serverStore.toString(), "-storetype", "PKCS12", "-storepass", new String(PASSWORD)));
    if (made.exitCode() != 0) {
      throw new IOException("Cannot make a test certificate with keytool: " + made.stderr() + made.stdout());
    }
    try {
      KeyStore server = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(serverStore)) {
        server.load(in, PASSWORD);
      }
      PrivateKey key = (PrivateKey) server.getKey("server", PASSWORD);
      Certificate certificate = server.getCertificate("server");
      Path certs = Files.createDirectories(folder.resolve(CERTS));
      Files.writeString(certs.resolve("public.crt"), pem("CERTIFICATE", certificate.getEncoded()));
      Files.writeString(certs.resolve("private.key"), pem("PRIVATE KEY", key.getEncoded()));
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, PASSWORD);
      trust.setCertificateEntry("server", certificate);
      try (OutputStream out = Files.newOutputStream(folder.resolve(TRUST_STORE))) {
        trust.store(out, PASSWORD);
      }
      return new SelfSignedCertificate(trust);
    } catch (GeneralSecurityException e) {
      throw new IOException("Cannot read the test certificate keytool made", e);
    }
  }

  /** An HTTP client that trusts this certificate alone. */
  HttpClient probe() throws IOException {
    try {
      TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trustManagers.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trustManagers.getTrustManagers(), null);
      return HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(2)).build();
    } catch (GeneralSecurityException e) {
      throw new IOException("Cannot trust the test certificate", e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }
}
