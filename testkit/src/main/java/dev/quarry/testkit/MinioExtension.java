package dev.quarry.testkit;

/**
 * One {@link MinioServer} per test class, injected into constructors or test methods:
 * {@code @ExtendWith(MinioExtension.class)}, then {@code void test(MinioServer minio)}.
 */
public final class MinioExtension extends PerClassServerExtension<MinioServer> {
  public MinioExtension() {
    super(MinioServer.class);
  }

  @Override
  MinioServer start() throws Exception {
    return MinioServer.start();
  }
}
