package dev.quarry.core.store;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads the answer to a ListObjectsV2 request sent with {@code encoding-type=url} (keys percent-encoded, as the AWS
 * SDK asks for them, so that any key survives XML): the objects in order and whether more follow. No DTD, no
 * external entity: the answer is data, never a document that fetches anything.
 */
final class ListObjectsXml {
  private static final XMLInputFactory FACTORY = factory();

  /** The objects of one page, and whether the server said more follow. */
  record Page(List<ObjectInfo> objects, boolean truncated) {}

  private ListObjectsXml() {}

  private static XMLInputFactory factory() {
    XMLInputFactory factory = XMLInputFactory.newDefaultFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    factory.setProperty(XMLInputFactory.IS_COALESCING, true);
    return factory;
  }

  /** {@code url}: what was listed, for the message when the answer is not a listing. */
  static Page parse(byte[] body, String url) throws IOException {
    List<ObjectInfo> objects = new ArrayList<>();
    boolean truncated = false;
    boolean urlEncoded = false;
    try {
      XMLStreamReader xml = FACTORY.createXMLStreamReader(new ByteArrayInputStream(body));
      try {
        String key = null;
        long size = -1;
        String etag = null;
        Instant modified = null;
        int depth = 0;
        while (xml.hasNext()) {
          int event = xml.next();
          if (event == XMLStreamConstants.END_ELEMENT) {
            depth--;
            if (depth == 1 && xml.getLocalName().equals("Contents")) {
              if (key == null || size < 0) {
                throw new IOException("Cannot list " + url + ": the server sent an object without a key or size");
              }
              objects.add(new ObjectInfo(key, size, etag, modified));
              key = null;
              size = -1;
              etag = null;
              modified = null;
            }
            continue;
          }
          if (event != XMLStreamConstants.START_ELEMENT) {
            continue;
          }
          depth++;
          String name = xml.getLocalName();
          if (depth == 2) {
            switch (name) {
              case "IsTruncated" -> truncated = Boolean.parseBoolean(text(xml));
              case "EncodingType" -> urlEncoded = "url".equalsIgnoreCase(text(xml));
              default -> { }
            }
          } else if (depth == 3) {
            switch (name) {
              case "Key" -> key = text(xml);
              case "Size" -> size = Long.parseLong(text(xml));
              case "ETag" -> etag = S3Store.unquoted(text(xml));
              case "LastModified" -> modified = instant(text(xml));
              default -> { }
            }
          }
          if (xml.getEventType() == XMLStreamConstants.END_ELEMENT) {
            depth--; // text() read up to the element's end
          }
        }
      } finally {
        xml.close();
      }
    } catch (XMLStreamException | NumberFormatException e) {
      throw new IOException("Cannot list " + url + ": the server's answer is not a listing (" + e.getMessage() + ")",
          e);
    }
    if (urlEncoded) {
      objects.replaceAll(object -> new ObjectInfo(URLDecoder.decode(object.key(), StandardCharsets.UTF_8),
          object.size(), object.etag(), object.lastModified()));
    }
    return new Page(objects, truncated);
  }

  private static String text(XMLStreamReader xml) throws XMLStreamException {
    return xml.getElementText().trim();
  }

  private static Instant instant(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
