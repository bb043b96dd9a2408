import java.io.FileInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * What the smoke test runs inside pods, with nothing but a Java runtime (no curl in the image):
 * {@code api} asks the API server who it is, through the kubernetes Service and with the pod's ServiceAccount
 * token, exactly as an in-cluster client does; {@code http URL} expects a 2xx answer from URL.
 * Exits 0 on success and 1 with the reason on failure.
 */
public final class ClusterCheck {
    private static final Path SERVICE_ACCOUNT = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("api")) {
            api();
        } else if (args.length == 2 && args[0].equals("http")) {
            http(args[1]);
        } else {
            fail("usage: ClusterCheck api | http URL");
        }
    }

    private static void api() throws Exception {
        String host = System.getenv("KUBERNETES_SERVICE_HOST");
        String port = System.getenv("KUBERNETES_SERVICE_PORT");
        if (host == null || port == null) {
            fail("KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is not set: not in a pod?");
        }
        String token = Files.readString(SERVICE_ACCOUNT.resolve("token")).trim();
        HttpClient client = HttpClient.newBuilder()
                .sslContext(trusting(SERVICE_ACCOUNT.resolve("ca.crt")))
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        // Any authenticated user may review itself: the answer names the ServiceAccount behind the token.
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("https://" + host + ":" + port + "/apis/authentication.k8s.io/v1/selfsubjectreviews"))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}"))
                .timeout(Duration.ofSeconds(20))
                .build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 201 || !response.body().contains("system:serviceaccount:")) {
            fail("API server at " + host + ":" + port + " answered " + response.statusCode() + ": " + response.body());
        }
        System.out.println("API server at " + host + ":" + port + " (the kubernetes Service) authenticated "
                + response.body().replaceAll(".*\"username\":\"([^\"]*)\".*", "$1").trim());
    }

    private static void http(String url) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            fail(url + " answered " + response.statusCode() + ": " + response.body());
        }
        System.out.println(url + " answered " + response.statusCode());
    }

    private static SSLContext trusting(Path caFile) throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (InputStream in = new FileInputStream(caFile.toFile())) {
            trusted.setCertificateEntry("cluster-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    private static void fail(String message) {
        System.err.println("ClusterCheck: " + message);
        System.exit(1);
    }
}
