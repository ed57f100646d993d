// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-lib: raw bpf(2) (no libbpf) - load, attach, detach, query, link
 * create/update/detach, object info, id walks and the census of programs
 * and links. See netkit-lib.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/btf.h>

#include "netkit-lib.h"

int nk_sys_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	long ret = syscall(__NR_bpf, cmd, attr, size);

	return ret < 0 ? -errno : (int)ret;
}

int nk_bpf(int cmd, union bpf_attr *attr)
{
	return nk_sys_bpf(cmd, attr, sizeof(*attr));
}

int nk_mmap_array(unsigned int value_size, void **v)
{
	union bpf_attr a;
	int map, err;

	*v = MAP_FAILED;
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = value_size;
	a.max_entries = 1;
	a.map_flags = BPF_F_MMAPABLE;
	map = nk_bpf(BPF_MAP_CREATE, &a);
	if (map < 0)
		return map;
	*v = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		  MAP_SHARED, map, 0);
	if (*v == MAP_FAILED) {
		err = -errno;
		close(map);
		return err;
	}
	return map;
}

/* BPF_PROG_LOAD's attr for n instructions insns, GPL, named name */
static void prog_load_attr(union bpf_attr *attr, int prog_type,
			   int expected_attach_type,
			   const struct bpf_insn *insns, unsigned int n,
			   const char *name)
{
	memset(attr, 0, sizeof(*attr));
	attr->prog_type = prog_type;
	attr->expected_attach_type = expected_attach_type;
	attr->insns = (unsigned long)insns;
	attr->insn_cnt = n;
	attr->license = (unsigned long)"GPL";
	snprintf(attr->prog_name, sizeof(attr->prog_name), "%s", name);
}

int nk_prog_load_insns(int prog_type, int expected_attach_type,
		       const struct bpf_insn *insns, unsigned int n,
		       const char *name)
{
	union bpf_attr attr;

	prog_load_attr(&attr, prog_type, expected_attach_type, insns, n, name);
	return nk_bpf(BPF_PROG_LOAD, &attr);
}

int nk_prog_load_cb(int prog_type, int expected_attach_type,
		    const struct bpf_insn *insns, unsigned int n,
		    unsigned int cb, const char *name, char *log,
		    unsigned int logsz)
{
	/* [1] int, [2] int (void), [3] name, [4] name_cb: static functions */
	struct {
		struct btf_header hdr;
		struct btf_type t_int;
		__u32 int_enc;
		struct btf_type t_proto, t_main, t_cb;
		char str[2 * BPF_OBJ_NAME_LEN + 8];
	} __attribute__((packed)) btf;
	struct bpf_func_info fi[2] = { { 0, 3 }, { cb, 4 } };
	union bpf_attr attr;
	int nlen = strnlen(name, BPF_OBJ_NAME_LEN - 1), btf_fd, fd, len;

	memset(&btf, 0, sizeof(btf));
	len = snprintf(btf.str, sizeof(btf.str), "%cint%c%.*s%c%.*s_cb", 0, 0,
		       nlen, name, 0, nlen, name) + 1;
	btf.hdr.magic = BTF_MAGIC;
	btf.hdr.version = BTF_VERSION;
	btf.hdr.hdr_len = sizeof(btf.hdr);
	btf.hdr.type_len = offsetof(typeof(btf), str) - sizeof(btf.hdr);
	btf.hdr.str_off = btf.hdr.type_len;
	btf.hdr.str_len = len;
	btf.t_int.name_off = 1;
	btf.t_int.info = BTF_KIND_INT << 24;
	btf.t_int.size = 4;
	btf.int_enc = BTF_INT_SIGNED << 24 | 32;
	btf.t_proto.info = BTF_KIND_FUNC_PROTO << 24;
	btf.t_proto.type = 1;
	btf.t_main.name_off = 5;
	btf.t_main.info = BTF_KIND_FUNC << 24 | BTF_FUNC_STATIC;
	btf.t_main.type = 2;
	btf.t_cb.name_off = 5 + nlen + 1;
	btf.t_cb.info = BTF_KIND_FUNC << 24 | BTF_FUNC_STATIC;
	btf.t_cb.type = 2;
	memset(&attr, 0, sizeof(attr));
	attr.btf = (unsigned long)&btf;
	attr.btf_size = sizeof(btf.hdr) + btf.hdr.type_len + len;
	btf_fd = nk_bpf(BPF_BTF_LOAD, &attr);
	if (btf_fd < 0)
		return btf_fd;

	prog_load_attr(&attr, prog_type, expected_attach_type, insns, n, name);
	attr.prog_btf_fd = btf_fd;
	attr.func_info = (unsigned long)fi;
	attr.func_info_cnt = 2;
	attr.func_info_rec_size = sizeof(fi[0]);
	fd = nk_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0 && log && logsz) {
		/* again, for the verifier's reasons */
		log[0] = 0;
		attr.log_buf = (unsigned long)log;
		attr.log_size = logsz;
		attr.log_level = 1;
		fd = nk_bpf(BPF_PROG_LOAD, &attr);
	}
	close(btf_fd);
	return fd;
}

