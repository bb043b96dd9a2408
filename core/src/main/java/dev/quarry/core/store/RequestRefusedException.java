package dev.quarry.core.store;

import java.io.IOException;

/**
 * A request the store refused to carry out, whatever the retries: not allowed (HTTP 403, a policy without the action)
 * or not implemented (HTTP 501, a server without the API). A caller for whom the request only tidies may go on
 * without it; any other failure may pass with a retry.
 */
public final class RequestRefusedException extends IOException {
  private static final long serialVersionUID = 1L;

  public RequestRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
