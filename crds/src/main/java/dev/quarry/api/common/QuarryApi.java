package dev.quarry.api.common;

/** The API group and version every Quarry kind belongs to. */
public final class QuarryApi {
  public static final String GROUP = "quarry.dev";
  public static final String VERSION = "v1alpha1";

  private QuarryApi() {}
}