int nk_prog_load(int prog_type, int expected_attach_type, int verdict,
		 const char *name)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = verdict },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return nk_prog_load_insns(prog_type, expected_attach_type, insns,
				  sizeof(insns) / sizeof(insns[0]), name);
}

void nk_attach_attr(union bpf_attr *a, int ifindex, int type, int prog_fd,
		    __u32 flags, __u32 relative, int replace_fd, __u64 revision)
{
	memset(a, 0, sizeof(*a));
	a->target_ifindex = ifindex;
	a->attach_type = type;
	a->attach_bpf_fd = prog_fd;
	a->attach_flags = flags;
	a->relative_fd = relative;
	a->replace_bpf_fd = replace_fd;
	a->expected_revision = revision;
}

int nk_prog_attach(int ifindex, int type, int prog_fd, __u32 flags,
		   __u32 relative, int replace_fd, __u64 revision)
{
	union bpf_attr a;

	nk_attach_attr(&a, ifindex, type, prog_fd, flags, relative, replace_fd,
		       revision);
	return nk_bpf(BPF_PROG_ATTACH, &a);
}

void nk_detach_attr(union bpf_attr *a, int ifindex, int type, int prog_fd,
		    __u32 flags, __u32 relative, __u64 revision)
{
	nk_attach_attr(a, ifindex, type, prog_fd, flags, relative, 0, revision);
}

int nk_prog_detach(int ifindex, int type, int prog_fd, __u32 flags,
		   __u32 relative, __u64 revision)
{
	union bpf_attr a;

	nk_detach_attr(&a, ifindex, type, prog_fd, flags, relative, revision);
	return nk_bpf(BPF_PROG_DETACH, &a);
}

void nk_link_create_attr(union bpf_attr *a, int ifindex, int type,
			 int prog_fd, __u32 flags, __u32 relative,
			 __u64 revision)
{
	memset(a, 0, sizeof(*a));
	a->link_create.prog_fd = prog_fd;
	a->link_create.target_ifindex = ifindex;
	a->link_create.attach_type = type;
	a->link_create.flags = flags;
	/* tcx and netkit share this layout in mainline's uapi */
	a->link_create.netkit.relative_fd = relative;
	a->link_create.netkit.expected_revision = revision;
}

int nk_link_create(int ifindex, int type, int prog_fd, __u32 flags,
		   __u32 relative, __u64 revision)
{
	union bpf_attr a;

	nk_link_create_attr(&a, ifindex, type, prog_fd, flags, relative,
			    revision);
	return nk_bpf(BPF_LINK_CREATE, &a);
}

int nk_link_create_nofd(int ifindex, int type, int prog_fd)
{
	struct rlimit old, none;
	int fd;

	if (getrlimit(RLIMIT_NOFILE, &old))
		return -errno;
	fd = fcntl(prog_fd, F_DUPFD, 0);	/* the lowest free fd */
	if (fd < 0)
		return -errno;
	close(fd);
	none = old;
	none.rlim_cur = fd;
	if (setrlimit(RLIMIT_NOFILE, &none))
		return -errno;
	fd = nk_link_create(ifindex, type, prog_fd, 0, 0, 0);
	setrlimit(RLIMIT_NOFILE, &old);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return fd;
}

void nk_link_update_attr(union bpf_attr *a, int link_fd, int new_prog_fd,
			 __u32 flags, int old_prog_fd)
{
	memset(a, 0, sizeof(*a));
	a->link_update.link_fd = link_fd;
	a->link_update.new_prog_fd = new_prog_fd;
	a->link_update.flags = flags;
	a->link_update.old_prog_fd = old_prog_fd;
}

