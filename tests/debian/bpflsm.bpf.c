// SPDX-License-Identifier: GPL-2.0
/*
 * dwbpflsm.bpf.o - a BPF LSM program on file_open, for the stacking test of
 * the distribution kernel (tests/debian/suites.sh): it refuses, with
 * EPERM, every open of the one inode whose number is in its map "target"
 * (0: none).  bpftool loads it (CO-RE against the kernel's BTF) and
 * dwbpfattach attaches it.  Self-contained: no libbpf headers.
 */
typedef unsigned int __u32;
typedef unsigned long long __u64;

#define SEC(name) __attribute__((section(name), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#define BPF_MAP_TYPE_ARRAY 2
#define EPERM 1

/* Only the fields read, relocated by libbpf against the kernel's BTF. */
struct inode {
	unsigned long i_ino;
} __attribute__((preserve_access_index));

struct file {
	struct inode *f_inode;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} target SEC(".maps");

static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *)1;

char _license[] SEC("license") = "GPL";

/* lsm/file_open: int file_open(struct file *file), the previous LSMs'
 * verdict last. */
SEC("lsm/file_open")
int dw_file_open(__u64 *ctx)
{
	struct file *file = (struct file *)ctx[0];
	int ret = (int)ctx[1];
	__u32 key = 0;
	__u64 *ino;

	if (ret)
		return ret;
	ino = bpf_map_lookup_elem(&target, &key);
	if (ino && *ino && file->f_inode->i_ino == *ino)
		return -EPERM;
	return 0;
}
