package dev.quarry.testkit;

/** One {@link Toxiproxy} per test class, started the first time a test asks for it. */
public final class ToxiproxyExtension extends PerClassServerExtension<Toxiproxy> {
  public ToxiproxyExtension() {
    super(Toxiproxy.class);
  }

  @Override
  Toxiproxy start() throws Exception {
    return Toxiproxy.start();
  }
}
