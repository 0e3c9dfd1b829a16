/**
 * Syscall numbers of the calls the sandbox filter looks at, per ABI. Generated from the kernel UAPI headers
 * (x86_64 and i386: asm/unistd_64.h and unistd_32.h; arm64: asm-generic/unistd.h; arm EABI: the kernel's
 * syscall.tbl as musl copies it). Calls numbered 424 and above share their numbers across architectures.
 * A name missing from an ABI does not exist there.
 */

export interface SyscallTable {
  ioctl: number;
  clone: number;
  clone3: number;
  personality: number;
  socket: number;
  /** The calls refused with EPERM (see seccomp.ts for why each family), by name. */
  refused: Record<string, number>;
}

export const X86_64: SyscallTable = {
  ioctl: 16,
  clone: 56,
  clone3: 435,
  personality: 135,
  socket: 41,
  refused: {
    keyctl: 250, add_key: 248, request_key: 249, mount: 165, umount2: 166, pivot_root: 155, fsopen: 430,
    fsconfig: 431, fsmount: 432, fspick: 433, move_mount: 429, open_tree: 428, mount_setattr: 442, unshare: 272,
    setns: 308, bpf: 321, perf_event_open: 298, userfaultfd: 323, io_uring_setup: 425, io_uring_enter: 426,
    io_uring_register: 427, kexec_load: 246, kexec_file_load: 320, init_module: 175, finit_module: 313,
    delete_module: 176, create_module: 174, query_module: 178, get_kernel_syms: 177, reboot: 169, swapon: 167,
    swapoff: 168, acct: 163, syslog: 103, quotactl: 179, quotactl_fd: 443, lookup_dcookie: 212,
    open_by_handle_at: 304, fanotify_init: 300, iopl: 172, ioperm: 173, settimeofday: 164, clock_settime: 227,
    vhangup: 153, sethostname: 170, setdomainname: 171, get_mempolicy: 239, mbind: 237, set_mempolicy: 238,
    set_mempolicy_home_node: 450, migrate_pages: 256, move_pages: 279, kcmp: 312, pidfd_getfd: 438,
    process_madvise: 440, nfsservctl: 180, uselib: 134, ustat: 136, sysfs: 139, _sysctl: 156,
  },
};

export const I386: SyscallTable = {
  ioctl: 54,
  clone: 120,
  clone3: 435,
  personality: 136,
  socket: 359,
  refused: {
    keyctl: 288, add_key: 286, request_key: 287, mount: 21, umount: 22, umount2: 52, pivot_root: 217,
    fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, move_mount: 429, open_tree: 428, mount_setattr: 442,
    unshare: 310, setns: 346, bpf: 357, perf_event_open: 336, userfaultfd: 374, io_uring_setup: 425,
    io_uring_enter: 426, io_uring_register: 427, kexec_load: 283, init_module: 128, finit_module: 350,
    delete_module: 129, create_module: 127, query_module: 167, get_kernel_syms: 130, reboot: 88, swapon: 87,
    swapoff: 115, acct: 51, syslog: 103, quotactl: 131, quotactl_fd: 443, lookup_dcookie: 253,
    open_by_handle_at: 342, fanotify_init: 338, iopl: 110, ioperm: 101, settimeofday: 79, stime: 25,
    clock_settime: 264, clock_settime64: 404, vhangup: 111, sethostname: 74, setdomainname: 121,
    get_mempolicy: 275, mbind: 274, set_mempolicy: 276, set_mempolicy_home_node: 450, migrate_pages: 294,
    move_pages: 317, kcmp: 349, pidfd_getfd: 438, process_madvise: 440, nfsservctl: 169, uselib: 86, ustat: 62,
    sysfs: 135, _sysctl: 149, vm86: 166, vm86old: 113,
  },
};

export const AARCH64: SyscallTable = {
  ioctl: 29,
  clone: 220,
  clone3: 435,
  personality: 92,
  socket: 198,
  refused: {
    keyctl: 219, add_key: 217, request_key: 218, mount: 40, umount2: 39, pivot_root: 41, fsopen: 430,
    fsconfig: 431, fsmount: 432, fspick: 433, move_mount: 429, open_tree: 428, mount_setattr: 442, unshare: 97,
    setns: 268, bpf: 280, perf_event_open: 241, userfaultfd: 282, io_uring_setup: 425, io_uring_enter: 426,
    io_uring_register: 427, kexec_load: 104, kexec_file_load: 294, init_module: 105, finit_module: 273,
    delete_module: 106, reboot: 142, swapon: 224, swapoff: 225, acct: 89, syslog: 116, quotactl: 60,
    quotactl_fd: 443, lookup_dcookie: 18, open_by_handle_at: 265, fanotify_init: 262, settimeofday: 170,
    clock_settime: 112, clock_settime64: 404, vhangup: 58, sethostname: 161, setdomainname: 162,
    get_mempolicy: 236, mbind: 235, set_mempolicy: 237, set_mempolicy_home_node: 450, migrate_pages: 238,
    move_pages: 239, kcmp: 272, pidfd_getfd: 438, process_madvise: 440, nfsservctl: 42,
  },
};

export const ARM_EABI: SyscallTable = {
  ioctl: 54,
  clone: 120,
  clone3: 435,
  personality: 136,
  socket: 281,
  refused: {
    keyctl: 311, add_key: 309, request_key: 310, mount: 21, umount2: 52, pivot_root: 218, fsopen: 430,
    fsconfig: 431, fsmount: 432, fspick: 433, move_mount: 429, open_tree: 428, mount_setattr: 442, unshare: 337,
    setns: 375, bpf: 386, perf_event_open: 364, userfaultfd: 388, io_uring_setup: 425, io_uring_enter: 426,
    io_uring_register: 427, kexec_load: 347, kexec_file_load: 401, init_module: 128, finit_module: 379,
    delete_module: 129, reboot: 88, swapon: 87, swapoff: 115, acct: 51, syslog: 103, quotactl: 131,
    quotactl_fd: 443, lookup_dcookie: 249, open_by_handle_at: 371, fanotify_init: 367, settimeofday: 79,
    clock_settime: 262, clock_settime64: 404, vhangup: 111, sethostname: 74, setdomainname: 121,
    get_mempolicy: 320, mbind: 319, set_mempolicy: 321, set_mempolicy_home_node: 450, migrate_pages: 400,
    move_pages: 344, kcmp: 378, pidfd_getfd: 438, process_madvise: 440, nfsservctl: 169, uselib: 86, ustat: 62,
    sysfs: 135, _sysctl: 149,
  },
};
