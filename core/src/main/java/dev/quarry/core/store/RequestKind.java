package dev.quarry.core.store;

/** The kinds of store requests that {@link RequestCounts} tells apart. */
public enum RequestKind {
  HEAD,
  LIST,
  GET,
  /** PutObject, and every request of a multipart upload except its abort. */
  PUT,
  /** DeleteObject and AbortMultipartUpload. */
  DELETE
}
