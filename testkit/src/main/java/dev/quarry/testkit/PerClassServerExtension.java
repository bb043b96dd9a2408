package dev.quarry.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One server per test class, started when a constructor or method first asks for it (so it works with either test
 * instance lifecycle) and always stopped after the class.
 *
 * @param <S> the server
 */
abstract class PerClassServerExtension<S extends AutoCloseable> implements AfterAllCallback, ParameterResolver {
  private final Class<S> serverType;
  private final ExtensionContext.Namespace namespace;

  PerClassServerExtension(Class<S> serverType) {
    this.serverType = serverType;
    this.namespace = ExtensionContext.Namespace.create(getClass());
  }

  /** Starts the server. */
  abstract S start() throws Exception;

  /** Whether a parameter of {@code type} is the server or something it provides. */
  boolean provides(Class<?> type) {
    return type == serverType;
  }

  /** The object to inject for a parameter of {@code type}. */
  Object provide(S server, Class<?> type) {
    return server;
  }

  @Override
  public final boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return provides(parameter.getParameter().getType());
  }

  @Override
  public final Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    S server = classContext(context).getStore(namespace).getOrComputeIfAbsent(serverType, key -> {
      try {
        return start();
      } catch (Exception e) {
        throw new IllegalStateException("Cannot start " + serverType.getSimpleName() + ": " + e.getMessage(), e);
      }
    }, serverType);
    return provide(server, parameter.getParameter().getType());
  }

  @Override
  public final void afterAll(ExtensionContext context) throws Exception {
    S server = context.getStore(namespace).remove(serverType, serverType);
    if (server != null) {
      server.close();
    }
  }

  private static ExtensionContext classContext(ExtensionContext context) {
    ExtensionContext current = context;
    while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
      current = current.getParent().get();
    }
    return current;
  }
}
