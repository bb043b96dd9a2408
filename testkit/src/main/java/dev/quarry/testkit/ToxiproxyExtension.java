package dev.quarry.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Starts a {@link Toxiproxy} the first time a test of the class asks for one, and stops it after the class. */
public final class ToxiproxyExtension implements AfterAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(ToxiproxyExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Toxiproxy.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    ExtensionContext.Store store = classContext(context).getStore(NAMESPACE);
    return store.getOrComputeIfAbsent(Toxiproxy.class, key -> {
      try {
        return Toxiproxy.start();
      } catch (Exception e) {
        throw new IllegalStateException("Cannot start toxiproxy: " + e.getMessage(), e);
      }
    }, Toxiproxy.class);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    Toxiproxy toxiproxy = context.getStore(NAMESPACE).remove(Toxiproxy.class, Toxiproxy.class);
    if (toxiproxy != null) {
      toxiproxy.close();
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
