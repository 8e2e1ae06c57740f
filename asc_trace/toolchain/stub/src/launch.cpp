// The cpu_debug launcher: maps the caller's arrays (a file the Python side wrote), then runs the
// kernel once per block index, each core in its own forked process as tikicpulib does, so that a
// core starts from fresh API state and a crash stays in the child. Output is stdout (printf) with a
// marker before each core; failures are reported on stderr by src/runtime.cpp.
//
//   kernels <kernel index> <gm file> <core_num> <arg>...
//   arg: g<offset>:<bytes>:<name> | i<int64> | f<float bits, hex>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "asc_stub_launch.h"
#include "state.h"

namespace asc_stub {

int run_launch(int argc, char** argv, const KernelCall* kernels, int n_kernels, uint8_t* (*ub)())
{
    const int which = argc > 1 ? std::atoi(argv[1]) : -1;
    if (argc < 4 || which < 0 || which >= n_kernels) {
        std::fprintf(stderr, "usage: %s <kernel 0..%d> <gm file> <core_num> <arg>...\n", argv[0], n_kernels - 1);
        return 2;
    }
    const KernelCall call = kernels[which];
    argc -= 1;
    argv += 1;
    int fd = open(argv[1], O_RDWR);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0) {
        std::perror(argv[1]);
        return 2;
    }
    uint8_t* gm = nullptr;
    if (st.st_size > 0) {
        gm = static_cast<uint8_t*>(mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
        if (gm == MAP_FAILED) {
            std::perror("mmap");
            return 2;
        }
    }
    const int core_num = std::atoi(argv[2]);
    const int nargs = argc - 3;
    std::vector<void*> args(static_cast<size_t>(nargs));
    std::vector<int64_t> ints(static_cast<size_t>(nargs));
    std::vector<float> floats(static_cast<size_t>(nargs));
    std::vector<std::string> names(static_cast<size_t>(nargs));
    for (int i = 0; i < nargs; ++i) {
        const char* a = argv[3 + i];
        if (a[0] == 'g') {
            char* end = nullptr;
            unsigned long long off = std::strtoull(a + 1, &end, 10);
            unsigned long long bytes = std::strtoull(end + 1, &end, 10);
            names[i] = end + 1;
            args[i] = gm + off;
            add_gm_range(gm + off, bytes, names[i].c_str());
        } else if (a[0] == 'i') {
            ints[i] = std::strtoll(a + 1, nullptr, 10);
            args[i] = &ints[i];
        } else {
            uint32_t b = static_cast<uint32_t>(std::strtoul(a + 1, nullptr, 16));
            std::memcpy(&floats[i], &b, 4);
            args[i] = &floats[i];
        }
    }
    for (int core = 0; core < core_num; ++core) {
        std::printf("%s%d\x1e", CORE_MARK, core);
        std::fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            std::perror("fork");
            return 2;
        }
        if (pid == 0) {
            install_signal_handlers();
            begin_core(core, core_num, ub(), 192 * 1024);
            call(args.data());
            end_core();
            std::fflush(stdout);
            _exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
        if (WIFSIGNALED(status))
            std::fprintf(stderr, "@@ASC_TRACE_SIGNAL\tsignal %d\t-1\t%d\t\n", WTERMSIG(status), core);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 87;
    }
    if (gm != nullptr) msync(gm, static_cast<size_t>(st.st_size), MS_SYNC);
    return 0;
}

}  // namespace asc_stub
