import java.io.IOException;
import java.io.OutputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Rewrites the classes of a jar older than Java 6's class format (picocli's are Java 5's) into Java 21's, with the
 * stack maps the newer format needs, so that the AOT cache can link them: the JVM leaves classes it must verify the
 * old way out of an AOT cache's linked classes, and picocli's 180 were then loaded, verified and initialised from the
 * jar at every start (about 40 ms of each command). The code is the same; the stack maps are computed from it.
 * Run by startup-cache.sh on JDK 25 and later (the class-file API), in place: java LinkableClasses.java JAR.
 */
public final class LinkableClasses {
  private static final int OLDEST_LINKABLE = 50; // Java 6: the first format the split verifier checks
  private static final int JAVA_21 = 65;

  public static void main(String[] args) throws IOException {
    Path jar = Path.of(args[0]);
    Path rewritten = jar.resolveSibling(jar.getFileName() + ".linkable");
    int count = 0;
    try (URLClassLoader classes = new URLClassLoader(new URL[] {jar.toUri().toURL()},
            ClassLoader.getPlatformClassLoader());
        ZipInputStream in = new ZipInputStream(Files.newInputStream(jar));
        OutputStream file = Files.newOutputStream(rewritten);
        ZipOutputStream out = new ZipOutputStream(file)) {
      // A new constant pool makes every method's code written anew, and so given stack maps; the class hierarchy
      // they need comes from the jar itself and the runtime.
      ClassFile classFile = ClassFile.of(ClassFile.StackMapsOption.GENERATE_STACK_MAPS,
          ClassFile.ConstantPoolSharingOption.NEW_POOL,
          ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.defaultResolver()
              .orElse(ClassHierarchyResolver.ofResourceParsing(classes))));
      for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
        byte[] bytes = in.readAllBytes();
        if (entry.getName().endsWith(".class") && !entry.getName().startsWith("META-INF/")) {
          ClassModel model = classFile.parse(bytes);
          if (model.majorVersion() < OLDEST_LINKABLE) {
            bytes = classFile.transformClass(model, ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                .andThen(ClassTransform.endHandler(builder -> builder.withVersion(JAVA_21, 0))));
            count++;
          }
        }
        ZipEntry copy = new ZipEntry(entry.getName());
        copy.setTime(entry.getTime());
        out.putNextEntry(copy);
        out.write(bytes);
        out.closeEntry();
      }
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(rewritten);
      throw e;
    }
    if (count == 0) {
      Files.delete(rewritten); // none to rewrite: the jar stays as it is, its time too
      return;
    }
    Files.move(rewritten, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    System.out.println("linkable classes: " + count + " rewritten in " + jar);
  }
}
