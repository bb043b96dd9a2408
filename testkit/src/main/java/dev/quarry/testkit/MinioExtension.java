package dev.quarry.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one {@link MinioServer} per test class and stops it after the class, whatever happened. Test methods and
 * constructors receive it as a parameter: {@code @ExtendWith(MinioExtension.class)}, then {@code void t(MinioServer
 * minio)}.
 */
public final class MinioExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(MinioExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    context.getStore(NAMESPACE).put(MinioServer.class, MinioServer.start());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    MinioServer server = context.getStore(NAMESPACE).remove(MinioServer.class, MinioServer.class);
    if (server != null) {
      server.close();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == MinioServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    MinioServer server = context.getStore(NAMESPACE).get(MinioServer.class, MinioServer.class);
    if (server == null) {
      throw new IllegalStateException("Cannot inject MinioServer: the MinIO server is started per test class;"
          + " inject it into test methods or the constructor of a PER_CLASS test");
    }
    return server;
  }
}