int nk_link_update(int link_fd, int new_prog_fd, __u32 flags, int old_prog_fd)
{
	union bpf_attr a;

	nk_link_update_attr(&a, link_fd, new_prog_fd, flags, old_prog_fd);
	return nk_bpf(BPF_LINK_UPDATE, &a);
}

int nk_link_detach(int link_fd)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.link_detach.link_fd = link_fd;
	return nk_bpf(BPF_LINK_DETACH, &a);
}

void nk_query_attr(union bpf_attr *a, int ifindex, int type, __u32 *prog_ids,
		   __u32 *link_ids, __u32 count)
{
	memset(a, 0, sizeof(*a));
	a->query.target_ifindex = ifindex;
	a->query.attach_type = type;
	a->query.prog_ids = (unsigned long)prog_ids;
	a->query.link_ids = (unsigned long)link_ids;
	a->query.count = count;
}

int nk_prog_query(int ifindex, int type, __u32 *prog_ids, __u32 *link_ids,
		  __u32 *count, __u64 *revision)
{
	union bpf_attr a;
	int ret;

	nk_query_attr(&a, ifindex, type, prog_ids, link_ids, count ? *count : 0);
	ret = nk_bpf(BPF_PROG_QUERY, &a);
	if (count)
		*count = a.query.count;
	if (revision)
		*revision = a.query.revision;
	return ret;
}

void nk_query_prep(union bpf_attr *a, int ifindex, int type,
		   struct nk_query *q)
{
	memset(q, 0, sizeof(*q));
	nk_query_attr(a, ifindex, type, q->prog_ids, q->link_ids, NK_QUERY_MAX);
}

int nk_query(int ifindex, int type, struct nk_query *q)
{
	memset(q, 0, sizeof(*q));
	q->count = NK_QUERY_MAX;
	return nk_prog_query(ifindex, type, q->prog_ids, q->link_ids, &q->count,
			     &q->revision);
}

int nk_prog_count(int ifindex, int type, __u32 *ids, __u32 max)
{
	int err = nk_prog_query(ifindex, type, ids, NULL, &max, NULL);

	return err ? err : (int)max;
}

__u64 nk_revision(int ifindex, int type)
{
	__u64 rev = 0;

	nk_prog_query(ifindex, type, NULL, NULL, NULL, &rev);
	return rev;
}

const char *nk_attach(int ifindex, int attach_type, int verdict,
		      const char *name, const char *pin)
{
	int fd, prog_fd = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, attach_type,
				       verdict, name);
	union bpf_attr attr;

	if (prog_fd < 0)
		return "BPF_PROG_LOAD";
	if (!pin)
		return nk_prog_attach(ifindex, attach_type, prog_fd, 0, 0, 0, 0) ?
		       "BPF_PROG_ATTACH" : NULL;
	fd = nk_link_create(ifindex, attach_type, prog_fd, 0, 0, 0);
	if (fd < 0)
		return "BPF_LINK_CREATE";
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)pin;
	attr.bpf_fd = fd;
	return nk_bpf(BPF_OBJ_PIN, &attr) ? "BPF_OBJ_PIN" : NULL;
}

int nk_pinned_fdinfo(const char *pin)
{
	char path[64], line[256];
	union bpf_attr a;
	FILE *f;
	int fd;

	memset(&a, 0, sizeof(a));
	a.pathname = (unsigned long)pin;
	fd = nk_bpf(BPF_OBJ_GET, &a);
	if (fd < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f) {
		close(fd);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	fclose(f);
	close(fd);
	return 0;
}

int nk_obj_info(int fd, void *info, __u32 len)
{
	union bpf_attr a;

	memset(info, 0, len);
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = len;
	a.info.info = (unsigned long)info;
	return nk_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
}

__u32 nk_prog_id(int fd)
{
	struct bpf_prog_info info;

	return nk_obj_info(fd, &info, sizeof(info)) ? 0 : info.id;
}

int nk_link_info(int fd, struct bpf_link_info *info)
{
	return nk_obj_info(fd, info, sizeof(*info));
}

__u32 nk_link_id(int fd)
{
	struct bpf_link_info info;

	return nk_link_info(fd, &info) ? 0 : info.id;
}

int nk_fd_by_id(int cmd, __u32 id)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	if (cmd == BPF_PROG_GET_FD_BY_ID)
		a.prog_id = id;
	else
		a.link_id = id;
	return nk_bpf(cmd, &a);
}

