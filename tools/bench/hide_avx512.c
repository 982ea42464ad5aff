/* Hides AVX-512 and AMX from a process, so that an AVX-512 machine measures what an
 * AVX2-only host runs: onnxruntime's MLAS, Rust's std_detect (acc's runtime and
 * Cranelift's host ISA flags) and anything else that asks CPUID at run time pick their
 * AVX2 code.
 *
 *     gcc -O2 -shared -fPIC tools/bench/hide_avx512.c -o /tmp/hide_avx512.so
 *     LD_PRELOAD=/tmp/hide_avx512.so python3 -c 'import onnxruntime; ...'
 *     LD_PRELOAD=/tmp/hide_avx512.so target/release/acc-run model.onnx --mode jit ...
 *
 * How: Linux's CPUID faulting (arch_prctl ARCH_SET_CPUID, 0; the CPU must list
 * `cpuid_fault` in /proc/cpuinfo) makes every CPUID instruction raise SIGSEGV. The
 * handler runs the real CPUID with faulting briefly off, clears the AVX-512 and AMX
 * feature bits of leaf 7 and steps over the instruction. The setting is per thread,
 * inherited by threads and children created later, and reset by execve (the library
 * sets it again in the new program's constructor when preloaded).
 *
 * Limits: the dynamic loader has already read CPUID when this constructor runs, so
 * glibc's own string functions may still use EVEX code; XGETBV is not trapped (the
 * OS still reports AVX-512 state, which programs only consult after CPUID says
 * AVX-512F). A SIGSEGV that is not a CPUID is handed back to the default action. */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* Leaf 7, subleaf 0. */
#define EBX_AVX512 ((1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) | (1u << 27) | \
                    (1u << 28) | (1u << 30) | (1u << 31))
#define ECX_AVX512 ((1u << 1) | (1u << 6) | (1u << 11) | (1u << 12) | (1u << 14))
#define EDX_AVX512_AMX ((1u << 2) | (1u << 3) | (1u << 8) | (1u << 22) | (1u << 23) | \
                        (1u << 24) | (1u << 25))
/* Leaf 7, subleaf 1: AVX512_BF16. */
#define EAX1_AVX512 (1u << 5)

static int set_cpuid_enabled(int enabled) {
    return (int)syscall(SYS_arch_prctl, ARCH_SET_CPUID, enabled);
}

static void on_segv(int sig, siginfo_t *info, void *context) {
    (void)info;
    ucontext_t *uc = context;
    greg_t *regs = uc->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)regs[REG_RIP];
    if (ip[0] != 0x0f || ip[1] != 0xa2) {
        signal(sig, SIG_DFL); /* a real fault: returning re-runs it, now fatal */
        return;
    }
    unsigned leaf = (unsigned)regs[REG_RAX], subleaf = (unsigned)regs[REG_RCX];
    unsigned a, b, c, d;
    set_cpuid_enabled(1);
    __cpuid_count(leaf, subleaf, a, b, c, d);
    set_cpuid_enabled(0);
    if (leaf == 7 && subleaf == 0) {
        b &= ~EBX_AVX512;
        c &= ~ECX_AVX512;
        d &= ~EDX_AVX512_AMX;
    } else if (leaf == 7 && subleaf == 1) {
        a &= ~EAX1_AVX512;
    }
    regs[REG_RAX] = a;
    regs[REG_RBX] = b;
    regs[REG_RCX] = c;
    regs[REG_RDX] = d;
    regs[REG_RIP] += 2;
}

__attribute__((constructor)) static void hide_avx512(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_segv;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &action, NULL);
    if (set_cpuid_enabled(0) != 0) {
        perror("hide_avx512: arch_prctl(ARCH_SET_CPUID) (no cpuid_fault on this CPU?)");
        exit(2);
    }
}
