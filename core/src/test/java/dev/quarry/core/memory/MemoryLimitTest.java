package dev.quarry.core.memory;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memory limit read from fake /proc and cgroup trees, as a container, a pod or a plain machine shows them. */
class MemoryLimitTest {
  private static final String V2_MOUNT = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
  private static final String V1_MOUNTS = """
      31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
      32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
      35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
      """;

  @TempDir Path root;

  @BeforeEach
  void machineOf16GiB() throws IOException {
    write("proc/meminfo", "MemTotal:       16777216 kB\nMemFree:         1024 kB\n");
  }

  @Test
  void aContainersOwnCgroupV2LimitIsTheLimit() throws IOException {
    write("proc/self/cgroup", "0::/\n");
    write("proc/self/mountinfo", V2_MOUNT);
    write("sys/fs/cgroup/memory.max", "536870912\n");

    assertThat(MemoryLimit.read(root)).isEqualTo(new MemoryLimit(512L << 20, "/sys/fs/cgroup/memory.max"));
  }

  @Test
  void theLowestLimitOnTheWayUpCountsAndMaxIsNone() throws IOException {
    write("proc/self/cgroup", "0::/kubepods/pod1/worker\n");
    write("proc/self/mountinfo", V2_MOUNT);
    write("sys/fs/cgroup/kubepods/pod1/worker/memory.max", "max\n");
    write("sys/fs/cgroup/kubepods/pod1/memory.max", "2147483648\n");
    write("sys/fs/cgroup/kubepods/memory.max", "8589934592\n");

    assertThat(MemoryLimit.read(root))
        .isEqualTo(new MemoryLimit(2L << 30, "/sys/fs/cgroup/kubepods/pod1/memory.max"));
  }

  @Test
  void cgroupV1sMemoryControllerGivesTheLimitWhereV2HasNone() throws IOException {
    write("proc/self/cgroup", "9:name=systemd:/\n4:memory:/jobs/a1\n0::/\n");
    write("proc/self/mountinfo", V1_MOUNTS);
    write("sys/fs/cgroup/memory/jobs/a1/memory.limit_in_bytes", "3221225472\n");
    write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");

    assertThat(MemoryLimit.read(root))
        .isEqualTo(new MemoryLimit(3L << 30, "/sys/fs/cgroup/memory/jobs/a1/memory.limit_in_bytes"));
  }

  @Test
  void withoutALimitOrAboveThePhysicalMemoryItIsThePhysicalMemory() throws IOException {
    write("proc/self/cgroup", "4:memory:/jobs/a1\n");
    write("proc/self/mountinfo", V1_MOUNTS);
    write("sys/fs/cgroup/memory/jobs/a1/memory.limit_in_bytes", "9223372036854771712\n");
    assertThat(MemoryLimit.read(root)).isEqualTo(new MemoryLimit(16L << 30, "/proc/meminfo"));

    write("sys/fs/cgroup/memory/jobs/a1/memory.limit_in_bytes", String.valueOf(64L << 30));
    assertThat(MemoryLimit.read(root).bytes()).isEqualTo(16L << 30);

    Files.delete(root.resolve("proc/self/cgroup"));
    assertThat(MemoryLimit.read(root).bytes()).isEqualTo(16L << 30);
  }

  @Test
  void withoutACgroupNamespaceThePathIsFollowedFromTheMountsRoot() throws IOException {
    write("proc/self/cgroup", "0::/system.slice/quarry.service\n");
    write("proc/self/mountinfo", "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
    write("sys/fs/cgroup/system.slice/quarry.service/memory.max", "1073741824\n");

    assertThat(MemoryLimit.read(root).bytes()).isEqualTo(1L << 30);
  }

  /** A limit file that holds no number (a kernel or runtime writing something new) is passed over, not fatal. */
  @Test
  void aLimitThatIsNoNumberIsPassedOverForTheNextOne() throws IOException {
    write("proc/self/cgroup", "0::/kubepods/pod1\n");
    write("proc/self/mountinfo", V2_MOUNT);
    write("sys/fs/cgroup/kubepods/pod1/memory.max", "lots\n");
    write("sys/fs/cgroup/kubepods/memory.max", "2147483648\n");
    assertThat(MemoryLimit.read(root)).isEqualTo(new MemoryLimit(2L << 30, "/sys/fs/cgroup/kubepods/memory.max"));

    write("sys/fs/cgroup/kubepods/memory.max", "2G\n");
    assertThat(MemoryLimit.read(root)).isEqualTo(new MemoryLimit(16L << 30, "/proc/meminfo"));
  }

  /** This process's limit is the one the JVM sizes its heap from (it reads the same cgroup files itself). */
  @Test
  void thisProcessesLimitIsTheJvmsOwn() {
    long jvm = ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class).getTotalMemorySize();

    assertThat(MemoryLimit.ofThisProcess().bytes()).isEqualTo(jvm);
  }

  private void write(String path, String content) throws IOException {
    Path file = root.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
  }
}