int nk_id_gone(int cmd, __u32 id)
{
	int fd = nk_fd_by_id(cmd, id);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return fd == -ENOENT;
}

int nk_all_ids(int cmd, __u32 *ids, int max)
{
	union bpf_attr a;
	int n = 0;

	memset(&a, 0, sizeof(a));
	while (n < max && !nk_bpf(cmd, &a)) {
		ids[n++] = a.next_id;
		a.start_id = a.next_id;
	}
	return n;
}

int nk_ids_new(int cmd, const __u32 *before, int nb, char *buf, size_t size)
{
	static __thread __u32 ids[16384];
	int i, j, n, count = 0;
	size_t len = 0;

	buf[0] = 0;
	n = nk_all_ids(cmd, ids, 16384);
	for (i = 0; i < n; i++) {
		for (j = 0; j < nb && before[j] != ids[i]; j++)
			;
		if (j < nb)
			continue;
		count++;
		if (len + 12 < size)
			len += snprintf(buf + len, size - len, " %u", ids[i]);
	}
	return count;
}

int nk_ids_settle(int cmd, const __u32 *before, int nb, char *buf, size_t size,
		  double deadline)
{
	int n;

	while ((n = nk_ids_new(cmd, before, nb, buf, size)) && nk_now() < deadline)
		usleep(50000);
	return n;
}

int nk_count_ids(int cmd)
{
	union bpf_attr a;
	int n = 0;

	memset(&a, 0, sizeof(a));
	while (!nk_bpf(cmd, &a) && n < 100000) {
		a.start_id = a.next_id;
		n++;
	}
	return n;
}

/* Call fn on an fd of every program or link (by the walk's cmd). */
static int census(int next_cmd, int fd_cmd, int (*fn)(int fd, const void *arg),
		  const void *arg)
{
	union bpf_attr a;
	__u32 id = 0;
	int fd, n = 0;

	for (;;) {
		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (nk_bpf(next_cmd, &a))
			return n;
		id = a.next_id;
		fd = nk_fd_by_id(fd_cmd, id);
		if (fd < 0)
			continue;
		n += fn(fd, arg);
		close(fd);
	}
}

static int prog_named(int fd, const void *prefix)
{
	struct bpf_prog_info info;

	return !nk_obj_info(fd, &info, sizeof(info)) &&
	       (!prefix || !strncmp(info.name, prefix, strlen(prefix)));
}

static int link_typed(int fd, const void *type)
{
	struct bpf_link_info info;

	return !nk_link_info(fd, &info) &&
	       (*(const int *)type < 0 || (int)info.type == *(const int *)type);
}

int nk_count_progs(const char *prefix)
{
	return census(BPF_PROG_GET_NEXT_ID, BPF_PROG_GET_FD_BY_ID, prog_named,
		      prefix);
}

int nk_count_links(int link_type)
{
	return census(BPF_LINK_GET_NEXT_ID, BPF_LINK_GET_FD_BY_ID, link_typed,
		      &link_type);
}

void nk_census_take(struct nk_nl *nl, const char *prefix, int link_type,
		    struct nk_census *c)
{
	c->devices = nl ? nk_links_dump(nl, NULL, 0, 1) : 0;
	if (c->devices == NK_NL_NOANSWER)
		c->devices = -ETIMEDOUT;
	c->progs = prefix ? nk_count_progs(prefix) :
		   nk_count_ids(BPF_PROG_GET_NEXT_ID);
	c->links = link_type >= 0 ? nk_count_links(link_type) :
		   nk_count_ids(BPF_LINK_GET_NEXT_ID);
}

int nk_census_settles(struct nk_nl *nl, const char *prefix, int link_type,
		      const struct nk_census *want, struct nk_census *now,
		      double secs)
{
	double t0 = nk_now();

	for (;;) {
		nk_census_take(nl, prefix, link_type, now);
		if (now->devices == want->devices && now->progs == want->progs &&
		    now->links == want->links)
			return 1;
		if (nk_now() - t0 >= secs)
			return 0;
		usleep(50000);
	}
}
